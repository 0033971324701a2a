package tensor

import (
	"fmt"
	"math"
	"slices"

	"github.com/goagx/agx/tensor/internal/vec"
)

// binaryNames and unaryNames are the primitives' names in error messages
// (arrays: String runs on every op).
var binaryNames = [...]string{
	OpAdd: "Add", OpSub: "Sub", OpMul: "Mul", OpDiv: "Div", OpPow: "Pow",
	OpMaximum: "Maximum", OpMinimum: "Minimum", OpEq: "Eq", OpNe: "Ne", OpLt: "Lt",
	OpLe: "Le", OpGt: "Gt", OpGe: "Ge", OpAnd: "LogicalAnd", OpOr: "LogicalOr", OpXor: "LogicalXor",
}

var unaryNames = [...]string{
	OpNeg: "Neg", OpExp: "Exp", OpLog: "Log", OpLog1p: "Log1p", OpSqrt: "Sqrt", OpRsqrt: "Rsqrt",
	OpAbs: "Abs", OpSign: "Sign", OpRound: "Round", OpFloor: "Floor", OpCeil: "Ceil",
	OpSigmoid: "Sigmoid", OpTanh: "Tanh", OpRelu: "Relu", OpErf: "Erf", OpNot: "LogicalNot",
	OpPowScalar: "Pow", OpClamp: "Clamp", OpExpm1: "Expm1", OpSin: "Sin", OpCos: "Cos",
}

// String returns the op's name.
func (op BinaryOp) String() string {
	if int(op) < len(binaryNames) {
		return binaryNames[op]
	}
	return ""
}

// String returns the op's name.
func (op UnaryOp) String() string {
	if int(op) < len(unaryNames) {
		return unaryNames[op]
	}
	return ""
}

// weak is an operand that came from a Go scalar: it adapts to the other operand's
// dtype, as Python scalars do in PyTorch.
type operand struct {
	t    *Tensor
	weak bool    // from a Go number
	isF  bool    // the Go number was a float
	val  float64 // the Go number
}

func toOperand(op, arg string, pos int, v any) operand {
	switch x := v.(type) {
	case *Tensor:
		if x == nil {
			Panicf(op, ErrArg, "argument '%s' (position %d) must be a Tensor, not nil", arg, pos)
		}
		return operand{t: x}
	case float64:
		return operand{weak: true, isF: true, val: x}
	case float32:
		return operand{weak: true, isF: true, val: float64(x)}
	case int:
		return operand{weak: true, val: float64(x)}
	case int64:
		return operand{weak: true, val: float64(x)}
	case int32:
		return operand{weak: true, val: float64(x)}
	case bool:
		return operand{t: Scalar(x)}
	}
	PanicHint(op, ErrArg, "pass a *tensor.Tensor or a Go number", "unsupported operand type %T", v)
	return operand{}
}

// resolve turns weak scalar operands into 0-d tensors of the right dtype and
// returns the common dtype.
func resolve(op string, ops ...*operand) DType {
	var dt DType
	strong := false
	for _, o := range ops {
		if o.t != nil {
			if !strong {
				dt = o.t.DType()
				strong = true
			} else {
				dt = promote(dt, o.t.DType())
			}
		}
	}
	if !strong {
		dt = Int64
		for _, o := range ops {
			if o.isF {
				dt = Float32 // PyTorch's default dtype for Python floats
			}
		}
	}
	for _, o := range ops {
		if o.weak && o.isF && !dt.IsFloat() {
			dt = Float32
		}
		if o.weak && !o.isF && dt == Bool {
			dt = Int64
		}
	}
	var be Backend = Default()
	for _, o := range ops {
		if o.t != nil {
			be = o.t.Backend()
			break
		}
	}
	for _, o := range ops {
		if o.weak {
			o.t = EmptyOn(be, dt)
			be.Fill(o.t.Raw(), o.val)
		}
	}
	return dt
}

// broadcastPair is BroadcastShapes for two operands, without allocating when
// the shapes are equal or one operand is 0-d (the result is then one of the
// arguments: callers must not modify it).
func broadcastPair(op string, a, b []int) []int {
	switch {
	case len(b) == 0 || slices.Equal(a, b):
		return a
	case len(a) == 0:
		return b
	}
	return BroadcastShapes(op, a, b)
}

// expandTo is t.Expand(shape...) that skips the new view when t has the shape.
func expandTo(t *Tensor, shape []int) *Tensor {
	if slices.Equal(t.shape, shape) {
		return t
	}
	return t.Expand(shape...)
}

