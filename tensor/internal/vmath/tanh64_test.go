package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

var tanh64Specials = []float64{
	0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff0000000000001),
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, 1e-300, 1e-9, -1e-9, 0x1p-28,
	0.17328679513998632, 0.34657359027997264, 0.625, 1, -1, 5, 19, 19.1, 20, 21, -40, 1e300, math.MaxFloat64,
}

// tanh64Inputs are the specials, random values over scales 1e-8 to 100, and
// every float64 near the points where k = round(2|x|·log2 e) steps.
func tanh64Inputs(n int) []float64 {
	rng := rand.New(rand.NewPCG(7, 8))
	in := append([]float64{}, tanh64Specials...)
	for i := 0; i < n; i++ {
		scale := math.Pow(10, float64(rng.IntN(11)-8))
		in = append(in, (2*rng.Float64()-1)*scale)
	}
	for k := 1; k <= 60; k++ {
		x := (float64(k) - 0.5) * math.Ln2 / 2
		for j := 0; j < 50; j++ {
			in = append(in, x, -x)
			x = math.Nextafter(x, 0)
		}
	}
	return in
}

var tanh64Kernel = kernel64{name: "tanh", scalar: Tanh64, slice: Tanh64s, ref: math.Tanh, maxULP: 2,
	specials: tanh64Specials, inputs: tanh64Inputs}

// TestTanh64MatchesMath checks Tanh64 against math.Tanh: within 2 ulp over
// tanh64Inputs, the same signed zeros, NaNs back unchanged.
func TestTanh64MatchesMath(t *testing.T) {
	checkMatchesMath(t, tanh64Kernel)
}

// TestTanh64SliceMatchesScalar checks Tanh64s against Tanh64 (checkSliceMatchesScalar).
func TestTanh64SliceMatchesScalar(t *testing.T) { checkSliceMatchesScalar(t, tanh64Kernel) }

func FuzzTanh64(f *testing.F) { fuzzKernel64(f, tanh64Kernel) }

func BenchmarkTanh64(b *testing.B) { benchFloat64(b, "tanh", math.Tanh, Tanh64s) }
