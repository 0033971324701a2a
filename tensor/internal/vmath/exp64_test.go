package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

var exp64Specials = []float64{
	0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff0000000000001),
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1e-300, 1e-17, -1e-17, 0.34657359027997264, 1, -1,
	-708.3964185322641, -708.4, -709, -744, -745.1332191019411, -745.1332191019412, -745.2, -746, -747, -1e300,
	709, 709.782712893384, 709.7827128933841, 709.79, 710, 711, 1e300, math.MaxFloat64, -math.MaxFloat64,
}

// exp64Inputs are the specials, random values over the whole range (and
// near 0 at scales down to 1e-12), and every float64 near the points where
// k = round(x·log2 e) steps.
func exp64Inputs(n int) []float64 {
	rng := rand.New(rand.NewPCG(9, 10))
	in := append([]float64{}, exp64Specials...)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			in = append(in, (2*rng.Float64()-1)*746)
		} else {
			in = append(in, (2*rng.Float64()-1)*math.Pow(10, float64(rng.IntN(15)-12)))
		}
	}
	for k := -1076; k <= 1025; k += 7 {
		x := (float64(k) + 0.5) * math.Ln2
		for j := 0; j < 20; j++ {
			in = append(in, x)
			x = math.Nextafter(x, 0)
		}
	}
	return in
}

var exp64Kernel = kernel64{name: "exp", scalar: Exp64, slice: Exp64s, ref: expExact, maxULP: 1,
	specials: exp64Specials, inputs: exp64Inputs}

// expExact is e^x rounded to float64 from a double-double computation
// (about 100 bits): 2^k·e^r with r = x - k·ln2 and e^r by its Taylor series.
// It is the reference rather than math.Exp, whose amd64 assembly returns
// +Inf from about x = 709.4, below the overflow at 709.78, and is itself up
// to 2 ulp off in places.
func expExact(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 710:
		return math.Inf(1)
	case x < -746:
		return 0
	}
	k := math.Round(x / math.Ln2)
	// ln2 = ln2a + ln2b + ln2c, each product with k exact in a double-double.
	const ln2a, ln2b, ln2c = 0.6931471805599453, 2.3190468138462996e-17, 5.707708438416212e-34
	r := ddAdd(dd{x, 0}, ddMulF(dd{-ln2a, 0}, k))
	r = ddAdd(r, ddMulF(dd{-ln2b, 0}, k))
	r = ddAdd(r, dd{-ln2c * k, 0})
	sum, term := dd{1, 0}, dd{1, 0}
	for n := 1; n <= 30; n++ {
		term = ddMul(term, r)
		term = ddMulF(term, 1/float64(n)) // 1/n rounded: the error stays far below 2^-60 relative
		sum = ddAdd(sum, term)
	}
	// Scale hi and lo apart (exact while normal), then round once.
	return math.Ldexp(sum.hi, int(k)) + math.Ldexp(sum.lo, int(k))
}

// dd is an unevaluated sum hi + lo with |lo| ≤ ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

func ddAdd(a, b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	e += a.lo + b.lo
	hi, lo := twoSum(s, e)
	return dd{hi, lo}
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	hi, lo := twoSum(p, e)
	return dd{hi, lo}
}

func ddMulF(a dd, f float64) dd { return ddMul(a, dd{f, 0}) }

// TestExp64MatchesExact checks Exp64 against expExact: within 1 ulp over
// exp64Inputs (the subnormal results and the overflow edge among them),
// NaNs back unchanged.
func TestExp64MatchesExact(t *testing.T) { checkMatchesMath(t, exp64Kernel) }

// TestExp64SliceMatchesScalar checks Exp64s against Exp64 (checkSliceMatchesScalar).
func TestExp64SliceMatchesScalar(t *testing.T) { checkSliceMatchesScalar(t, exp64Kernel) }

func FuzzExp64(f *testing.F) { fuzzKernel64(f, exp64Kernel) }

func BenchmarkExp64(b *testing.B) { benchFloat64(b, "exp", math.Exp, Exp64s) }

// TestExpExactAgreesWithMath keeps the reference honest: within 2 ulp of
// math.Exp where that is finite and normal.
func TestExpExactAgreesWithMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 100000; i++ {
		x := (2*rng.Float64() - 1) * 700
		if d := ulp64(expExact(x), math.Exp(x)); d > 2 {
			t.Fatalf("expExact(%v) = %v, math.Exp %v: %d ulp apart", x, expExact(x), math.Exp(x), d)
		}
	}
}