// Binary applies a binary primitive with broadcasting and type promotion. Either
// operand may be a *Tensor or a Go number (which takes the other operand's dtype).
func Binary(op BinaryOp, a, b any) *Tensor {
	if out := binarySmall(op, a, b); out != nil {
		return out
	}
	name := op.String()
	x, y := toOperand(name, "input", 1, a), toOperand(name, "other", 2, b)
	dt := resolve(name, &x, &y)
	sameBackend(name, x.t, y.t)
	switch {
	case op.IsLogical():
		dt = Bool
	case op.IsCompare():
		if dt == Bool {
			dt = Int64
		}
	case op == OpDiv && !dt.IsFloat():
		dt = Float32
	case dt == Bool:
		if lop, ok := boolArith(name, op); ok {
			op = lop
		} else {
			dt = Int64
		}
	}
	shape := broadcastPair(name, x.t.shape, y.t.shape)
	xt, yt := x.t.To(dt), y.t.To(dt)
	rdt := dt
	if op.IsCompare() {
		rdt = Bool
	}
	out := emptyUninit(xt.Backend(), rdt, shape...)
	out.Backend().Binary(op, out.Raw(), broadcastView(xt, shape), broadcastView(yt, shape))
	return out
}

// broadcastView is t.Expand(shape...).Raw() for a shape that t broadcasts to
// (checked by the caller), without making the expanded tensor: expanded and
// new leading dims get stride 0.
func broadcastView(t *Tensor, shape []int) View {
	v := t.Raw()
	if slices.Equal(t.shape, shape) {
		return v
	}
	st := make([]int, len(shape))
	lead := len(shape) - len(t.shape)
	for i := lead; i < len(shape); i++ {
		if t.shape[i-lead] == shape[i] {
			st[i] = t.strides[i-lead]
		}
	}
	return View{Buf: v.Buf, Shape: shape, Strides: st, Offset: v.Offset}
}

// BinaryTo is Binary writing into dst, which must have the broadcast shape and
// the result dtype; it bumps dst's version and returns dst. dst may be one of the
// operands (an in-place update). It panics with ErrDType when Binary's result
// dtype cannot be cast to dst's (a float into an integer, anything but bool into
// a bool), as PyTorch's in-place ops do.
func BinaryTo(dst *Tensor, op BinaryOp, a, b any) *Tensor {
	name := op.String()
	x, y := toOperand(name, "input", 1, a), toOperand(name, "other", 2, b)
	resolve(name, &x, &y)
	sameBackend(name, dst, x.t, y.t)
	shape := BroadcastShapes(name, dst.shape, x.t.shape, y.t.shape)
	if !slices.Equal(shape, dst.shape) {
		Panicf(name, ErrShape, "output with shape %v doesn't match the broadcast shape %v", dst.shape, shape)
	}
	dt := dst.DType()
	switch {
	case op.IsCompare():
		if dt != Bool {
			Panicf(name, ErrDType, "comparison result needs a bool destination, got %v", dt)
		}
		dt = promote(x.t.DType(), y.t.DType())
		if dt == Bool {
			dt = Int64 // as in Binary: bools compare as 0/1
		}
	case op.IsLogical():
		if dt != Bool {
			Panicf(name, ErrDType, "logical result needs a bool destination, got %v", dt)
		}
	default:
		// The result dtype Binary would produce must cast to dst's safely, as in
		// PyTorch: no float into an integer, nothing but bool into a bool.
		res := promote(x.t.DType(), y.t.DType())
		if op == OpDiv && !res.IsFloat() {
			res = Float32
		} else if res == Bool {
			if lop, ok := boolArith(name, op); ok && dt == Bool {
				op = lop
			} else {
				res = Int64
			}
		}
		if (res.IsFloat() && !dt.IsFloat()) || (dt == Bool && res != Bool) {
			PanicHint(name, ErrDType, "use the out-of-place op, or write into a tensor of the result dtype",
				"result type %v can't be cast to the desired output type %v", res, dt)
		}
	}
	xc, yc := x.t.To(dt), y.t.To(dt)
	checkWrite(name, dst, xc, yc)
	xt, yt := expandTo(xc, shape), expandTo(yc, shape)
	dst.Backend().Binary(op, dst.Raw(), xt.Raw(), yt.Raw())
	dst.BumpVersion()
	return dst
}

