package tensor

import (
	"math"

	"github.com/goagx/agx/tensor/internal/vec"
	"github.com/goagx/agx/tensor/internal/vmath"
)

// Unary implements Backend.
func (CPU) Unary(op UnaryOp, dst, src View, args ...float64) {
	switch dst.DType() {
	case Float32:
		unaryFloat(op, host[float32]("Unary", dst.Buf), host[float32]("Unary", src.Buf), dst, src, args)
	case Float64:
		unaryFloat(op, host[float64]("Unary", dst.Buf), host[float64]("Unary", src.Buf), dst, src, args)
	case Int64:
		unaryInt(op, host[int64]("Unary", dst.Buf), host[int64]("Unary", src.Buf), dst, src, args)
	case Bool:
		if op != OpNot {
			Panicf("Unary", ErrDType, "op %d is not defined for bool tensors", op)
		}
		d, s := host[bool]("Unary", dst.Buf), host[bool]("Unary", src.Buf)
		forEachRow(dst.Shape, [][]int{dst.Strides, src.Strides}, []int{dst.Offset, src.Offset}, func(o []int, n int, in []int) {
			if in[0] == 1 && in[1] == 1 {
				notRow(d[o[0]:o[0]+n], s[o[1]:o[1]+n])
				return
			}
			for i, p, q := 0, o[0], o[1]; i < n; i, p, q = i+1, p+in[0], q+in[1] {
				d[p] = !s[q]
			}
		})
	}
}

func sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// floatUnary returns the scalar function for op: vmath's kernel where the
// element type has one (floatUnaryVMath), the closure over the arguments
// for Pow and Clamp (floatUnaryArgs), else the plain math of float64.
func floatUnary[T Float](op UnaryOp, args []float64) func(T) T {
	if f := floatUnaryVMath[T](op); f != nil {
		return f
	}
	switch op {
	case OpNeg:
		return func(x T) T { return -x }
	case OpExpm1:
		return func(x T) T { return T(math.Expm1(float64(x))) }
	case OpLog1p:
		return func(x T) T { return T(math.Log1p(float64(x))) }
	case OpSqrt:
		return func(x T) T { return T(math.Sqrt(float64(x))) }
	case OpAbs:
		return vec.AbsOf[T]
	case OpSign:
		return vec.SignOf[T]
	case OpRound:
		return vec.RoundOf[T]
	case OpFloor:
		return vec.FloorOf[T]
	case OpCeil:
		return vec.CeilOf[T]
	case OpSigmoid:
		return func(x T) T { return T(sigmoid64(float64(x))) }
	case OpTanh:
		return func(x T) T { return T(math.Tanh(float64(x))) }
	case OpRelu:
		return func(x T) T {
			if x > 0 || x != x {
				return x
			}
			return 0
		}
	case OpErf:
		return func(x T) T { return T(math.Erf(float64(x))) }
	case OpSin:
		return func(x T) T { return T(math.Sin(float64(x))) }
	case OpCos:
		return func(x T) T { return T(math.Cos(float64(x))) }
	case OpPowScalar, OpClamp:
		return floatUnaryArgs[T](op, args)
	}
	Panicf("Unary", ErrDType, "op %d is not defined for float tensors", op)
	return nil
}

// floatUnaryVMath returns the scalar function of package vmath for op in
// the element type T (Exp, Sigmoid, Tanh, Erf, Sin, Cos and Log in float32;
// Log, Sin, Cos, Tanh and Erf in float64, and
// float64 Exp as math.Exp), or nil where vmath has none.
func floatUnaryVMath[T Float](op UnaryOp) func(T) T {
	if _, f32 := any(T(0)).(float32); f32 {
		switch op {
		case OpExp:
			return func(x T) T { return T(vmath.Exp32(float32(x))) }
		case OpSigmoid:
			return func(x T) T { return T(vmath.Sigmoid32(float32(x))) }
		case OpTanh:
			return func(x T) T { return T(vmath.Tanh32(float32(x))) }
		case OpErf:
			return func(x T) T { return T(vmath.Erf32(float32(x))) }
		case OpLog:
			return func(x T) T { return T(vmath.Log32(float32(x))) }
		case OpSin:
			return func(x T) T { return T(vmath.Sin32(float32(x))) }
		case OpCos:
			return func(x T) T { return T(vmath.Cos32(float32(x))) }
		}
	}
	if _, f64 := any(T(0)).(float64); f64 {
		switch op {
		case OpExp:
			// unaryFloat64Fast's vmath.MathExps gives the same bits.
			return func(x T) T { return T(math.Exp(float64(x))) }
		case OpLog:
			return func(x T) T { return T(vmath.Log64(float64(x))) }
		case OpSin:
			return func(x T) T { return T(vmath.Sin64(float64(x))) }
		case OpCos:
			return func(x T) T { return T(vmath.Cos64(float64(x))) }
		case OpTanh:
			return func(x T) T { return T(vmath.Tanh64(float64(x))) }
		case OpErf:
			return func(x T) T { return T(vmath.Erf64(float64(x))) }
		}
	}
	return nil
}

