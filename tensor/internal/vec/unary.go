package vec

import (
	"math"
	"unsafe"
)

// Fn is an element-wise function of one operand that Unary computes.
type Fn uint8

// The functions, in the order of the routine tables.
const (
	// Neg is NegOf: -x, the sign bit flipped.
	Neg Fn = iota
	// Abs is AbsOf: |x|, the sign bit cleared.
	Abs
	// Round is RoundOf: x rounded to the nearest integer, ties to even.
	Round
	// Sign is SignOf: 1 for x > 0, -1 for x < 0, else x (±0, NaN).
	Sign
	// Floor is FloorOf: the largest integer not above x.
	Floor
	// Ceil is CeilOf: the smallest integer not below x.
	Ceil
)

// Unary sets dst[i] = f(a[i]) with the bits of NegOf, AbsOf, SignOf (NaNs
// keep their payload and sign where the function keeps them), RoundOf,
// FloorOf and CeilOf (a NaN gives a NaN, its payload possibly quieted). The slices must have
// the same length; dst may be a.
func Unary[T Float](f Fn, dst, a []T) {
	checkLen("Unary", len(dst), len(a))
	active[T]().unary[f](unsafe.SliceData(dst), unsafe.SliceData(a), len(dst))
}

// Clamp sets dst[i] = ClampOf(a[i], lo, hi). The slices must have the same
// length; dst may be a.
func Clamp[T Float](dst, a []T, lo, hi T) {
	checkLen("Clamp", len(dst), len(a))
	active[T]().clamp(unsafe.SliceData(dst), unsafe.SliceData(a), lo, hi, len(dst))
}

// NegOf is -x.
func NegOf[T ~float32 | ~float64](x T) T { return -x }

// AbsOf is |x| with the sign bit cleared, a NaN's payload kept (math.Abs in
// T, without a round trip through float64).
func AbsOf[T ~float32 | ~float64](x T) T {
	if unsafe.Sizeof(x) == 4 {
		return T(math.Float32frombits(math.Float32bits(float32(x)) &^ (1 << 31)))
	}
	return T(math.Abs(float64(x)))
}

// RoundOf is x rounded to the nearest integer, halves to even, as
// math.RoundToEven (exact in float64 for a float32 x).
func RoundOf[T ~float32 | ~float64](x T) T { return T(math.RoundToEven(float64(x))) }

// FloorOf is the largest integer not above x, as math.Floor (exact in
// float64 for a float32 x).
func FloorOf[T ~float32 | ~float64](x T) T { return T(math.Floor(float64(x))) }

// CeilOf is the smallest integer not below x, as math.Ceil (-0 for
// -1 < x < 0).
func CeilOf[T ~float32 | ~float64](x T) T { return T(math.Ceil(float64(x))) }

// SignOf is 1 for x > 0, -1 for x < 0, and x itself for ±0 and NaN.
func SignOf[T ~float32 | ~float64](x T) T {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x
}

// ClampOf is x clamped to [lo, hi] as the steps "if x < lo, x = lo; then if
// x > hi, x = hi": a NaN x stays, an x equal to a bound keeps its bits (-0
// stays -0 against a bound +0), and lo > hi gives hi everywhere.
func ClampOf[T ~float32 | ~float64](x, lo, hi T) T {
	if x < lo {
		x = lo
	}
	if x > hi {
		x = hi
	}
	return x
}

// UnaryGo is the portable loop of Unary: one scalar function call per
// element, inlined.
func UnaryGo[T ~float32 | ~float64](f Fn, dst, a []T) {
	a = a[:len(dst)]
	switch f {
	case Neg:
		for i, x := range a {
			dst[i] = -x
		}
	case Abs:
		for i, x := range a {
			dst[i] = AbsOf(x)
		}
	case Round:
		for i, x := range a {
			dst[i] = RoundOf(x)
		}
	case Sign:
		for i, x := range a {
			dst[i] = SignOf(x)
		}
	case Floor:
		for i, x := range a {
			dst[i] = FloorOf(x)
		}
	case Ceil:
		for i, x := range a {
			dst[i] = CeilOf(x)
		}
	}
}

// ClampGo is the portable loop of Clamp.
func ClampGo[T ~float32 | ~float64](dst, a []T, lo, hi T) {
	a = a[:len(dst)]
	for i, x := range a {
		dst[i] = ClampOf(x, lo, hi)
	}
}

func goUnary[T Float](f Fn) func(dst, a *T, n int) {
	return func(dp, ap *T, n int) { UnaryGo(f, unsafe.Slice(dp, n), unsafe.Slice(ap, n)) }
}