// boolArith returns the logical op that arithmetic op computes on two Bool
// operands, as in PyTorch: + and maximum are "or", * and minimum "and" (the
// result stays Bool: True + True is True). Subtracting bools is refused with
// PyTorch's message; the other ops (division, power) compute on 0 and 1.
func boolArith(name string, op BinaryOp) (BinaryOp, bool) {
	switch op {
	case OpAdd, OpMaximum:
		return OpOr, true
	case OpMul, OpMinimum:
		return OpAnd, true
	case OpSub:
		PanicHint(name, ErrDType, "use LogicalXor (or LogicalNot to invert a mask)",
			"Subtraction, the `-` operator, with two bool tensors is not supported")
	}
	return op, false
}

// floatOp reports whether the unary op produces floats from integer input
// (PyTorch promotes integer input of such ops to the default float dtype).
func floatOp(op UnaryOp) bool {
	switch op {
	case OpNeg, OpAbs, OpSign, OpRound, OpFloor, OpCeil, OpRelu, OpClamp, OpNot, OpPowScalar:
		return false
	}
	return true
}

// checkUnaryArgs panics unless args holds the scalars op takes: the exponent
// for OpPowScalar, (lo, hi) for OpClamp, none for the others.
func checkUnaryArgs(op UnaryOp, args []float64) {
	want := 0
	switch op {
	case OpPowScalar:
		want = 1
	case OpClamp:
		want = 2
	}
	if len(args) != want {
		Panicf(op.String(), ErrArg, "op takes %d scalar argument(s), got %d", want, len(args))
	}
}

// Unary applies a unary primitive. Integer input of a floating op (Exp, Log, ...)
// is promoted to Float32; LogicalNot works on any dtype via "!= 0".
func Unary(op UnaryOp, x *Tensor, args ...float64) *Tensor {
	name := op.String()
	checkUnaryArgs(op, args)
	dt := x.DType()
	switch {
	case op == OpNot:
		x = x.To(Bool)
		dt = Bool
	case dt == Bool:
		PanicHint(name, ErrDType, "cast with To(tensor.Float32) first", "%s is not defined for bool tensors", name)
	case floatOp(op) && !dt.IsFloat():
		dt = Float32
		x = x.To(dt)
	case op == OpPowScalar && !dt.IsFloat() && args[0] != math.Trunc(args[0]):
		dt = Float32
		x = x.To(dt)
	}
	out := emptyUninit(x.Backend(), dt, x.shape...)
	out.Backend().Unary(op, out.Raw(), x.Raw(), args...)
	return out
}

// UnaryTo is Unary writing into dst (same shape and dtype as x; may be x itself).
// It bumps dst's version and returns dst.
func UnaryTo(dst *Tensor, op UnaryOp, x *Tensor, args ...float64) *Tensor {
	checkUnaryArgs(op, args)
	sameBackend(op.String(), dst, x)
	if !slices.Equal(dst.shape, x.shape) || dst.DType() != x.DType() {
		Panicf(op.String(), ErrShape, "destination %v %v does not match input %v %v", dst.DType(), dst.shape, x.DType(), x.shape)
	}
	checkWrite(op.String(), dst, x)
	dst.Backend().Unary(op, dst.Raw(), x.Raw(), args...)
	dst.BumpVersion()
	return dst
}

// checkWrite panics when an in-place write into dst could read elements it has
// already overwritten, as PyTorch does: dst must not map two of its elements to
// one address (a broadcast view), and a source (before broadcasting) that shares
// dst's storage must be dst's very view or not overlap it. As in PyTorch, overlap
// is only checked when both layouts are dense (a permutation of a contiguous
// block); other layouts are trusted.
func checkWrite(op string, dst *Tensor, srcs ...*Tensor) {
	if dst.Numel() == 0 {
		return // nothing is written (an empty dim's neighbours may have stride 0)
	}
	for i, s := range dst.shape {
		if s > 1 && dst.strides[i] == 0 {
			PanicHint(op, ErrArg, "call Clone() on the tensor before writing into it",
				"unsupported operation: more than one element of the written-to tensor (shape %v, strides %v) refers to a single memory location",
				dst.shape, dst.strides)
		}
	}
	for _, s := range srcs {
		if !s.SameStorage(dst) || s.Numel() == 0 || dst.Numel() == 0 || sameView(dst, s) || !dense(dst) || !dense(s) {
			continue
		}
		if s.offset < dst.offset+dst.Numel() && dst.offset < s.offset+s.Numel() {
			PanicHint(op, ErrArg, "call Clone() on the input before writing",
				"unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location")
		}
	}
}