// floatUnaryArgs returns the scalar function of the ops that take scalar
// arguments: OpPowScalar (args[0] the exponent, its cheap form where it has
// one) and OpClamp (args[0] and args[1] the bounds).
func floatUnaryArgs[T Float](op UnaryOp, args []float64) func(T) T {
	if op == OpPowScalar {
		p := args[0]
		if f := powForm[T](p); f != nil {
			return f
		}
		if _, f32 := any(T(0)).(float32); f32 && powExpLog32(p) {
			return func(x T) T { return T(pow32(float32(x), p)) }
		}
		return func(x T) T { return T(math.Pow(float64(x), p)) }
	}
	lo, hi := T(args[0]), T(args[1])
	if lo != 0 && hi != 0 {
		// Go's min and max: no branch to mispredict on data that falls
		// on both sides of a bound (the branches below cost about 8 ns
		// an element on random data), NaN propagates, and an open bound
		// (±Inf) leaves x as it is. Not with a zero bound: max(-0, +0)
		// is +0, where PyTorch's clamp keeps an x equal to a bound, -0
		// included.
		return func(x T) T { return min(max(x, lo), hi) }
	}
	return func(x T) T {
		if x < lo {
			x = lo
		}
		if x > hi {
			x = hi
		}
		return x
	}
}

// unaryFloat computes dst = op(src) for a float element type: a contiguous
// row goes to unaryContig; a strided row applies floatUnary's function.
func unaryFloat[T Float](op UnaryOp, d, s []T, dst, src View, args []float64) {
	if op == OpRsqrt {
		// Rsqrt is Pow(x, -0.5) in every path: its cheap form, split like it.
		op, args = OpPowScalar, rsqrtArgs
	}
	f := floatUnary[T](op, args)
	forEachRowMin(unaryParallelMin[T](op, args), dst.Shape, [][]int{dst.Strides, src.Strides}, []int{dst.Offset, src.Offset}, func(o []int, n int, in []int) {
		if in[0] == 1 && in[1] == 1 {
			unaryContig(op, d[o[0]:o[0]+n], s[o[1]:o[1]+n], args, f)
			return
		}
		for i, p, q := 0, o[0], o[1]; i < n; i, p, q = i+1, p+in[0], q+in[1] {
			d[p] = f(s[q])
		}
	})
}

// unaryContig computes the contiguous row dd = op(ss) (dd may be ss): with
// a vector routine where one applies (unaryRowVector), else with a loop of
// its own for the hot ops, else with f, floatUnary's function for op.
func unaryContig[T Float](op UnaryOp, dd, ss []T, args []float64, f func(T) T) {
	if unaryRowVector(op, dd, ss, args) {
		return
	}
	// Hot ops get their own loops so the compiler can inline the math.
	switch op {
	case OpSqrt:
		for i, x := range ss {
			dd[i] = T(math.Sqrt(float64(x)))
		}
	case OpTanh:
		for i, x := range ss {
			dd[i] = T(math.Tanh(float64(x)))
		}
	case OpErf:
		for i, x := range ss {
			dd[i] = T(math.Erf(float64(x)))
		}
	case OpSin:
		for i, x := range ss {
			dd[i] = T(math.Sin(float64(x)))
		}
	case OpCos:
		for i, x := range ss {
			dd[i] = T(math.Cos(float64(x)))
		}
	case OpSigmoid:
		for i, x := range ss {
			v := float64(x)
			if v >= 0 {
				dd[i] = T(1 / (1 + math.Exp(-v)))
			} else {
				e := math.Exp(v)
				dd[i] = T(e / (1 + e))
			}
		}
	case OpRelu:
		for i, x := range ss {
			dd[i] = vec.ReluOf(x)
		}
	default:
		for i, x := range ss {
			dd[i] = f(x)
		}
	}
}

