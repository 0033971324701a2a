package vmath

import "math"

// Float32 erf, computed in float32 lanes.
//
// a = min(|x|, erf32Top) falls in one of eight intervals [c, c + 1/2),
// c = k/2 for k = ⌊2a⌋ in 0..7, and s = a - c is exact (Sterbenz). On each,
// erf(c + s) = A + (D + (M·s + s·R(s))), with the interval's constants:
// A = erf c rounded to float32 and D the rest of erf c, rounded too (both 0
// for k = 0); M = 1 for k = 0, where erf s = s + s·(erf(s)/s - 1) keeps
// the relative accuracy of tiny s, and 0 above; R of degree 7 in Horner's
// scheme, the Chebyshev interpolant of (erf(c + s) - A - D)/s (for k = 0 of
// erf(s)/s - 1) on [0, 1/2], fitted by fit_erf.go in 320-bit arithmetic
// and rounded to float32. The assembly kernels fetch each coefficient of the
// lane's interval from an eight-entry table with one permute (VPERMPS).
// Over every float32 (checked once exhaustively; the tests sweep every
// 61st and every float32 of the ranges where it matters most), the result
// is at most 1 ulp from float32(math.Erf(float64(x))); erf(±0) = ±0,
// erf(±Inf) = ±1, erf x is ±1 from |x| = 3.9192073 (float32(math.Erf)
// from 3.919206), and NaN comes back unchanged. It is not monotone: at 283
// of the steps from one float32 to the next in [0, 4.5] it falls by 1 ulp
// (float32(math.Erf) at none).

// erf32Top is the largest float32 below 4, so that ⌊2a⌋ ≤ 7.
const erf32Top float32 = 0x1.fffffep1

// erf32A, erf32D and erf32R are the tables of the eight intervals, indexed
// by k; erf32R[j] holds the coefficients of s^j.
var (
	erf32A = [8]float32{0, 0.5204999, 0.8427008, 0.96610516, 0.9953223, 0.999593, 0.9999779, 0.9999993}
	erf32D = [8]float32{0, -7.269198e-09, 1.3511696e-08, -1.662207e-08, -2.206372e-08, 2.8497082e-08, 2.2826214e-08, -2.7842635e-08}
	erf32M = [8]float32{1, 0, 0, 0, 0, 0, 0, 0}
	erf32R = [8][8]float32{
		{0.12837917, 0.8787826, 0.4151075, 0.11893029, 0.020666985, 0.0021782843, 0.00013925305, 5.399426e-06},
		{1.0364395e-07, -0.4393914, -0.4151075, -0.1783954, -0.04133398, -0.0054457136, -0.00041775836, -1.8897757e-05},
		{-0.3761308, -0.14645883, 0.1383687, 0.13875058, 0.0482234, 0.008350224, 0.0007890673, 4.2285563e-05},
		{7.138928e-05, 0.18300103, 0.069191284, -0.0445757, -0.03445187, -0.008624579, -0.0010438667, -6.755635e-05},
		{0.11226235, 0.0079374565, -0.069226585, -0.01505235, 0.013142411, 0.0061353627, 0.0010123925, 8.081414e-05},
		{0.002554361, -0.05262955, 0.0047148457, 0.020148175, 0.00023829108, -0.0028803656, -0.000720469, -7.1941984e-05},
		{-0.03328216, 0.011350703, 0.015241494, -0.006797802, -0.0028882069, 0.00075734424, 0.00034995266, 4.340733e-05},
		{0.0087195, 0.0032975713, -0.0057546217, 0.0004253756, 0.0010861385, -6.018712e-05, -8.8376604e-05, -1.3180068e-05},
	}
)

// Erf32 is erf(x) for a float32 x. Every product is rounded to float32
// before it is added (the float32(...) conversions forbid fusing), as in the
// assembly kernels.
func Erf32(x float32) float32 {
	if x != x {
		return x
	}
	a := math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
	a = min(a, erf32Top)
	k := int32(a + a)
	s := a - float32(float32(k)*0.5)
	p := erf32R[7][k]
	for j := 6; j >= 0; j-- {
		p = float32(p*s) + erf32R[j][k]
	}
	r := erf32A[k] + (erf32D[k] + (float32(erf32M[k]*s) + float32(s*p)))
	return math.Float32frombits(math.Float32bits(r) | math.Float32bits(x)&(1<<31))
}

// erfGo is Erf32 over src, into dst[:len(src)].
func erfGo(dst, src []float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = Erf32(x)
	}
}

// geluC is 1/√2 rounded to float32, as tensor's GELU scales by it.
const geluC float32 = 1 / math.Sqrt2

// GELU32 is x·((Erf32(x·geluC) + 1)·0.5), each operation rounded to
// float32 (none can fuse).
func GELU32(x float32) float32 {
	e := Erf32(x * geluC)
	return x * ((e + 1) * 0.5)
}

// geluGo is GELU32 over src, into dst[:len(src)].
func geluGo(dst, src []float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = GELU32(x)
	}
}
