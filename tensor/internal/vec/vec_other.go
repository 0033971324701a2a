//go:build !amd64

package vec

func impls32() []*impl[float32] { return []*impl[float32]{goImpl[float32]()} }

func impls64() []*impl[float64] { return []*impl[float64]{goImpl[float64]()} }
