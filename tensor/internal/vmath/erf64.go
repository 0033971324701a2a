package vmath

import "math"

// Float64 erf.
//
// With a = min(|x|, erf64Hi) and the sign of x (erf 5.9 rounds to 1 in
// float64):
//
//	a < 1:  erf a = a + a·P(a²)
//	a ≥ 1:  erf a = 1 - e^(-a²)·t·G(t - erf64Mid), t = 3/(3 + a)
//
// P (degree 12) interpolates erf(√s)/√s - 1 on s in [0, 1], and G (degree
// 17) interpolates e^(x²)·erfc(x)/t, a smooth function of t, on t in
// [3/9, 3/4], both at Chebyshev nodes: fit_erf.go computes them in
// 320-bit arithmetic from erf's power series and rounds each coefficient
// once to float64. e^(-a²) is computed as in Tanh64; the rounding of a² is
// harmless, since erfc a is below 0.16 there and e^(-a²) is multiplied by
// it. The result is within a few ulp of math.Erf (see the tests), erf(±0)
// = ±0, erf(±Inf) = ±1, NaN comes back unchanged. The AVX2 and AVX-512
// kernels compute both branches and keep the one that a selects, with the
// same operations in the same order, so they return Erf64's bits.

const (
	erf64Hi    = 6.0
	erf64Split = 1.0
	erf64K     = 3.0
	erf64Mid   = 0.5416666666666666 // the middle of [3/9, 3/4]
)

// erf64P are P's coefficients, lowest first.
var erf64P = [13]float64{
	0.1283791670955126,
	-0.3761263890318375,
	0.11283791670954879,
	-0.026866170645076792,
	0.0052239776248180145,
	-0.000854832698083379,
	0.0001205533111164271,
	-1.4925595266831182e-05,
	1.6461000484121368e-06,
	-1.6350312701054695e-07,
	1.4659775274047436e-08,
	-1.1372848856791674e-09,
	5.957176147748911e-11,
}

// erf64G are G's coefficients, lowest first.
var erf64G = [18]float64{
	0.38396915323094555,
	0.6590113539360488,
	0.897306144292001,
	0.9390762196983795,
	0.6960870664597261,
	0.27480080326827117,
	-0.06558762056020799,
	-0.14180156486543166,
	-0.02648796495343717,
	0.06020469854751997,
	0.02477934019745727,
	-0.030573347512215285,
	-0.014843248061691426,
	0.01949765939297212,
	0.006980931290046916,
	-0.014182728754183601,
	-0.0016269800589725453,
	0.009277179532659606,
}

// Erf64 is erf x for a float64 x.
func Erf64(x float64) float64 {
	if x != x {
		return x
	}
	a := math.Abs(x)
	if a > erf64Hi {
		a = erf64Hi
	}
	var y float64
	if a < erf64Split {
		s := a * a
		p := float64(s*erf64P[12]) + erf64P[11]
		for j := 10; j >= 0; j-- {
			p = float64(p*s) + erf64P[j]
		}
		y = a + float64(a*p)
	} else {
		t := erf64K / (erf64K + a)
		u := t - erf64Mid
		g := float64(u*erf64G[17]) + erf64G[16]
		for j := 15; j >= 0; j-- {
			g = float64(g*u) + erf64G[j]
		}
		tg := t * g
		// e^w for w = -a², as in Tanh64
		w := -float64(a * a)
		tt := float64(w*log2e) + round
		k := tt - round
		r := float64(w-float64(k*ln2hi)) - float64(k*ln2lo)
		q := float64(r*expm1C[11]) + expm1C[10]
		for j := 9; j >= 0; j-- {
			q = float64(q*r) + expm1C[j]
		}
		p := r + float64(float64(r*r)*q)
		s := pow2(tt)
		e := float64(p*s) + s
		y = 1 - float64(e*tg)
	}
	return math.Copysign(y, x)
}

// Erf64s sets dst[i] = erf src[i] for i < len(src); dst must be at least as
// long as src.
func Erf64s(dst, src []float64) {
	dst = dst[:len(src)]
	n := erf64SIMD(dst, src)
	for i, x := range src[n:] {
		dst[n+i] = Erf64(x)
	}
}
