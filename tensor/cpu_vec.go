package tensor

import (
	"math"

	"github.com/goagx/agx/tensor/internal/vec"
)

// The bridge from the generic kernels to package vec's vectorised loops
// (AVX2/AVX-512 assembly on amd64, plain Go elsewhere), for dense runs of
// float32 and float64. vec gives the same bits as the scalar loops, so the
// kernels may use it or not as speed dictates.

// vecMin is the shortest run handed to package vec: below it the dispatch (a
// type switch and an indirect call) costs more than the vector loop saves.
const vecMin = 16

// vecOp maps the four arithmetic ops, Maximum and Minimum to vec's (whose
// Maximum and Minimum give arithScalar's bits: NaN in either operand gives
// NaN, equal operands the second).
func vecOp(op BinaryOp) (vec.Op, bool) {
	switch op {
	case OpMaximum:
		return vec.Maximum, true
	case OpMinimum:
		return vec.Minimum, true
	case OpAdd:
		return vec.Add, true
	case OpSub:
		return vec.Sub, true
	case OpMul:
		return vec.Mul, true
	case OpDiv:
		return vec.Div, true
	}
	return 0, false
}

// vecArith reports whether arithKernel[T] runs op with package vec.
func vecArith[T Num](op BinaryOp) bool {
	if _, ok := vecOp(op); !ok {
		return false
	}
	var z T
	switch any(z).(type) {
	case float32, float64:
		return true
	}
	return false
}

// vecSumRows is package vec's SumRows for float T, and nil for integer T:
// for reductions over many short rows (a sum over the last dim), where a
// call per row cost more than summing it.
func vecSumRows[T Num]() func(dst, src []T, n, stride int) {
	var f any
	switch any(T(0)).(type) {
	case float32:
		f = vec.SumRows[float32]
	case float64:
		f = vec.SumRows[float64]
	default:
		return nil
	}
	return f.(func(dst, src []T, n, stride int))
}

// vecFoldRows returns package vec's row fold for a reduction op over float
// rows (AddRows for OpSum, MaxRows for OpMax, MinRows for OpMin), or nil.
func vecFoldRows[T Num](op ReduceOp) func(dst, src []T, m, stride int) {
	var f any
	switch any(T(0)).(type) {
	case float32:
		f = foldRows[float32](op)
	case float64:
		f = foldRows[float64](op)
	default:
		return nil
	}
	return f.(func(dst, src []T, m, stride int))
}

func foldRows[T vec.Float](op ReduceOp) func(dst, src []T, m, stride int) {
	switch op {
	case OpSum:
		return vec.AddRows[T]
	case OpMax:
		return vec.MaxRows[T]
	case OpMin:
		return vec.MinRows[T]
	}
	return nil
}

// vecBinary sets d[i] = a[i] op b[i] for the ops of vecOp and reports
// whether op is one: with package vec's vectorised loops for a long
// enough run of floats, with its portable loops otherwise. A float32 Pow
// goes to powPairs. The slices have equal lengths; d may be a or b.
func vecBinary[T Num](op BinaryOp, d, a, b []T) bool {
	o, ok := vecOp(op)
	if !ok {
		return op == OpPow && powPairs(d, a, b)
	}
	if len(d) >= vecMin {
		switch dd := any(d).(type) {
		case []float32:
			vec.Binary(o, dd, any(a).([]float32), any(b).([]float32))
			return true
		case []float64:
			vec.Binary(o, dd, any(a).([]float64), any(b).([]float64))
			return true
		}
	}
	vec.ArithGo(o, d, a, b)
	return true
}

// vecBinaryScalar is vecBinary for d[i] = a[i] op s. A division by a
// power of two whose reciprocal the element type holds exactly is a
// product with that reciprocal (see exactReciprocal); a float32 Pow goes
// to powByScalar.
func vecBinaryScalar[T Num](op BinaryOp, d, a []T, s T) bool {
	o, ok := vecOp(op)
	if !ok {
		return op == OpPow && powByScalar(d, a, s)
	}
	if op == OpDiv {
		if r, ok := exactReciprocal(s); ok {
			o, s = vec.Mul, r
		}
	}
	if len(d) >= vecMin {
		switch dd := any(d).(type) {
		case []float32:
			vec.BinaryScalar(o, dd, any(a).([]float32), any(s).(float32))
			return true
		case []float64:
			vec.BinaryScalar(o, dd, any(a).([]float64), any(s).(float64))
			return true
		}
	}
	vec.ArithScalarGo(o, d, a, s)
	return true
}

