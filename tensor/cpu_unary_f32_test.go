package tensor

import (
	"math"
	"testing"
)

// ulpDiff is the number of float32 values between a and b (0 when equal, and
// when both are NaN); a NaN against a number is reported as MaxInt64.
func ulpDiff(a, b float32) int64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxInt64
	}
	ord := func(f float32) int64 {
		u := int64(math.Float32bits(f))
		if u&(1<<31) != 0 {
			return -(u &^ (1 << 31))
		}
		return u
	}
	d := ord(a) - ord(b)
	if d < 0 {
		return -d
	}
	return d
}

// f32Specials are inputs at the edges of the kernels' ranges.
var f32Specials = []float32{
	0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
	1e-30, -1e-30, 1e-8, -1e-8, 0.34657359, -0.34657359, 0.5, 1, -1, 9, 9.1, 10, 20, -20, 50,
	88.72283, 88.72284, 88.8, -87.33654, -103.27893, -103.97208, -104, -105, 150, -150, 200, -200,
}

func TestFloat32Kernels(t *testing.T) {
	cases := []struct {
		name string
		fast func(float32) float32
		ref  func(float64) float64
	}{
		{"exp", exp32, math.Exp},
		{"sigmoid", sigmoid32, sigmoid64},
		{"tanh", tanh32, math.Tanh},
	}
	// Every 61st float32 bit pattern (70 million inputs over the whole range,
	// both signs) plus the specials; with -short or under the race detector
	// (already exhaustive in the plain run) every 997th.
	step := uint64(61)
	if testing.Short() || raceEnabled {
		step = 997
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var worst int64
			var worstX float32
			check := func(x float32) {
				got, want := c.fast(x), float32(c.ref(float64(x)))
				d := ulpDiff(got, want)
				if d > worst {
					worst, worstX = d, x
				}
				if want == 0 && got == 0 && math.Signbit(float64(got)) != math.Signbit(float64(want)) {
					t.Errorf("%s(%g) = %g, want %g (sign of zero)", c.name, x, got, want)
				}
			}
			for _, x := range f32Specials {
				check(x)
			}
			for u := uint64(0); u < 1<<32; u += step {
				check(math.Float32frombits(uint32(u)))
			}
			if worst > 1 {
				t.Errorf("%s: %d ulp from float32(math) at x = %g (%#08x)", c.name, worst, worstX, math.Float32bits(worstX))
			}
			t.Logf("%s: at most %d ulp", c.name, worst)
		})
	}
}

// TestFloat32KernelsAgreeWithOps checks that the tensor ops use the kernels on
// contiguous and strided float32 data alike.
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
		{"exp", (*Tensor).Exp, exp32},
		{"sigmoid", (*Tensor).Sigmoid, sigmoid32},
		{"tanh", (*Tensor).Tanh, tanh32},
	} {
		for _, in := range []struct {
			name string
			t    *Tensor
		}{{"contiguous", x}, {"strided", strided}} {
			t.Run(c.name+"/"+in.name, func(t *testing.T) {
				got := ToSlice[float32](c.op(in.t))
				for i, v := range xs {
					if ulpDiff(got[i], c.k(v)) != 0 {
						t.Fatalf("%s(%g) = %g, kernel gives %g", c.name, v, got[i], c.k(v))
					}
				}
			})
		}
	}
}
