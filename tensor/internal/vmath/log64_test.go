package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

var log64Specials = []float64{
	0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff0000000000001),
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, math.Nextafter(0x1p-1022, 0), 0x1.fffffffffffffp-1023,
	1e-300, 1, math.Nextafter(1, 0), math.Nextafter(1, 2), 2, 0.5, math.Sqrt2, math.Nextafter(math.Sqrt2, 0),
	math.Sqrt2 / 2, math.E, 10, -1, -1e-300, 1e300, math.MaxFloat64,
}

// log64Inputs are the specials, random values over every binade (the
// subnormals among them), random values near 1, and every float64 near
// √2 times a power of two, where the reduction switches.
func log64Inputs(n int) []float64 {
	rng := rand.New(rand.NewPCG(13, 14))
	in := append([]float64{}, log64Specials...)
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			in = append(in, math.Float64frombits(rng.Uint64()&^(1<<63)))
		case 1:
			in = append(in, 1+(2*rng.Float64()-1)*math.Pow(10, float64(rng.IntN(16)-15)))
		default:
			in = append(in, rng.Float64()*math.Pow(2, float64(rng.IntN(2098)-1074)))
		}
	}
	for e := -1074; e <= 1023; e += 11 {
		x := math.Ldexp(math.Sqrt2, e)
		for j := 0; j < 8; j++ {
			in = append(in, x, math.Nextafter(x, math.Inf(1)))
			x = math.Nextafter(x, 0)
		}
	}
	return in
}

var log64Kernel = kernel64{name: "log", scalar: Log64, slice: Log64s, ref: logRef, maxULP: 1,
	specials: log64Specials, inputs: log64Inputs}

// logRef is math.Log, but for subnormal x log(x·2^54) - 54·ln2 with the
// subtraction in a double-double: math.Log's amd64 assembly returns about
// -709.09 for every subnormal x (log 2^-1074 is -744.44).
func logRef(x float64) float64 {
	if !(x > 0 && x < 0x1p-1022) {
		return math.Log(x)
	}
	const ln2a, ln2b = 0.6931471805599453, 2.3190468138462996e-17
	r := ddAdd(dd{math.Log(x * 0x1p54), 0}, ddMulF(dd{-ln2a, 0}, 54))
	r = ddAdd(r, ddMulF(dd{-ln2b, 0}, 54))
	return r.hi + r.lo
}

// TestLog64MatchesMath checks Log64 against math.Log (logRef): within 1
// ulp over log64Inputs (subnormal x among them), -Inf for ±0, NaN below 0,
// NaNs back unchanged.
func TestLog64MatchesMath(t *testing.T) {
	checkMatchesMath(t, log64Kernel)
	// Log64 is math.Log's algorithm: the same bits wherever math.Log is
	// right (not for subnormal x, see logRef).
	for _, x := range log64Inputs(200000) {
		if x >= 0x1p-1022 || !(x > 0) {
			if got, want := Log64(x), math.Log(x); math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
				t.Fatalf("Log64(%v) = %v, math.Log %v", x, got, want)
			}
		}
	}
}

// TestLog64SliceMatchesScalar checks Log64s against Log64 (checkSliceMatchesScalar).
func TestLog64SliceMatchesScalar(t *testing.T) { checkSliceMatchesScalar(t, log64Kernel) }

func FuzzLog64(f *testing.F) { fuzzKernel64(f, log64Kernel) }

func BenchmarkLog64(b *testing.B) { benchFloat64(b, "log", math.Log, Log64s) }