// sameView reports whether u addresses exactly t's elements in t's order.
func sameView(t, u *Tensor) bool {
	if t.offset != u.offset || !slices.Equal(t.shape, u.shape) {
		return false
	}
	for i, s := range t.shape {
		if s > 1 && t.strides[i] != u.strides[i] {
			return false
		}
	}
	return true
}

// dense reports whether t covers a gap-free block of Numel elements starting at
// its offset, in some order of its dims.
func dense(t *Tensor) bool {
	type dim struct{ size, stride int }
	var ds []dim
	for i, s := range t.shape {
		if s != 1 {
			ds = append(ds, dim{s, t.strides[i]})
		}
	}
	slices.SortFunc(ds, func(a, b dim) int { return a.stride - b.stride })
	want := 1
	for _, d := range ds {
		if d.stride != want {
			return false
		}
		want *= d.size
	}
	return true
}

// Add returns a + b with broadcasting (either may be a Go number).
func Add(a, b any) *Tensor { return Binary(OpAdd, a, b) }

// Sub returns a - b with broadcasting.
func Sub(a, b any) *Tensor { return Binary(OpSub, a, b) }

// Mul returns a * b with broadcasting.
func Mul(a, b any) *Tensor { return Binary(OpMul, a, b) }

// Div returns a / b with broadcasting (true division: integers give Float32).
func Div(a, b any) *Tensor { return Binary(OpDiv, a, b) }

// Pow returns a ** b with broadcasting. A Go-number exponent p runs as a
// unary op; on float tensors the integers 1 <= |p| <= 5, 0.5 and -0.5 take
// PyTorch's cheap forms (x·x, x·x·x, ..., √x, 1/x, 1/√x) at the speed of
// the equivalent products, within a few ulps of math.Pow. As in PyTorch,
// √x is -0 at -0 and 1/√x is -Inf there, and both are NaN at -Inf.
func Pow(a, b any) *Tensor {
	if t, ok := a.(*Tensor); ok {
		var p float64
		switch v := b.(type) {
		case float64:
			p = v
		case int:
			p = float64(v)
		default:
			return Binary(OpPow, a, b)
		}
		if t.DType() == Int64 && p < 0 && p == math.Trunc(p) {
			PanicHint("Pow", ErrArg, "convert the base to a float dtype first",
				"Integers to negative integer powers are not allowed (exponent %v)", p)
		}
		return Unary(OpPowScalar, t, p)
	}
	return Binary(OpPow, a, b)
}

// Maximum is the element-wise maximum (NaN propagates).
func Maximum(a, b any) *Tensor { return Binary(OpMaximum, a, b) }

// Minimum is the element-wise minimum (NaN propagates).
func Minimum(a, b any) *Tensor { return Binary(OpMinimum, a, b) }

// Where returns cond ? a : b element-wise with broadcasting over all three; a and b
// may be Go numbers. cond must be Bool.
func Where(cond *Tensor, a, b any) *Tensor {
	if cond == nil {
		Panicf("Where", ErrArg, "argument 'condition' (position 1) must be a Tensor, not nil")
	}
	if cond.DType() != Bool {
		PanicHint("Where", ErrDType, "build the condition with a comparison such as x.Gt(0)", "condition must be bool, got %v", cond.DType())
	}
	x, y := toOperand("Where", "input", 2, a), toOperand("Where", "other", 3, b)
	dt := resolve("Where", &x, &y)
	sameBackend("Where", cond, x.t, y.t)
	shape := BroadcastShapes("Where", cond.shape, x.t.shape, y.t.shape)
	out := emptyUninit(cond.Backend(), dt, shape...)
	out.Backend().Where(out.Raw(), cond.Expand(shape...).Raw(), x.t.To(dt).Expand(shape...).Raw(), y.t.To(dt).Expand(shape...).Raw())
	return out
}

// Method forms. Operands may be tensors or Go numbers.