// rsqrtArgs are the arguments of the Pow that Rsqrt is (see unaryFloat).
var rsqrtArgs = []float64{-0.5}

// unaryParallelMin is the element count from which unaryFloat splits op
// over the cores: parallelMin, or parallelMinCheap for a Pow with a cheap
// form (a few vector passes, like Mul's; see cheapFactor).
func unaryParallelMin[T Float](op UnaryOp, args []float64) int {
	if op == OpPowScalar && powForm[T](args[0]) != nil {
		return parallelMinCheap(DTypeOf[T]().Size())
	}
	return parallelMin
}

// unaryRowVector computes the contiguous row dd = op(ss) with a vector
// routine and reports whether one applied: the float32 or float64 fast
// kernels, vecUnary, or the vector Sqrt, Relu and Pow.
func unaryRowVector[T Float](op UnaryOp, dd, ss []T, args []float64) bool {
	if d32, ok := any(dd).([]float32); ok && unaryFloat32Fast(op, d32, any(ss).([]float32)) {
		return true
	}
	if d64, ok := any(dd).([]float64); ok && unaryFloat64Fast(op, d64, any(ss).([]float64)) {
		return true
	}
	if vecUnary(op, dd, ss, args) {
		return true
	}
	switch op {
	case OpSqrt:
		return vecSqrt(dd, ss)
	case OpRelu:
		return vecRelu(dd, ss)
	case OpPowScalar:
		if vecPow(dd, ss, args[0]) {
			return true
		}
		if d32, ok := any(dd).([]float32); ok && powExpLog32(args[0]) {
			powFloat32(d32, any(ss).([]float32), args[0])
			return true
		}
	}
	return false
}

func unaryInt(op UnaryOp, d, s []int64, dst, src View, args []float64) {
	var f func(int64) int64
	switch op {
	case OpNeg:
		f = func(x int64) int64 { return -x }
	case OpAbs:
		f = func(x int64) int64 {
			if x < 0 {
				return -x
			}
			return x
		}
	case OpSign:
		f = func(x int64) int64 {
			switch {
			case x > 0:
				return 1
			case x < 0:
				return -1
			}
			return 0
		}
	case OpRound, OpFloor, OpCeil:
		f = func(x int64) int64 { return x }
	case OpRelu:
		f = func(x int64) int64 { return max(x, 0) }
	case OpPowScalar:
		p := args[0]
		f = func(x int64) int64 { return int64(math.Pow(float64(x), p)) }
	case OpClamp:
		hasLo, hasHi := !math.IsInf(args[0], -1), !math.IsInf(args[1], 1)
		lo, hi := int64(math.Ceil(args[0])), int64(math.Floor(args[1]))
		f = func(x int64) int64 {
			if hasLo && x < lo {
				x = lo
			}
			if hasHi && x > hi {
				x = hi
			}
			return x
		}
	default:
		Panicf("Unary", ErrDType, "op %d is not defined for int64 tensors", op)
	}
	forEachRow(dst.Shape, [][]int{dst.Strides, src.Strides}, []int{dst.Offset, src.Offset}, func(o []int, n int, in []int) {
		for i, p, q := 0, o[0], o[1]; i < n; i, p, q = i+1, p+in[0], q+in[1] {
			d[p] = f(s[q])
		}
	})
}

// Pow with a scalar exponent p takes PyTorch's cheap forms where p has one:
// products for the integers 1 <= |p| <= 5 (x·x, x·x·x, (x·x)·(x·x),
// ((x·x)·(x·x))·x), a reciprocal of them for negative p (1/x, 1/(x·x), ...),
// √x for 0.5 and 1/√x for -0.5, and 1 for 0. Each is a few correctly rounded
// operations in the element type, so it is within a few ulps of math.Pow;
// where the forms differ from math.Pow exactly is where PyTorch's do: √x
// gives -0 at -0 and NaN at -Inf (math.Pow: +0, +Inf), and the reciprocals
// give 0 or Inf where the product overflows or underflows but the true
// power (a subnormal, or a number near the largest) does not. Every other p
// takes math.Pow.

