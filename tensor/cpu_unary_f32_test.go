package tensor

import (
	"math"
	"testing"

	"github.com/goagx/agx/tensor/internal/vmath"
)

// f32Specials are inputs at the edges of the float32 kernels' ranges. (The
// kernels' accuracy against float64 math is tested in package vmath, over
// tens of millions of inputs.)
var f32Specials = []float32{
	0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
	1e-30, -1e-30, 1e-8, -1e-8, 0.34657359, -0.34657359, 0.5, 1, -1, 9, 9.1, 10, 20, -20, 50,
	88.72283, 88.72284, 88.8, -87.33654, -103.27893, -103.97208, -104, -105, 150, -150, 200, -200,
}

// TestFloat32KernelsAgreeWithOps checks that the tensor ops use the vmath
// kernels, bit for bit, on contiguous and strided float32 data alike.
func TestFloat32KernelsAgreeWithOps(t *testing.T) {
	xs := append([]float32{}, f32Specials...)
	for i := 0; i < 200; i++ {
		xs = append(xs, float32(i-100)*0.37)
	}
	x := FromSlice(xs)
	strided := Stack(1, x, x).Select(1, 0)
	for _, c := range []struct {
		name string
		op   func(*Tensor) *Tensor
		k    func(float32) float32
	}{
		{"exp", (*Tensor).Exp, vmath.Exp32},
		{"sigmoid", (*Tensor).Sigmoid, vmath.Sigmoid32},
		{"tanh", (*Tensor).Tanh, vmath.Tanh32},
		{"erf", (*Tensor).Erf, vmath.Erf32},
	} {
		for _, in := range []struct {
			name string
			t    *Tensor
		}{{"contiguous", x}, {"strided", strided}} {
			t.Run(c.name+"/"+in.name, func(t *testing.T) {
				got := ToSlice[float32](c.op(in.t))
				for i, v := range xs {
					if math.Float32bits(got[i]) != math.Float32bits(c.k(v)) {
						t.Fatalf("%s(%g) = %g, kernel gives %g", c.name, v, got[i], c.k(v))
					}
				}
			})
		}
	}
}
