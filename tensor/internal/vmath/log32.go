package vmath

import "math"

// Float32 natural logarithm, computed in float32 lanes.
//
// x = 2^k·m with m in [1, 2) from the bits (subnormal x scaled by 2^23
// first), halved (and k + 1) where m > √2, so that m is in [√2/2, √2];
// f = m - 1 is exact, and log(1 + f) = f - f²/2 + f³·P(f) with P of degree
// 8, Cephes's minimax coefficients for logf, in Horner's scheme; k·ln 2 is
// added in two parts, the first of 9 bits so that k·ln2hi32 is exact,
// the small terms first, as Cephes's logf adds them. Over every positive
// float32 (checked once exhaustively; the tests sweep every 61st) the
// result is at most 1 ulp from float32(math.Log(float64(x))). +Inf and NaN
// come back unchanged, ±0 gives -Inf and a negative x NaN.
//
// Every product is rounded to float32 before it is added (the float32(...)
// conversions forbid fusing), as in the assembly kernels.

const (
	log32Tiny  float32 = 0x1p-126 // the smallest normal float32
	log32Scale float32 = 0x1p23   // scales a subnormal x up
	sqrt2f32   float32 = math.Sqrt2
	log32NaN           = 0x7fc00000 // float32(math.Log(-1))'s bits
)

// log32P are the coefficients of P, highest degree first.
var log32P = [9]float32{
	7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
	-1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
}

// Log32 is the natural logarithm of a float32 x.
func Log32(x float32) float32 {
	xs, kadj := x, float32(0)
	if x < log32Tiny {
		xs, kadj = float32(x*log32Scale), 23
	}
	b := math.Float32bits(xs)
	k := float32(int32(b>>23)-127) - kadj
	m := math.Float32frombits(b&(1<<23-1) | 0x3f800000)
	if m > sqrt2f32 {
		m = float32(m * 0.5)
		k = k + 1
	}
	f := m - 1
	z := float32(f * f)
	p := log32P[0]
	for _, c := range log32P[1:] {
		p = float32(p*f) + c
	}
	y := float32(float32(f*z) * p)
	y = y + float32(k*ln2lo32)
	y = y + float32(-0.5*z)
	r := (f + y) + float32(k*ln2hi32)
	switch {
	case x != x || x > math.MaxFloat32:
		return x
	case x == 0:
		return float32(math.Inf(-1))
	case x < 0:
		return math.Float32frombits(log32NaN)
	}
	return r
}

// Log32s sets dst[i] = Log32(src[i]) for i < len(src); dst must be at
// least as long as src.
func Log32s(dst, src []float32) {
	dst = dst[:len(src)]
	n := log32SIMD(dst, src)
	for i, x := range src[n:] {
		dst[n+i] = Log32(x)
	}
}