func (t *Tensor) Add(b any) *Tensor        { return Binary(OpAdd, t, b) }
func (t *Tensor) Sub(b any) *Tensor        { return Binary(OpSub, t, b) }
func (t *Tensor) Mul(b any) *Tensor        { return Binary(OpMul, t, b) }
func (t *Tensor) Div(b any) *Tensor        { return Binary(OpDiv, t, b) }
func (t *Tensor) Pow(b any) *Tensor        { return Pow(t, b) }
func (t *Tensor) Maximum(b any) *Tensor    { return Binary(OpMaximum, t, b) }
func (t *Tensor) Minimum(b any) *Tensor    { return Binary(OpMinimum, t, b) }
func (t *Tensor) Eq(b any) *Tensor         { return Binary(OpEq, t, b) }
func (t *Tensor) Ne(b any) *Tensor         { return Binary(OpNe, t, b) }
func (t *Tensor) Lt(b any) *Tensor         { return Binary(OpLt, t, b) }
func (t *Tensor) Le(b any) *Tensor         { return Binary(OpLe, t, b) }
func (t *Tensor) Gt(b any) *Tensor         { return Binary(OpGt, t, b) }
func (t *Tensor) Ge(b any) *Tensor         { return Binary(OpGe, t, b) }
func (t *Tensor) LogicalAnd(b any) *Tensor { return Binary(OpAnd, t, b) }
func (t *Tensor) LogicalOr(b any) *Tensor  { return Binary(OpOr, t, b) }
func (t *Tensor) LogicalXor(b any) *Tensor { return Binary(OpXor, t, b) }
func (t *Tensor) LogicalNot() *Tensor      { return Unary(OpNot, t) }

func (t *Tensor) Neg() *Tensor     { return Unary(OpNeg, t) }
func (t *Tensor) Exp() *Tensor     { return Unary(OpExp, t) }
func (t *Tensor) Expm1() *Tensor   { return Unary(OpExpm1, t) }
func (t *Tensor) Log() *Tensor     { return Unary(OpLog, t) }
func (t *Tensor) Log1p() *Tensor   { return Unary(OpLog1p, t) }
func (t *Tensor) Sqrt() *Tensor    { return Unary(OpSqrt, t) }
func (t *Tensor) Abs() *Tensor     { return Unary(OpAbs, t) }
func (t *Tensor) Sign() *Tensor    { return Unary(OpSign, t) }
func (t *Tensor) Round() *Tensor   { return Unary(OpRound, t) }
func (t *Tensor) Floor() *Tensor   { return Unary(OpFloor, t) }
func (t *Tensor) Ceil() *Tensor    { return Unary(OpCeil, t) }
func (t *Tensor) Sigmoid() *Tensor { return Unary(OpSigmoid, t) }
func (t *Tensor) Tanh() *Tensor    { return Unary(OpTanh, t) }
func (t *Tensor) Relu() *Tensor    { return Unary(OpRelu, t) }
func (t *Tensor) Erf() *Tensor     { return Unary(OpErf, t) }
func (t *Tensor) Sin() *Tensor     { return Unary(OpSin, t) }
func (t *Tensor) Cos() *Tensor     { return Unary(OpCos, t) }

// Rsqrt returns 1/√x element-wise, computed as PyTorch's CPU kernel computes
// it: √x rounded to the element type, then its reciprocal (for Float32 at
// most 1 ulp from the correctly rounded value; the bits of Pow(x, -0.5)).
func (t *Tensor) Rsqrt() *Tensor { return Unary(OpRsqrt, t) }

// Clamp limits every element to [lo, hi]; pass math.Inf(-1) or math.Inf(1) (or
// use ClampMin / ClampMax) to leave a side unbounded. NaN stays NaN.
func (t *Tensor) Clamp(lo, hi float64) *Tensor {
	if lo > hi {
		// PyTorch sets every element to hi in this case.
		return Unary(OpClamp, t, hi, hi)
	}
	return Unary(OpClamp, t, lo, hi)
}

// ClampMin is Clamp with only a lower bound.
func (t *Tensor) ClampMin(lo float64) *Tensor { return Unary(OpClamp, t, lo, math.Inf(1)) }

// ClampMax is Clamp with only an upper bound.
func (t *Tensor) ClampMax(hi float64) *Tensor { return Unary(OpClamp, t, math.Inf(-1), hi) }

// MaskedFill returns a copy of t with value where mask (Bool, broadcastable to t)
// is true.
func (t *Tensor) MaskedFill(mask *Tensor, value float64) *Tensor {
	if mask.DType() != Bool {
		Panicf("MaskedFill", ErrDType, "mask must be bool, got %v", mask.DType())
	}
	shape := BroadcastShapes("MaskedFill", t.shape, mask.shape)
	if !slices.Equal(shape, t.shape) {
		Panicf("MaskedFill", ErrShape, "mask of shape %v does not broadcast to the tensor's shape %v", mask.shape, t.shape)
	}
	v := EmptyOn(t.Backend(), t.DType())
	v.Backend().Fill(v.Raw(), value)
	return Where(mask, v, t)
}

// In-place forms: they write into t, bump its version and return t.

