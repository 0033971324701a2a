package vmath

import (
	"math"
	"runtime"

	"golang.org/x/sys/cpu"
)

// math.Exp's bits, faster.
//
// On amd64 with AVX and FMA, math.Exp is an assembly routine after
// Shibata's SLEEF: k = round(x·log2 e), r = (x - k·ln2)/16 with ln2 in two
// parts and fused products, e^r - 1 by its Taylor series to degree 8 in
// Horner's scheme with fused multiply-adds, squared back four times as
// y ← y·(y + 2) (the last one fused with the + 1), and the result scaled by
// 2^k. The mathExp kernels (AVX2 with FMA, and AVX-512) run the same
// operations in the same order on 4 or 8 lanes, so they return math.Exp's
// bits, its shortcomings included: up to 2 ulp from the exact value, and
// +Inf from about x = 709.44, where e^x overflows only from 709.78 (Exp64
// is the accurate e^x). Where the routine branches, the kernels clamp and
// scale instead: x is clamped to [-800, 710], which changes no result;
// k = 1024 makes the scale +Inf; and for k ≤ -1023 the scale is 2^(k+1022)
// and then 2^-1022, as the routine's own path for subnormal results does.
// Elsewhere math.Exp is other code (pure Go, or the routine without FMA),
// and MathExps calls it.

// Constants of the routine, for the generator and the tests.
const (
	mathExpLo = -800
	expLn2U   = 0.69314718055966295651160180568695068359375 // ln2's upper part
	expLn2L   = 0.28235290563031577122588448175013436025525412068e-12
	expSubK   = -1023 // from here down the scale takes two steps
	expSubE   = -1022
)

// expTaylor are the coefficients of e^r - 1 = r·(1 + r·(1/2 + r·(1/6 +
// ...))), from the highest (1/8!) down.
var expTaylor = [8]float64{
	2.4801587301587301587e-5, 1.9841269841269841270e-4, 1.3888888888888888889e-3, 8.3333333333333333333e-3,
	4.1666666666666666667e-2, 1.6666666666666666667e-1, 0.5, 1,
}

// mathExpKernels reports whether math.Exp runs the routine the mathExp
// kernels replicate (its amd64 assembly, on its FMA path), which also
// means that the CPU has the FMA instructions the AVX2 kernel uses.
var mathExpKernels = runtime.GOARCH == "amd64" && cpu.X86.HasAVX && cpu.X86.HasFMA

// MathExps sets dst[i] = math.Exp(src[i]) for i < len(src), bit for bit:
// with the mathExp kernels where they return math.Exp's bits, with
// math.Exp for the rest. dst must be at least as long as src.
func MathExps(dst, src []float64) {
	dst = dst[:len(src)]
	n := 0
	if mathExpKernels {
		n = mathExpSIMD(dst, src)
	}
	for i, x := range src[n:] {
		dst[n+i] = math.Exp(x)
	}
}
