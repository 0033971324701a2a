package vmath

import "math"

// Float64 tanh.
//
// tanh x = (e^v - 1)/(e^v + 1) with v = 2|x| and the sign of x, as
// Tanh32 computes it, in float64 throughout: v = min(2|x|, 40) (tanh 19.1
// rounds to 1 in float64), k = round(v·log2 e), r = v - k·ln2 with ln2 in
// two parts (the first of 33 bits, so that k·ln2hi is exact), e^r - 1 =
// r + r²·Q(r) with Q the Taylor polynomial to degree 13 of e^r - 1 less its
// first term, over r² (truncation below 1e-17 relative for |r| ≤ ln2/2),
// and e^v - 1 = 2^k·(e^r - 1) + (2^k - 1). The AVX2 and AVX-512 kernels run
// the same operations in the same order and return Tanh64's bits.

const (
	ln2hi = 6.93147180369123816490e-01 // 0x3FE62E42FEE00000
	ln2lo = 1.90821492927058770002e-10 // ln 2 - ln2hi
)

// expm1C are 1/n! for n = 2 to 13.
var expm1C = [12]float64{
	1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
	1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800,
}

// Tanh64 is tanh x for a float64 x.
func Tanh64(x float64) float64 {
	if x != x {
		return x
	}
	v := 2 * clampTanh(x)
	t := float64(v*log2e) + round
	k := t - round
	r := float64(v-float64(k*ln2hi)) - float64(k*ln2lo)
	p := expm1Taylor(r)
	s := pow2(t)
	em1 := float64(p*s) + (s - 1)
	return math.Copysign(em1/(em1+2), x)
}

// Tanh64s sets dst[i] = tanh src[i] for i < len(src); dst must be at least
// as long as src.
func Tanh64s(dst, src []float64) {
	dst = dst[:len(src)]
	n := tanh64SIMD(dst, src)
	for i, x := range src[n:] {
		dst[n+i] = Tanh64(x)
	}
}
