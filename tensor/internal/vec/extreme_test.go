package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMaxMin(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testExtreme(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testExtreme(t, impls64()) })
}

// testExtreme checks Max and Min of every implementation against the plain
// loop, bit for bit, over lengths around the leaf's block, with NaNs, signed
// zeros and infinities (including +Inf and -Inf together, whose sum is NaN
// although no element is) placed at random, and that nothing past the end
// is read.
func testExtreme[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(7, 8))
	inf := T(math.Inf(1))
	fills := []struct {
		name string
		f    func(i int) T
	}{
		{"random", func(int) T { return T(r.NormFloat64() * 100) }},
		{"zeros of both signs", func(i int) T { return T(math.Copysign(0, float64(r.IntN(2)*2-1))) }},
		{"negative and zeros", func(int) T { return T(-r.Float64() * float64(r.IntN(2))) }},
		{"all -Inf", func(int) T { return -inf }},
		{"all +Inf", func(int) T { return inf }},
		{"infinities and values", func(int) T { return []T{inf, -inf, 1, -1}[r.IntN(4)] }},
	}
	for _, im := range impls {
		for _, fill := range fills {
			for _, n := range append(testLengths(), 128, 1000, 4099) {
				for _, nan := range []bool{false, true} {
					v := guarded[T](n)
					for i := range v {
						v[i] = fill.f(i)
					}
					if nan && n > 0 {
						v[r.IntN(n)] = T(math.Float64frombits(0x7ff8_0000_0000_1234))
						if r.IntN(2) == 0 {
							v[r.IntN(n)] = T(math.NaN())
						}
					}
					for _, isMax := range []bool{true, false} {
						leaf := im.minLeaf
						if isMax {
							leaf = im.maxLeaf
						}
						got, want := extreme(leaf, v, isMax), extremeGo(v, isMax)
						if !sameBits(got, want) {
							t.Fatalf("%s %s n=%d nan=%v max=%v: got %v, want %v", im.name, fill.name, n, nan, isMax, got, want)
						}
					}
				}
			}
		}
	}
	// The exported forms use the active implementation.
	v := []T{3, -0.0, 7, 7, -2}
	if got := Max(v); got != 7 {
		t.Fatalf("Max = %v", got)
	}
	if got := Min(v); got != -2 {
		t.Fatalf("Min = %v", got)
	}
	if got := Max([]T{}); !math.IsInf(float64(got), -1) {
		t.Fatalf("Max of nothing = %v", got)
	}
}

// sameBits reports whether x and y have the same bits (so NaN payloads and
// the signs of zeros count).
func sameBits[T Float](x, y T) bool {
	if a, ok := any(x).(float32); ok {
		return math.Float32bits(a) == math.Float32bits(any(y).(float32))
	}
	return math.Float64bits(any(x).(float64)) == math.Float64bits(any(y).(float64))
}
