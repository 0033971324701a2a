package vmath

import (
	"math"
	"runtime"

	"golang.org/x/sys/cpu"
)

// Float64 e^x, math.Exp's amd64 algorithm.
//
// On amd64 with FMA (every CPU with AVX2), math.Exp runs an assembly
// routine after Shibata's SLEEF: k = round(x·log2 e), r = (x - k·ln2)/16
// with ln2 in two parts and fused products, e^r - 1 by its Taylor series to
// degree 8 in Horner's scheme, squared back four times as y ← y·(y + 2),
// and the result scaled by 2^k. Exp64 runs the same operations in the same
// order, so on those CPUs it returns math.Exp's bits, the routine's
// shortcomings included: it is up to 2 ulp from the exact value, and it
// returns +Inf from about x = 709.44, where e^x overflows only from 709.78.
// The AVX2 and AVX-512 kernels run the same operations again and return
// Exp64's bits.
//
// Where the routine branches, Exp64 clamps and scales instead: x is
// clamped to [-800, 710], which changes no result; k = 1024 makes the scale
// +Inf; and for k ≤ -1023, where the result is subnormal, the scale is
// 2^(k+1022) and then 2^-1022, as the routine's own subnormal path does.

const (
	exp64Lo = -800
	exp64Hi = 710
	expLn2U = 0.69314718055966295651160180568695068359375 // ln2's upper part
	expLn2L = 0.28235290563031577122588448175013436025525412068e-12
	expSubK = -1023 // from here down the result is subnormal
	expSubE = -1022
)

// expTaylor are the coefficients of e^r - 1 = r·(1 + r·(1/2 + r·(1/6 +
// ...))), from the highest (1/8!) down.
var expTaylor = [8]float64{
	2.4801587301587301587e-5, 1.9841269841269841270e-4, 1.3888888888888888889e-3, 8.3333333333333333333e-3,
	4.1666666666666666667e-2, 1.6666666666666666667e-1, 0.5, 1,
}

// Exp64 is e^x for a float64 x, math.Exp's bits on amd64 with FMA.
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
	r := math.FMA(-k, expLn2U, v)
	r = math.FMA(-k, expLn2L, r)
	r = float64(r * 0.0625)
	p := expTaylor[0]
	for _, c := range expTaylor[1:] {
		p = math.FMA(p, r, c)
	}
	y := r * p
	for range 3 {
		y *= y + 2
	}
	y = math.FMA(y, y+2, 1)
	e2 := 0.0
	if k <= expSubK {
		e2 = expSubE
	}
	return float64(y*pow2(k-e2+round)) * pow2(e2+round)
}

// Exp64s sets dst[i] = Exp64(src[i]) for i < len(src); dst must be at
// least as long as src.
func Exp64s(dst, src []float64) {
	dst = dst[:len(src)]
	n := exp64SIMD(dst, src)
	for i, x := range src[n:] {
		dst[n+i] = Exp64(x)
	}
}

// exp64IsMathExp reports whether math.Exp runs the algorithm Exp64
// replicates: its amd64 assembly, on its FMA path.
var exp64IsMathExp = runtime.GOARCH == "amd64" && cpu.X86.HasAVX && cpu.X86.HasFMA

// MathExps sets dst[i] = math.Exp(src[i]) for i < len(src), bit for bit:
// with Exp64s where that returns math.Exp's bits, with math.Exp elsewhere.
// dst must be at least as long as src.
func MathExps(dst, src []float64) {
	if exp64IsMathExp {
		Exp64s(dst, src)
		return
	}
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = math.Exp(x)
	}
}
