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

var exp64Kernel = kernel64{name: "exp", scalar: Exp64, slice: Exp64s, ref: expAlgorithmRef, maxULP: 2,
	specials: exp64Specials, inputs: exp64Inputs}

// expAlgorithmRef is what Exp64's algorithm (math.Exp's on amd64) should
// return within 2 ulp: expExact, but +Inf from where the algorithm's k =
// round(x·log2 e) reaches 1024 (about x = 709.44), below the true overflow.
func expAlgorithmRef(x float64) float64 {
	if math.RoundToEven(x*log2e) >= 1024 {
		return math.Inf(1)
	}
	return expExact(x)
}

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

// TestExp64MatchesExact checks Exp64 against expAlgorithmRef: within 2
// ulp over exp64Inputs (the subnormal results and the overflow edge among
// them), NaNs back unchanged.
func TestExp64MatchesExact(t *testing.T) { checkMatchesMath(t, exp64Kernel) }

// TestExp64SliceMatchesScalar checks Exp64s against Exp64 (checkSliceMatchesScalar).
func TestExp64SliceMatchesScalar(t *testing.T) { checkSliceMatchesScalar(t, exp64Kernel) }

// TestExp64IsMathExp checks that Exp64 returns math.Exp's bits where
// math.Exp runs the algorithm Exp64 replicates: over exp64Inputs, every
// float64 within 30 of the edges of each k (the subnormal and overflow
// edges among them), and random bit patterns.
func TestExp64IsMathExp(t *testing.T) {
	if !exp64IsMathExp {
		t.Skip("math.Exp runs another algorithm on this platform (not amd64, or no FMA); MathExps uses it")
	}
	n := 2000000
	if testing.Short() || raceEnabled {
		n = 100000
	}
	in := exp64Inputs(n)
	rng := rand.New(rand.NewPCG(13, 14))
	for range n {
		in = append(in, math.Float64frombits(rng.Uint64()))
	}
	for k := -1100; k <= 1030; k++ {
		x := (float64(k) + 0.5) * math.Ln2
		y := x
		for range 30 {
			x, y = math.Nextafter(x, math.Inf(1)), math.Nextafter(y, math.Inf(-1))
			in = append(in, x, y)
		}
	}
	for _, x := range in {
		if got, want := Exp64(x), math.Exp(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Exp64(%v) = %v (%#x), math.Exp %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

// TestMathExps checks MathExps against math.Exp, bit for bit, at every
// instruction level, at every length to 40, in place and not.
func TestMathExps(t *testing.T) {
	in := exp64Inputs(20000)
	withLevels(t, func(t *testing.T) {
		for _, inPlace := range []bool{false, true} {
			for n := 0; n <= 40; n++ {
				src := append([]float64{}, in[len(in)-n-3:]...)
				src = append(src[:n:n], 7)
				dst := make([]float64, n+1)
				dst[n] = 42
				if inPlace {
					dst = src
				}
				MathExps(dst[:n], src[:n])
				for i, x := range in[len(in)-n-3 : len(in)-3] {
					if got, want := dst[i], math.Exp(x); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("in place %v, n = %d: MathExps(%v) = %v, math.Exp %v", inPlace, n, x, got, want)
					}
				}
				if !inPlace && dst[n] != 42 {
					t.Fatalf("n = %d: MathExps wrote past the end", n)
				}
			}
		}
		dst := make([]float64, len(in))
		MathExps(dst, in)
		for i, x := range in {
			if math.Float64bits(dst[i]) != math.Float64bits(math.Exp(x)) {
				t.Fatalf("MathExps(%v) = %v, math.Exp %v", x, dst[i], math.Exp(x))
			}
		}
	})
}

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