// exactReciprocal returns 1/s and true when s is a float ±2^k whose
// reciprocal ±2^-k the type holds exactly (s normal: 2^-126 to 2^127 in
// float32, 2^-1022 to 2^1023 in float64, the largest giving a subnormal
// reciprocal). Then a·(1/s) is a/s bit for bit for every a: both are the
// one rounding of the same exact value a·2^-k (±0, ±Inf and NaNs alike),
// and a product is several times cheaper than a division (dividing by
// 0.5, 2 or 256 is common: a temperature, a mean's count).
func exactReciprocal[T Num](s T) (T, bool) {
	switch v := any(s).(type) {
	case float32:
		b := math.Float32bits(v)
		if e := b >> 23 & 0xff; b&(1<<23-1) != 0 || e == 0 || e == 0xff {
			return s, false
		}
		return T(1 / v), true
	case float64:
		b := math.Float64bits(v)
		if e := b >> 52 & 0x7ff; b&(1<<52-1) != 0 || e == 0 || e == 0x7ff {
			return s, false
		}
		return T(1 / v), true
	}
	return s, false
}

// vecScalarBinary is vecBinary for d[i] = s op b[i].
func vecScalarBinary[T Num](op BinaryOp, d []T, s T, b []T) bool {
	o, ok := vecOp(op)
	if !ok {
		return false
	}
	if len(d) >= vecMin {
		switch dd := any(d).(type) {
		case []float32:
			vec.ScalarBinary(o, dd, any(s).(float32), any(b).([]float32))
			return true
		case []float64:
			vec.ScalarBinary(o, dd, any(s).(float64), any(b).([]float64))
			return true
		}
	}
	vec.ScalarArithGo(o, d, s, b)
	return true
}

// vecGradRow runs a fused gradient row (see fused.go) with package vec: its
// vectorised loops for a long enough row, its portable ones otherwise, for
// any gradient stride gs (0 for a broadcast scalar, 1 for a dense row).
func vecGradRow[T Float](gr vec.Grad, d, y, g []T, gs int) {
	y = y[:len(d)]
	if len(d) >= vecMin && gs <= 1 {
		switch dd := any(d).(type) {
		case []float32:
			yy, gg := any(y).([]float32), any(g).([]float32)
			if gs == 0 {
				vec.GradMulScalar(gr, dd, yy, gg[0])
			} else {
				vec.GradMul(gr, dd, yy, gg[:len(dd)])
			}
			return
		case []float64:
			yy, gg := any(y).([]float64), any(g).([]float64)
			if gs == 0 {
				vec.GradMulScalar(gr, dd, yy, gg[0])
			} else {
				vec.GradMul(gr, dd, yy, gg[:len(dd)])
			}
			return
		}
	}
	switch gs {
	case 0:
		vec.GradMulScalarGo(gr, d, y, g[0])
	case 1:
		vec.GradMulGo(gr, d, y, g)
	default:
		for i, v := range y {
			d[i] = vec.GradOf(gr, v, g[i*gs])
		}
	}
}

// vecRelu sets d[i] = vec.ReluOf(s[i]) with package vec for a long enough run of
// floats and reports whether it did.
func vecRelu[T Float](d, s []T) bool {
	if len(d) < vecMin {
		return false
	}
	switch dd := any(d).(type) {
	case []float32:
		vec.Relu(dd, any(s).([]float32))
	case []float64:
		vec.Relu(dd, any(s).([]float64))
	default:
		return false
	}
	return true
}

// vecReluGradRow is a fused Relu gradient row (see fused.go): package vec's
// vectorised loop for a long enough dense row, a portable loop otherwise,
// for any gradient stride gs.
func vecReluGradRow[T Float](d, y, g []T, gs int) {
	y = y[:len(d)]
	if len(d) >= vecMin && gs == 1 {
		switch dd := any(d).(type) {
		case []float32:
			vec.ReluGrad(dd, any(y).([]float32), any(g).([]float32)[:len(dd)])
			return
		case []float64:
			vec.ReluGrad(dd, any(y).([]float64), any(g).([]float64)[:len(dd)])
			return
		}
	}
	for i, v := range y {
		d[i] = vec.ReluGradOf(v, g[i*gs])
	}
}

