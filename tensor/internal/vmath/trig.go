package vmath

import "math"

// Float64 sine and cosine.
//
// x = k·π/2 + r with k = round(x·2/π) and |r| ≤ π/4 (a little more where
// x·2/π rounds): π/2 is split in four parts, the first three of 33
// significant bits, so that k·part is exact for |k| < 2^20, and r is x less
// the four products, subtracted in turn (the first difference is exact).
// This needs |x| < trigMax; larger inputs, ±Inf and NaN are passed to
// math.Sin and math.Cos. sin r = r + r³·S(r²) and cos r = 1 - r²/2 +
// r⁴·C(r²) with S and C of degree 5, the minimax coefficients of the
// classic fdlibm kernels (__kernel_sin, __kernel_cos); 1 - r²/2 is
// rounded once and its rounding error added back. The quadrant k mod 4
// picks ±sin r or ±cos r (cos x = sin(x + π/2), k + 1).
//
// As in the float32 kernels, each product is rounded on its own (explicit
// float64 conversions forbid fused multiply-adds), and the AVX2 and AVX-512
// kernels run the same operations in the same order, so they return the
// bits of Sin64 and Cos64. Measured against math.Sin and math.Cos: see the tests.

const (
	twoOverPi = 6.36619772367581382433e-01
	pio2a     = 1.57079632673412561417e+00 // 0x3FF921FB54400000
	pio2b     = 6.07710050630396597660e-11 // 0x3DD0B4611A600000
	pio2c     = 2.02226624871116645580e-21 // 0x3BA3198A2E000000
	pio2d     = 8.47842766036889956997e-32 // π/2 - pio2a - pio2b - pio2c
	trigMax   = 1 << 20                    // then |k| ≤ 2^20·2/π < 2^20

	sin1 = -1.66666666666666324348e-01
	sin2 = 8.33333333332248946124e-03
	sin3 = -1.98412698298579493134e-04
	sin4 = 2.75573137070700676789e-06
	sin5 = -2.50507602534068634195e-08
	sin6 = 1.58969099521155010221e-10

	cos1 = 4.16666666666666019037e-02
	cos2 = -1.38888888888741095749e-03
	cos3 = 2.48015872894767294178e-05
	cos4 = -2.75573143513906633035e-07
	cos5 = 2.08757232129817482790e-09
	cos6 = -1.13596475577881948265e-11
)

// sinCos returns sin x for q0 = 0 and cos x for q0 = 1, for |x| < trigMax.
func sinCos(x float64, q0 uint64) float64 {
	t := float64(x*twoOverPi) + round
	k := t - round
	r := x - float64(k*pio2a)
	r = r - float64(k*pio2b)
	r = r - float64(k*pio2c)
	r = r - float64(k*pio2d)
	z := r * r
	sp := float64(z*sin6) + sin5
	sp = float64(sp*z) + sin4
	sp = float64(sp*z) + sin3
	sp = float64(sp*z) + sin2
	sp = float64(sp*z) + sin1
	s := r + float64(float64(r*z)*sp)
	cp := float64(z*cos6) + cos5
	cp = float64(cp*z) + cos4
	cp = float64(cp*z) + cos3
	cp = float64(cp*z) + cos2
	cp = float64(cp*z) + cos1
	cp = float64(float64(z*z) * cp)
	hz := float64(z * 0.5)
	w := 1 - hz
	c := w + float64(float64(float64(1-w)-hz)+cp)
	q := math.Float64bits(t) + q0
	v := s
	if q&1 != 0 {
		v = c
	}
	v = math.Float64frombits(math.Float64bits(v) ^ (q&2)<<62)
	if v == 0 {
		// sin ±0 = ±0, where r + (r·z)·S is +0 (cos x is never 0)
		v = x
	}
	return v
}

// Sin64 is sin x for a float64 x.
func Sin64(x float64) float64 {
	if !(math.Abs(x) < trigMax) {
		return math.Sin(x)
	}
	return sinCos(x, 0)
}

// Cos64 is cos x for a float64 x.
func Cos64(x float64) float64 {
	if !(math.Abs(x) < trigMax) {
		return math.Cos(x)
	}
	return sinCos(x, 1)
}

// Sin sets dst[i] = sin src[i] for i < len(src); dst must be at least as
// long as src.
func Sin(dst, src []float64) { trig(dst, src, 0, math.Sin) }

// Cos sets dst[i] = cos src[i] for i < len(src); dst must be at least as
// long as src.
func Cos(dst, src []float64) { trig(dst, src, 1, math.Cos) }

func trig(dst, src []float64, q0 uint64, big func(float64) float64) {
	dst = dst[:len(src)]
	n, bad := trigSIMD(dst, src, q0)
	if bad {
		// Some input was out of the kernel's range, and is in dst as it
		// was (dst may be src): redo those. Results in range are in [-1, 1].
		for i, x := range dst[:n] {
			if !(math.Abs(x) < trigMax) {
				dst[i] = big(x)
			}
		}
	}
	for i, x := range src[n:] {
		if !(math.Abs(x) < trigMax) {
			dst[n+i] = big(x)
			continue
		}
		dst[n+i] = sinCos(x, q0)
	}
}
