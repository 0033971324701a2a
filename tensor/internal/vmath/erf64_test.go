package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

var erf64Specials = []float64{
	0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff0000000000001),
	math.Float64frombits(0xfff8000000000123),
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, -0x1p-1022, 0x0.fffffffffffffp-1022,
	1e-300, 1e-20, 1e-9, -1e-9, 0x1p-28, 0.5, 0.84375, -0.84375,
	math.Nextafter(1, 0), 1, math.Nextafter(1, 2), -1, 1.25, 2, 2.857, 3, 4, 5, 5.8, 5.9, 5.95,
	math.Nextafter(6, 0), 6, math.Nextafter(6, 7), -6, 7, 27, 1e300, math.MaxFloat64, -math.MaxFloat64,
}

// erf64Inputs are the specials, random values over scales 1e-8 to 10, a
// dense sweep of [0, 7], and every float64 near the cut-overs at 1 and 6.
func erf64Inputs(n int) []float64 {
	rng := rand.New(rand.NewPCG(9, 10))
	in := append([]float64{}, erf64Specials...)
	for i := 0; i < n; i++ {
		scale := math.Pow(10, float64(rng.IntN(10)-8))
		in = append(in, (2*rng.Float64()-1)*scale)
	}
	for i := 0; i < n; i++ {
		in = append(in, 7*float64(i)/float64(n))
	}
	for _, c := range []float64{erf64Split, erf64Hi} {
		up, down := c, c
		for j := 0; j < 1000; j++ {
			in = append(in, up, -down)
			up, down = math.Nextafter(up, 10), math.Nextafter(down, 0)
		}
	}
	return in
}

var erf64Kernel = kernel64{name: "erf", scalar: Erf64, slice: Erf64s, ref: math.Erf, maxULP: 2,
	specials: erf64Specials, inputs: erf64Inputs}

// TestErf64MatchesMath checks Erf64 against math.Erf: within 2 ulp over
// erf64Inputs, the same signed zeros, NaNs back unchanged, ±1 at ±Inf.
func TestErf64MatchesMath(t *testing.T) {
	checkMatchesMath(t, erf64Kernel)
	for _, x := range []float64{math.Inf(1), math.Inf(-1)} {
		if got := Erf64(x); got != math.Copysign(1, x) {
			t.Errorf("Erf64(%v) = %v", x, got)
		}
	}
}

// TestErf64SliceMatchesScalar checks Erf64s against Erf64 (checkSliceMatchesScalar).
func TestErf64SliceMatchesScalar(t *testing.T) { checkSliceMatchesScalar(t, erf64Kernel) }

func FuzzErf64(f *testing.F) { fuzzKernel64(f, erf64Kernel) }

func BenchmarkErf64(b *testing.B) { benchFloat64(b, "erf", math.Erf, Erf64s) }