// vecSqrt sets d[i] = √s[i] with package vec (bit for bit math.Sqrt) for
// a long enough run of floats and reports whether it did.
func vecSqrt[T Float](d, s []T) bool {
	if len(d) < vecMin {
		return false
	}
	switch dd := any(d).(type) {
	case []float32:
		vec.Sqrt(dd, any(s).([]float32))
	case []float64:
		vec.Sqrt(dd, any(s).([]float64))
	default:
		return false
	}
	return true
}

// vecCmp maps the comparisons to vec's.
func vecCmp(op BinaryOp) (vec.Cmp, bool) {
	switch op {
	case OpEq:
		return vec.Eq, true
	case OpNe:
		return vec.Ne, true
	case OpLt:
		return vec.Lt, true
	case OpLe:
		return vec.Le, true
	case OpGt:
		return vec.Gt, true
	case OpGe:
		return vec.Ge, true
	}
	return 0, false
}

// vecCompare sets d[i] = a[i] op b[i] for the six comparisons and reports
// whether op is one: with package vec's vectorised loops for a long enough
// run of floats, with its portable loops otherwise.
func vecCompare[T Num](op BinaryOp, d []bool, a, b []T) bool {
	c, ok := vecCmp(op)
	if !ok {
		return false
	}
	if len(d) >= vecMin {
		switch aa := any(a).(type) {
		case []float32:
			vec.Compare(c, d, aa, any(b).([]float32))
			return true
		case []float64:
			vec.Compare(c, d, aa, any(b).([]float64))
			return true
		}
	}
	vec.CompareGo(c, d, a, b)
	return true
}

// vecCompareScalar is vecCompare for d[i] = a[i] op s.
func vecCompareScalar[T Num](op BinaryOp, d []bool, a []T, s T) bool {
	c, ok := vecCmp(op)
	if !ok {
		return false
	}
	if len(d) >= vecMin {
		switch aa := any(a).(type) {
		case []float32:
			vec.CompareScalar(c, d, aa, any(s).(float32))
			return true
		case []float64:
			vec.CompareScalar(c, d, aa, any(s).(float64))
			return true
		}
	}
	vec.CompareScalarGo(c, d, a, s)
	return true
}

// vecFn maps the unary ops that package vec computes to its functions.
func vecFn(op UnaryOp) (vec.Fn, bool) {
	switch op {
	case OpNeg:
		return vec.Neg, true
	case OpAbs:
		return vec.Abs, true
	case OpRound:
		return vec.Round, true
	case OpSign:
		return vec.Sign, true
	case OpFloor:
		return vec.Floor, true
	case OpCeil:
		return vec.Ceil, true
	}
	return 0, false
}

// vecUnary sets d[i] = op(s[i]) for Neg, Abs, Round, Sign, Floor, Ceil
// and Clamp (args: its bounds, neither a NaN) and reports whether op is
// one of them: with package vec's vectorised loops for a long enough run,
// with its portable loops (no call per element) otherwise. They give the
// bits of floatUnary's functions (Round, Floor, Ceil: a NaN for a NaN). d
// may be s.
func vecUnary[T Float](op UnaryOp, d, s []T, args []float64) bool {
	long := len(d) >= vecMin
	if op == OpClamp {
		lo, hi := T(args[0]), T(args[1])
		if lo != lo || hi != hi {
			return false // a NaN bound: floatUnary's rules
		}
		switch dd := any(d).(type) {
		case []float32:
			if long {
				vec.Clamp(dd, any(s).([]float32), float32(lo), float32(hi))
				return true
			}
		case []float64:
			if long {
				vec.Clamp(dd, any(s).([]float64), float64(lo), float64(hi))
				return true
			}
		}
		vec.ClampGo(d, s, lo, hi)
		return true
	}
	f, ok := vecFn(op)
	if !ok {
		return false
	}
	if long {
		switch dd := any(d).(type) {
		case []float32:
			vec.Unary(f, dd, any(s).([]float32))
			return true
		case []float64:
			vec.Unary(f, dd, any(s).([]float64))
			return true
		}
	}
	vec.UnaryGo(f, d, s)
	return true
}