func (t *Tensor) AddInPlace(b any) *Tensor { return BinaryTo(t, OpAdd, t, b) }

// AddScaledInPlace adds alpha·y into t, as PyTorch's t.add_(y, alpha=alpha),
// bumps t's version and returns t; y broadcasts to t's shape. It is
// ScaleAddInPlace with beta = 1.
func (t *Tensor) AddScaledInPlace(alpha float64, y *Tensor) *Tensor {
	return t.scaleAdd("AddScaledInPlace", 1, alpha, y)
}

// ScaleAddInPlace sets t = beta·t + alpha·y (PyTorch's
// t.mul_(beta).add_(y, alpha=alpha), each product rounded and then the
// sum), bumps t's version and returns t; y broadcasts to t's shape. When
// both are contiguous CPU float tensors of one dtype and shape it is one
// vectorised pass instead of two or three and a temporary; optimizers
// update their state and parameters with it.
func (t *Tensor) ScaleAddInPlace(beta, alpha float64, y *Tensor) *Tensor {
	return t.scaleAdd("ScaleAddInPlace", beta, alpha, y)
}

func (t *Tensor) scaleAdd(name string, beta, alpha float64, y *Tensor) *Tensor {
	_, cpu := t.Backend().(CPU)
	_, ycpu := y.Backend().(CPU)
	fused := cpu && ycpu && t.DType() == y.DType() && t.IsContiguous() && y.IsContiguous() && slices.Equal(t.shape, y.shape)
	switch {
	case fused && t.DType() == Float32:
		checkWrite(name, t, y)
		d := Data[float32](t)
		vec.Axpby(d, d, Data[float32](y), float32(beta), float32(alpha))
	case fused && t.DType() == Float64:
		checkWrite(name, t, y)
		d := Data[float64](t)
		vec.Axpby(d, d, Data[float64](y), beta, alpha)
	case beta == 1:
		return t.AddInPlace(y.Mul(alpha))
	default:
		return t.MulInPlace(beta).AddInPlace(y.Mul(alpha))
	}
	t.BumpVersion()
	return t
}
func (t *Tensor) SubInPlace(b any) *Tensor { return BinaryTo(t, OpSub, t, b) }
func (t *Tensor) MulInPlace(b any) *Tensor { return BinaryTo(t, OpMul, t, b) }
func (t *Tensor) DivInPlace(b any) *Tensor { return BinaryTo(t, OpDiv, t, b) }

// ClampInPlace clamps t in place.
func (t *Tensor) ClampInPlace(lo, hi float64) *Tensor { return UnaryTo(t, OpClamp, t, lo, hi) }

// Item returns the value of a one-element tensor as a float64.
func (t *Tensor) Item() float64 {
	if t.Numel() != 1 {
		PanicHint("Item", ErrShape, "reduce first (Sum, Mean) or index an element", "a tensor with %d elements (shape %v) cannot be converted to a scalar", t.Numel(), t.shape)
	}
	return t.Float64s()[0]
}

// Float64s returns the elements in row-major order converted to float64.
func (t *Tensor) Float64s() []float64 { return ToSlice[float64](t) }

// ToSlice returns t's elements in row-major order as a new []T (converting dtype).
func ToSlice[T Elem](t *Tensor) []T {
	if t.DType() != DTypeOf[T]() {
		t = t.To(DTypeOf[T]())
	}
	s, ok := t.Backend().ToSlice(t.Raw()).([]T)
	if !ok {
		panic(fmt.Sprintf("tensor: backend %s returned the wrong slice type", t.Backend().Name()))
	}
	return s
}

// Data returns the slice behind a contiguous CPU tensor, in row-major order. It
// aliases t's storage: writes are visible through t (call BumpVersion after
// writing). It panics for other dtypes, other backends or non-contiguous tensors.
func Data[T Elem](t *Tensor) []T {
	if t.DType() != DTypeOf[T]() {
		Panicf("Data", ErrDType, "tensor has dtype %v, asked for %v", t.DType(), DTypeOf[T]())
	}
	if !t.IsContiguous() {
		PanicHint("Data", ErrArg, "call Contiguous() first", "tensor of shape %v with strides %v is not contiguous", t.shape, t.strides)
	}
	h, ok := t.st.buf.(*hostBuf[T])
	if !ok {
		Panicf("Data", ErrDevice, "tensor lives on backend %q, not the CPU", t.Backend().Name())
	}
	return h.s[t.offset : t.offset+t.Numel()]
}
