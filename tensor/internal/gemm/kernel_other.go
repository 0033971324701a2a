//go:build !amd64

package gemm

var (
	kernelsF32 = []*kernel[float32]{genericF32}
	kernelsF64 = []*kernel[float64]{genericF64}
)

func available() []bool { return []bool{true} }