// powForm returns the scalar function of Pow's cheap form for p, or nil
// when p has none.
func powForm[T Float](p float64) func(T) T {
	switch p {
	case 0:
		return func(T) T { return 1 }
	case 0.5:
		return func(x T) T { return T(math.Sqrt(float64(x))) }
	case -0.5:
		return func(x T) T { return 1 / T(math.Sqrt(float64(x))) }
	case -1:
		return func(x T) T { return 1 / x }
	}
	n, ok := smallInt(p)
	if !ok {
		return nil
	}
	if n < 0 {
		return func(x T) T { return 1 / intPow(x, -n) }
	}
	return func(x T) T { return intPow(x, n) }
}

// smallInt reports whether p is an integer n with 1 <= |n| <= 5.
func smallInt(p float64) (int, bool) {
	if p != math.Trunc(p) || math.Abs(p) > 5 || p == 0 {
		return 0, false
	}
	return int(p), true
}

// intPow is x**n for 1 <= n <= 5 by the products vecPow computes.
func intPow[T Float](x T, n int) T {
	switch n {
	case 1:
		return x
	case 2:
		return x * x
	case 3:
		return x * x * x
	}
	y := x * x
	y = y * y
	if n == 5 {
		y = y * x
	}
	return y
}

// vecPow sets d[i] = s[i]**p by the cheap form of p (see powForm) in
// package vec's passes, giving powForm's bits, and reports whether p has
// one. d may be s (for 3 and 5 it then leaves the work to powForm). Forms
// of more than one pass run them block by block (powBlock elements), so
// that each pass after the first reads the block from L1 and the whole
// costs about one pass over memory: x**3 over [256,512] float32 took about
// 25 µs in two passes over the whole and takes about 17 (one Zen 5 core,
// a fresh result each time), x.Mul(x) about 14.
func vecPow[T Float](d, s []T, p float64) bool {
	if len(d) < vecMin {
		return false
	}
	switch p {
	case 0:
		for i := range d {
			d[i] = 1
		}
		return true
	case 0.5:
		return vecSqrt(d, s)
	case -1:
		vecScalarBinary(OpDiv, d, 1, s)
		return true
	}
	if p != -0.5 {
		n, ok := smallInt(p)
		if !ok {
			return false
		}
		if m := max(n, -n); (m == 3 || m == 5) && &d[0] == &s[0] {
			return false // these passes read s after d is written
		}
	}
	for lo, hi := 0, 0; lo < len(d); lo = hi {
		hi = lo + powBlock
		if len(d)-hi < vecMin {
			hi = len(d) // no block shorter than vecMin, which vecSqrt leaves
		}
		vecPowBlock(d[lo:hi], s[lo:hi], p)
	}
	return true
}

// powExpLog32 reports whether a float32 Pow with exponent p computes
// positive finite x as e^(p·log x) (pow32): p finite, without a cheap form.
func powExpLog32(p float64) bool {
	switch {
	case p != p || p == 0.5 || p == -0.5:
		return false
	case p == math.Trunc(p): // 0, ±1 to ±5 have a form; ±Inf is not finite
		return math.Abs(p) > 5 && !math.IsInf(p, 0)
	}
	return true
}

// pow32 is x**p for a float32 x and an exponent p of powExpLog32: for
// positive finite x, e^(p·log x) computed in float64 with vmath's Log64 and
// Exp64 and rounded once, whose relative error before the rounding is
// below 2^-45 wherever the result is a finite float32, so that it is
// float32(math.Pow(x, p)) but where that lies within 2^-45 of a rounding
// boundary (1 ulp then); for other x (negative, zero, infinite, NaN), where
// the sign and the special cases matter, math.Pow. The float32 Pow (about
// 36 ns an element with math.Pow on a Zen 5 core) takes about 2.8 ns
// with the kernels, PyTorch's about 3.4.
func pow32(x float32, p float64) float32 {
	if x > 0 && x <= math.MaxFloat32 {
		return float32(vmath.Exp64(float64(p * vmath.Log64(float64(x)))))
	}
	return float32(math.Pow(float64(x), p))
}

