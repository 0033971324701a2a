package vmath

import "math"

// Float64 e^x.
//
// v = x clamped to [-746, 710] (e^-746 rounds to 0 and e^710 overflows),
// k = round(v·log2 e), r = v - k·ln2 with ln2 in two parts, e^r - 1 =
// r + r²·Q(r) as Tanh64 computes it (Q the Taylor polynomial to degree 13,
// truncation below 1e-17 relative for |r| ≤ ln2/2), and e^v =
// (1 + (e^r - 1))·2^k1·2^k2 with k1 = ⌊k/2⌋ and k2 = k - k1, so that both
// factors are normal and only the last product rounds (into the
// subnormals, or to +Inf). Within 1 ulp of the exact value (the tests
// check a million random inputs over the whole range and the edges against
// a double-double reference; math.Exp's amd64 assembly returns +Inf from
// about x = 709.44, below the overflow at 709.78, where Exp64 is finite). The AVX2 and
// AVX-512 kernels run the same operations in the same order and return
// Exp64's bits.

const (
	exp64Lo = -746
	exp64Hi = 710
)

// Exp64 is e^x for a float64 x.
func Exp64(x float64) float64 {
	if x != x {
		return x
	}
	v := x
	if v < exp64Lo {
		v = exp64Lo
	}
	if v > exp64Hi {
		v = exp64Hi
	}
	t := float64(v*log2e) + round
	k := t - round
	r := float64(v-float64(k*ln2hi)) - float64(k*ln2lo)
	p := expm1Taylor(r)
	k1 := math.Floor(float64(k * 0.5))
	k2 := k - k1
	return float64(float64((1+p)*pow2(k1+round)) * pow2(k2+round))
}

// expm1Taylor is e^r - 1 = r + r²·Q(r) for |r| ≤ ln2/2, Q in Horner's
// scheme from its highest coefficient.
func expm1Taylor(r float64) float64 {
	q := float64(r*expm1C[11]) + expm1C[10]
	for j := 9; j >= 0; j-- {
		q = float64(q*r) + expm1C[j]
	}
	return r + float64(float64(r*r)*q)
}

// Exp64s sets dst[i] = e^src[i] for i < len(src); dst must be at least as
// long as src.
func Exp64s(dst, src []float64) {
	dst = dst[:len(src)]
	n := exp64SIMD(dst, src)
	for i, x := range src[n:] {
		dst[n+i] = Exp64(x)
	}
}
