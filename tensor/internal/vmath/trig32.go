package vmath

import "math"

// Float32 sine and cosine: the argument reduced in float64, the
// polynomials in float32 lanes.
//
// x is widened exactly and reduced as in trig.go, in two parts this time:
// k = round(x·2/π) and r = (x - k·pio2a) - k·pio2b32, where k·pio2a and the
// first difference are exact and pio2b32 is the rest of π/2 rounded to
// float64, so that r is x - k·π/2 to within about 2^-66 and its own
// rounding, for |x| < 2^20. No float32 in that range comes closer to a
// multiple of π/2 than 4.2e-9 (about 2^-28, at 252.89821; found by a search
// over every float32), so r keeps a relative accuracy far below a float32
// ulp. r is split into rh = float32(r) and rl = float32(r -
// rh), and the polynomials run in float32 lanes on rh, with rl added where
// it matters: sin r = rh + (rl + rh·z·S(z)) and cos r = w + (((1 - w) -
// z/2) + (z²·C(z) - rh·rl)), z = rh², w = 1 - z/2, S and C of degree 2,
// the minimax coefficients of Cephes's sinf and cosf. The quadrant k mod 4
// picks ±sin r or ±cos r as in trig.go.
//
// Sin32 and Cos32 are within 1 ulp of float32(math.Sin(float64(x))) and
// float32(math.Cos(float64(x))) for |x| < 2^20 (checked once over every
// float32 there; the tests sweep every 61st and the inputs closest to
// multiples of π/2); from 2^20, and for ±Inf and NaN, they return those
// values, but NaN comes back unchanged. sin ±0 = ±0.

const (
	pio2b32   = 6.077100506506192e-11 // π/2 - pio2a, rounded
	trig32Max = 1 << 20
)

// sin32S and cos32C are the coefficients of S and C, lowest degree first.
var (
	sin32S = [3]float32{-1.6666654611e-1, 8.3321608736e-3, -1.9515295891e-4}
	cos32C = [3]float32{4.166664568298827e-2, -1.388731625493765e-3, 2.443315711809948e-5}
)

// sinCos32 returns sin x for q0 = 0 and cos x for q0 = 1, for |x| <
// trig32Max.
func sinCos32(x float32, q0 uint32) float32 {
	xd := float64(x)
	t := float64(xd*twoOverPi) + round
	k := t - round
	r := float64(xd-float64(k*pio2a)) - float64(k*pio2b32)
	rh := float32(r)
	rl := float32(r - float64(rh))
	z := rh * rh
	sp := float32(sin32S[2]*z) + sin32S[1]
	sp = float32(sp*z) + sin32S[0]
	s := rh + (rl + float32(float32(rh*z)*sp))
	cp := float32(cos32C[2]*z) + cos32C[1]
	cp = float32(cp*z) + cos32C[0]
	cp = float32(float32(z*z)*cp) - float32(rh*rl)
	hz := float32(z * 0.5)
	w := 1 - hz
	c := w + (((1 - w) - hz) + cp)
	q := uint32(math.Float64bits(t)) + q0
	v := s
	if q&1 != 0 {
		v = c
	}
	v = math.Float32frombits(math.Float32bits(v) ^ (q&2)<<30)
	if v == 0 {
		// sin ±0 = ±0, where rh + (rl + ...) is +0 (cos x is never 0)
		v = x
	}
	return v
}

// Sin32 is sin x for a float32 x.
func Sin32(x float32) float32 {
	if !(abs32(x) < trig32Max) {
		return trig32Big(x, 0)
	}
	return sinCos32(x, 0)
}

// Cos32 is cos x for a float32 x.
func Cos32(x float32) float32 {
	if !(abs32(x) < trig32Max) {
		return trig32Big(x, 1)
	}
	return sinCos32(x, 1)
}

// trig32Big is sin x (q0 = 0) or cos x (q0 = 1) for x out of the kernels'
// range: NaN itself, else math.Sin's or math.Cos's value rounded.
func trig32Big(x float32, q0 uint32) float32 {
	switch {
	case x != x:
		return x
	case q0 == 0:
		return float32(math.Sin(float64(x)))
	}
	return float32(math.Cos(float64(x)))
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// Sin32s sets dst[i] = sin src[i] for i < len(src); dst must be at least
// as long as src.
func Sin32s(dst, src []float32) { trig32(dst, src, 0) }

// Cos32s sets dst[i] = cos src[i] for i < len(src); dst must be at least
// as long as src.
func Cos32s(dst, src []float32) { trig32(dst, src, 1) }

func trig32(dst, src []float32, q0 uint32) {
	dst = dst[:len(src)]
	n, bad := trig32SIMD(dst, src, q0)
	if bad {
		// Some input was out of the kernel's range, and is in dst as it
		// was (dst may be src): redo those. Results in range are in [-1, 1].
		for i, x := range dst[:n] {
			if !(abs32(x) < trig32Max) {
				dst[i] = trig32Big(x, q0)
			}
		}
	}
	for i, x := range src[n:] {
		if !(abs32(x) < trig32Max) {
			dst[n+i] = trig32Big(x, q0)
			continue
		}
		dst[n+i] = sinCos32(x, q0)
	}
}