// powFloat32 sets d[i] = pow32(s[i], p) with the vmath kernels over
// blocks widened to float64. d may be s.
func powFloat32(d, s []float32, p float64) {
	var buf [256]float64
	for lo := 0; lo < len(s); lo += len(buf) {
		ss := s[lo:min(lo+len(buf), len(s))]
		dd := d[lo : lo+len(ss)]
		b := buf[:len(ss)]
		vec.Float32To64(b, ss)
		vmath.Log64s(b, b)
		for i, l := range b {
			b[i] = float64(p * l)
		}
		vmath.Exp64s(b, b)
		for i, x := range ss {
			if x > 0 && x <= math.MaxFloat32 {
				dd[i] = float32(b[i])
			} else {
				dd[i] = float32(math.Pow(float64(x), p))
			}
		}
	}
}

// powPair32 is one element x**p of a float32 Pow with a tensor exponent
// (arithScalar's): pow32, e^(p·log x), with the bits x.Pow(p) gives for a
// scalar p, where x is positive and finite and p of powExpLog32; math.Pow
// for the other elements, whose exponent has a cheap form (a small
// integer, ±0.5; exact where the result is a float32) or is not finite,
// or whose base is not positive and finite (x·x for p = 2).
func powPair32(x, p float32) float32 {
	if x > 0 && x <= math.MaxFloat32 && powExpLog32(float64(p)) {
		return pow32(x, float64(p))
	}
	if p == 2 {
		return x * x
	}
	return float32(math.Pow(float64(x), float64(p)))
}

// powPairs computes the contiguous row d[i] = a[i]**b[i] of a float32
// Pow with a tensor exponent and reports whether it applied (float32
// only): powPair32's results, with the vmath kernels over blocks for the
// elements that take e^(p·log x). d may be a or b.
func powPairs[T Num](d, a, b []T) bool {
	dd, ok := any(d).([]float32)
	if !ok {
		return false
	}
	aa, bb := any(a).([]float32), any(b).([]float32)
	var lb, pb [256]float64
	for lo := 0; lo < len(dd); lo += len(lb) {
		n := min(len(lb), len(dd)-lo)
		as, bs, ds := aa[lo:lo+n], bb[lo:lo+n], dd[lo:lo+n]
		l, p := lb[:n], pb[:n]
		vec.Float32To64(l, as)
		vec.Float32To64(p, bs)
		vmath.Log64s(l, l)
		for i := range l {
			l[i] = float64(p[i] * l[i])
		}
		vmath.Exp64s(l, l)
		for i, x := range as {
			y := p[i]
			fraction := y != math.Trunc(y) && y == y && y != 0.5 && y != -0.5 // the usual case, inline
			if x > 0 && x <= math.MaxFloat32 && (fraction || powExpLog32(y)) {
				ds[i] = float32(l[i])
			} else {
				ds[i] = powPair32(x, bs[i])
			}
		}
	}
	return true
}

// powByScalar computes the contiguous row d[i] = a[i]**y of a float32 Pow
// whose exponent tensor holds one value for the row, as x.Pow(y) does
// (powFloat32), and reports whether it applied: float32 and y of
// powExpLog32.
func powByScalar[T Num](d, a []T, y T) bool {
	dd, ok := any(d).([]float32)
	if !ok || !powExpLog32(float64(y)) {
		return false
	}
	powFloat32(dd, any(a).([]float32), float64(y))
	return true
}

// powBlock is the block of vecPow's passes: 8 KiB of float32, 16 of
// float64, well inside every L1 data cache.
const powBlock = 2048

// vecPowBlock runs vecPow's passes for -0.5 or a small integer p over one
// block.
func vecPowBlock[T Float](d, s []T, p float64) {
	if p == -0.5 {
		vecSqrt(d, s)
		vecScalarBinary(OpDiv, d, 1, d)
		return
	}
	n, _ := smallInt(p)
	m := max(n, -n)
	switch m {
	case 1:
		copy(d, s)
	case 2:
		vecBinary(OpMul, d, s, s)
	case 3:
		vecBinary(OpMul, d, s, s)
		vecBinary(OpMul, d, d, s)
	default: // 4, 5
		vecBinary(OpMul, d, s, s)
		vecBinary(OpMul, d, d, d)
		if m == 5 {
			vecBinary(OpMul, d, d, s)
		}
	}
	if n < 0 {
		vecScalarBinary(OpDiv, d, 1, d)
	}
}
