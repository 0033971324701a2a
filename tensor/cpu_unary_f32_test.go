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
		{"log", (*Tensor).Log, vmath.Log32},
		{"sin", (*Tensor).Sin, vmath.Sin32},
		{"cos", (*Tensor).Cos, vmath.Cos32},
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

// TestRsqrtForm checks that Rsqrt gives the bits of its definition, √x
// rounded to the element type and then its reciprocal (Pow(x, -0.5)'s
// form), on contiguous rows (package vec's passes) and strided ones, per
// dtype, and that it stays within 1 ulp of the correctly rounded float32.
func TestRsqrtForm(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -1,
		math.SmallestNonzeroFloat32, 1e-30, 0.25, 1, 2, 3, 1e30, math.MaxFloat32}
	for i := 1; i < 300; i++ {
		xs = append(xs, float64(i)*0.731)
	}
	for _, dt := range []DType{Float32, Float64} {
		x := FromSlice(xs).To(dt)
		for _, in := range []struct {
			name string
			t    *Tensor
		}{{"contiguous", x}, {"strided", Stack(1, x, x).Select(1, 0)}} {
			t.Run(dt.String()+"/"+in.name, func(t *testing.T) {
				got := ToSlice[float64](in.t.Rsqrt().To(Float64))
				pow := ToSlice[float64](in.t.Pow(-0.5).To(Float64))
				for i, v := range xs {
					var want float64
					if dt == Float32 {
						want = float64(1 / float32(math.Sqrt(float64(float32(v)))))
						exact := float32(1 / math.Sqrt(float64(float32(v))))
						if d := int64(math.Float32bits(float32(got[i]))) - int64(math.Float32bits(exact)); exact == exact && (d > 1 || d < -1) {
							t.Errorf("Rsqrt(%g) = %g, %d ulp from %g", v, got[i], d, exact)
						}
					} else {
						want = 1 / math.Sqrt(v)
					}
					same := func(a float64) bool {
						return math.Float64bits(a) == math.Float64bits(want) || a != a && want != want
					}
					if !same(got[i]) || !same(pow[i]) {
						t.Fatalf("Rsqrt(%g) = %g, Pow(-0.5) = %g, want %g", v, got[i], pow[i], want)
					}
				}
			})
		}
	}
}
