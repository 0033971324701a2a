package vmath

import "math"

// Float32 e^x, sigmoid and tanh, computed in float32 lanes.
//
// v = x clamped (exp), -|x| (sigmoid) or 2·min(|x|, 10) (tanh);
// k = round(v·log2 e) through the rounding constant 1.5·2^23, whose low bit
// pattern is then k; r = v - k·ln2 with ln2 in two parts (the first of 9
// bits, so that k·ln2hi is exact and so is v - k·ln2hi); e^r - 1 = r +
// r²·P(r) with P of degree 5, Cephes's minimax coefficients for expf,
// evaluated in Estrin's scheme. Then e^v = (1 + (e^r - 1))·2^k1·2^k2 with
// k1 = ⌊k/2⌋ and k2 = k - k1, so that both factors are normal float32 and
// only the last product rounds (into the subnormals or to +Inf, correctly);
// sigmoid is 1/(1 + e^-|x|) for x ≥ 0 and e^-|x|/(1 + e^-|x|) below, which
// keeps the relative accuracy of the tiny values of large negative x; tanh
// is (e^v - 1)/(e^v + 1) with e^v - 1 = 2^k·(e^r - 1) + (2^k - 1), exact
// for k = 0 so that small x keep their relative accuracy, and the sign of
// x. Over every float32 (checked once exhaustively; the tests sweep every
// 61st): exp at most 1 ulp from float32(math.Exp(x)), sigmoid 2, tanh 3
// (at four inputs, ±0.1221 and ±0.1251; 2 elsewhere below 0.6, 1 above).
//
// Every product is rounded to float32 before it is added (the float32(...)
// conversions forbid fusing), as in the assembly kernels, which run the same
// operations in the same order without fused multiply-adds: all give the
// same bits. (The AVX-512 kernels take the product by 2^k, or 2^k1·2^k2, in
// one VSCALEFPS: one rounding, as here, so the same bits.)

const (
	log2e32   float32 = 1.44269504088896341
	round32   float32 = 0x1.8p23 // adding it rounds a float32 of magnitude < 2^22 to an integer
	roundBits         = 0x4b400000
	ln2hi32   float32 = 0.693359375    // 355/512
	ln2lo32   float32 = -2.12194440e-4 // ln 2 - ln2hi32
	exp32Lo   float32 = -104           // e^-104 is below half the smallest subnormal
	exp32Hi   float32 = 89             // e^89 overflows
	tanh32Hi  float32 = 10             // tanh 9.1 rounds to 1
)

// expP are the coefficients of P, lowest degree first.
var expP = [6]float32{5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2, 8.3334519073e-3, 1.3981999507e-3, 1.9875691500e-4}

// reduce32 splits v into k·ln2 + r and returns r and k.
func reduce32(v float32) (float32, int32) {
	t := float32(v*log2e32) + round32
	kf := t - round32
	r := float32(v-float32(kf*ln2hi32)) - float32(kf*ln2lo32)
	return r, int32(math.Float32bits(t)) - roundBits
}

// expm1Poly32 returns e^r - 1 for |r| ≤ ln2/2 (a little more after
// rounding): r + r²·P(r), P in Estrin's scheme.
func expm1Poly32(r float32) float32 {
	r2 := r * r
	a := expP[0] + float32(expP[1]*r)
	b := expP[2] + float32(expP[3]*r)
	c := expP[4] + float32(expP[5]*r)
	r4 := r2 * r2
	q := float32(a+float32(b*r2)) + float32(c*r4)
	return r + float32(q*r2)
}

// pow2f32 is 2^k for k in [-126, 127].
func pow2f32(k int32) float32 { return math.Float32frombits(uint32(k+127) << 23) }

// expReduced is e^v for v in [exp32Lo, exp32Hi].
func expReduced(v float32) float32 {
	r, k := reduce32(v)
	k1 := k >> 1
	return float32(float32((1+expm1Poly32(r))*pow2f32(k1)) * pow2f32(k-k1))
}

// Exp32 is e^x for a float32 x.
func Exp32(x float32) float32 {
	if x != x {
		return x
	}
	v := x
	if v < exp32Lo {
		v = exp32Lo
	}
	if v > exp32Hi {
		v = exp32Hi
	}
	return expReduced(v)
}

// Sigmoid32 is 1/(1+e^-x) for a float32 x.
func Sigmoid32(x float32) float32 {
	if x != x {
		return x
	}
	v := math.Float32frombits(math.Float32bits(x) | 1<<31) // -|x|
	if v < exp32Lo {
		v = exp32Lo
	}
	s := expReduced(v)
	d := 1 + s
	if math.Float32bits(x)&(1<<31) != 0 {
		return s / d
	}
	return 1 / d
}

// Tanh32 is tanh x for a float32 x (Tanh32(-0) = -0).
func Tanh32(x float32) float32 {
	if x != x {
		return x
	}
	a := math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
	if a > tanh32Hi {
		a = tanh32Hi
	}
	r, k := reduce32(a + a)
	s := pow2f32(k)
	em1 := float32(expm1Poly32(r)*s) + (s - 1)
	t := em1 / (em1 + 2)
	return math.Float32frombits(math.Float32bits(t) | math.Float32bits(x)&(1<<31))
}

func expGo(dst, src []float32) {
	for i, x := range src {
		dst[i] = Exp32(x)
	}
}

func sigmoidGo(dst, src []float32) {
	for i, x := range src {
		dst[i] = Sigmoid32(x)
	}
}

func tanhGo(dst, src []float32) {
	for i, x := range src {
		dst[i] = Tanh32(x)
	}
}
