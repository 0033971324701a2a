package tensor

import (
	"math"
	"testing"

	"github.com/goagx/agx/tensor/internal/vmath"
)

// TestFloat64KernelsAgreeWithOps checks that the float64 tensor ops log,
// sin, cos, tanh and erf use the vmath kernels, bit for bit, on contiguous and
// strided data alike. (Their accuracy is tested in package vmath.)
func TestFloat64KernelsAgreeWithOps(t *testing.T) {
	xs := []float64{
		0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1e-300, 1e-9, 1, -1, 6, 709.5, -740, 1e7, 1e300,
	}
	for i := 0; i < 200; i++ {
		xs = append(xs, float64(i-100)*0.037)
	}
	x := FromSlice(xs)
	strided := Stack(1, x, x).Select(1, 0)
	for _, c := range []struct {
		name string
		op   func(*Tensor) *Tensor
		k    func(float64) float64
	}{
		{"log", (*Tensor).Log, vmath.Log64},
		{"sin", (*Tensor).Sin, vmath.Sin64},
		{"cos", (*Tensor).Cos, vmath.Cos64},
		{"tanh", (*Tensor).Tanh, vmath.Tanh64},
		{"erf", (*Tensor).Erf, vmath.Erf64},
	} {
		for _, in := range []struct {
			name string
			t    *Tensor
		}{{"contiguous", x}, {"strided", strided}} {
			t.Run(c.name+"/"+in.name, func(t *testing.T) {
				got := ToSlice[float64](c.op(in.t))
				for i, v := range xs {
					if math.Float64bits(got[i]) != math.Float64bits(c.k(v)) {
						t.Fatalf("%s(%g) = %g, kernel gives %g", c.name, v, got[i], c.k(v))
					}
				}
			})
		}
	}
}
