package vmath

import "math"

// Float64 and float32 natural logarithm.
//
// x = 2^k·m with m in [√2/2, √2) (subnormal x scaled by 2^54 first), f =
// m - 1, s = f/(2 + f), and log(1 + f) = f - (f²/2 - s·(f²/2 + R(s²)))
// with fdlibm's R of degree 7 in its two interleaved halves, as Go's
// math.Log computes it, operation for operation; k comes from the exponent
// bits without a branch (the bits below a magic constant) and so does m.
// Then +Inf and NaN give x back, ±0 gives -Inf and a negative x NaN. The
// AVX2 and AVX-512 kernels run the same operations in the same order and
// return Log64's bits. (Float32 log has its own kernels: log32.go.)

const (
	log64Tiny    = 0x1p-1022          // the smallest normal float64
	log64Scale   = 0x1p54             // scales a subnormal x up
	magicBits    = 0x4330000000000000 // 2^52: its low bits hold an integer
	magicBias    = 0x1p52 + 1023      // 2^52 plus the exponent bias
	mantMask     = 1<<52 - 1          // a float64's mantissa bits
	oneBits      = 0x3ff0000000000000 // 1.0
	log64NaNBits = 0x7ff8000000000001 // math.NaN()'s bits
)

// logLg are fdlibm's L1 to L7, as in Go's math.Log.
var logLg = [7]float64{
	6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01, 2.222219843214978396e-01,
	1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01,
}

// Log64 is the natural logarithm of a float64 x.
func Log64(x float64) float64 {
	xs := x
	sub := x < log64Tiny
	if sub {
		xs = float64(x * log64Scale)
	}
	b := math.Float64bits(xs)
	k := math.Float64frombits(b>>52|magicBits) - magicBias
	m := math.Float64frombits(b&mantMask | oneBits)
	if m >= math.Sqrt2 {
		m = float64(m * 0.5)
		k = k + 1
	}
	if sub {
		k = k - 54
	}
	f := m - 1
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * (logLg[0] + float64(s4*(logLg[2]+float64(s4*(logLg[4]+float64(s4*logLg[6])))))))
	t2 := float64(s4 * (logLg[1] + float64(s4*(logLg[3]+float64(s4*logLg[5])))))
	r := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	y := float64(k*ln2hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2lo))) - f)
	switch {
	case x != x || x > math.MaxFloat64:
		return x
	case x == 0:
		return math.Inf(-1)
	case x < 0:
		return math.Float64frombits(log64NaNBits)
	}
	return y
}

// Log64s sets dst[i] = log src[i] for i < len(src); dst must be at least as
// long as src.
func Log64s(dst, src []float64) {
	dst = dst[:len(src)]
	n := log64SIMD(dst, src)
	for i, x := range src[n:] {
		dst[n+i] = Log64(x)
	}
}
