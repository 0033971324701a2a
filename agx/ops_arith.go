package agx

import (
	"slices"
	"strings"

	"github.com/goagx/agx/tensor"
)

// operand splits argument arg (at position pos) of op into its autograd
// tensor (nil for a Go number) and what the tensor package should compute
// with.
func operand(op, arg string, pos int, v any) (*Tensor, any) {
	if t, ok := v.(*Tensor); ok {
		need(op, arg, pos, t)
		return t, t.data
	}
	if _, ok := v.(*tensor.Tensor); ok {
		tensor.PanicHint(op, tensor.ErrArg, "wrap it with agx.New", "argument '%s' (position %d) is a *tensor.Tensor where an *agx.Tensor or a Go number was expected", arg, pos)
	}
	if v == nil {
		tensor.Panicf(op, tensor.ErrArg, "argument '%s' (position %d) must be a Tensor or a Go number, not nil", arg, pos)
	}
	return nil, v
}

// inMeta is what a backward closure keeps of an input: never the tensor itself,
// so that releasing the saved tensors after backward really frees memory. The
// shape of up to 4 dims is stored inline (the closure holds the value, so no
// separate allocation); longer shapes go to ext.
type inMeta struct {
	ok, req bool // a tensor operand (not a Go number); it requires grad
	rank    int
	dtype   DType
	dims    [4]int
	ext     []int
}

func metaOf(t *Tensor) inMeta {
	if t == nil {
		return inMeta{}
	}
	m := inMeta{ok: true, req: t.RequiresGrad(), dtype: t.DType()}
	sh := t.data.Raw().Shape // read only: copied below
	m.rank = len(sh)
	if len(sh) <= len(m.dims) {
		copy(m.dims[:], sh)
	} else {
		m.ext = slices.Clone(sh)
	}
	return m
}

// shape returns a copy of the input's shape.
func (m inMeta) shape() []int {
	if m.ext != nil {
		return m.ext
	}
	sh := m.dims // escapes only here, off the common path of reduce
	return sh[:m.rank]
}

// shapeOf reports whether a has the input's shape, without copying it.
func (m inMeta) shapeOf(a *tensor.Tensor) bool {
	if m.ext != nil {
		return shapeIs(a, m.ext)
	}
	if a.Dim() != m.rank {
		return false
	}
	for i := range m.rank {
		if a.Size(i) != m.dims[i] {
			return false
		}
	}
	return true
}

// reduce sums a broadcast gradient back to the input's shape and casts it to
// the input's dtype; nil for a Go-number operand.
func (m inMeta) reduce(g *Tensor) *Tensor {
	if !m.ok || g == nil {
		return nil
	}
	if g.DType() == m.dtype && m.shapeOf(g.data) {
		return g // the common case: no broadcasting, no cast, no shape copies
	}
	g = sumTo(g, m.shape())
	if g.DType() != m.dtype {
		g = g.To(m.dtype)
	}
	return g
}

// number returns v when it is a Go number (not a tensor), else nil.
func number(v any) any {
	if _, ok := v.(*Tensor); ok {
		return nil
	}
	return v
}

// orNumber returns the saved tensor, or the Go number the operand was.
func orNumber(t *Tensor, num any) any {
	if t != nil {
		return t
	}
	return num
}

// shapeIs compares a tensor's shape with shape without copying it.
func shapeIs(a *tensor.Tensor, shape []int) bool {
	if a.Dim() != len(shape) {
		return false
	}
	for i, s := range shape {
		if a.Size(i) != s {
			return false
		}
	}
	return true
}

// sumTo sums g over the dims that broadcasting added or expanded, giving shape.
func sumTo(g *Tensor, shape []int) *Tensor {
	gs := g.data.Shape()
	if slices.Equal(gs, shape) {
		return g
	}
	lead := len(gs) - len(shape)
	var dims []int
	for i := range gs {
		if i < lead || (shape[i-lead] == 1 && gs[i] != 1) {
			dims = append(dims, i)
		}
	}
	if len(dims) > 0 && dims[len(dims)-1] < lead {
		return g.Sum(dims...) // only leading dims to sum, and drop
	}
	r := g
	if len(dims) > 0 {
		r = g.SumKeep(dims...)
	}
	if lead > 0 || !slices.Equal(r.data.Shape(), shape) {
		r = r.Reshape(shape...)
	}
	return r
}

// Add returns a + b with broadcasting; either may be a Go number.
func Add(a, b any) *Tensor {
	x, xd := operand("Add", "input", 1, a)
	y, yd := operand("Add", "other", 2, b)
	out := tensor.Add(xd, yd)
	if isDual(x, y) {
		return jvp(add(out, x, y), func() *Tensor { return addTangents(operandTangent(x), operandTangent(y)) })
	}
	return add(out, x, y)
}

// addTangents is tx + ty where either may be nil (zeros).
func addTangents(tx, ty *Tensor) *Tensor {
	switch {
	case tx == nil:
		return ty
	case ty == nil:
		return tx
	}
	return Add(tx, ty)
}

func add(out *tensor.Tensor, x, y *Tensor) *Tensor {
	if !needsGrad(x, y) {
		return wrap(out) // skip building the backward closure
	}
	if bw, kind := addSameBackward(x, y, out); bw != nil {
		return withFast(record("AddBackward0", out, []*Tensor{x, y}, nil, bw), kind)
	}
	mx, my := metaOf(x), metaOf(y)
	return record("AddBackward0", out, []*Tensor{x, y}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{mx.reduce(g), my.reduce(g)}
	})
}

// Sub returns a - b with broadcasting; either may be a Go number.
func Sub(a, b any) *Tensor {
	x, xd := operand("Sub", "input", 1, a)
	y, yd := operand("Sub", "other", 2, b)
	out := tensor.Sub(xd, yd)
	if isDual(x, y) {
		return jvp(sub(out, x, y), func() *Tensor {
			if ty := operandTangent(y); ty != nil {
				return addTangents(operandTangent(x), ty.Neg())
			}
			return operandTangent(x)
		})
	}
	return sub(out, x, y)
}

func sub(out *tensor.Tensor, x, y *Tensor) *Tensor {
	if !needsGrad(x, y) {
		return wrap(out) // skip building the backward closure
	}
	mx, my := metaOf(x), metaOf(y)
	return record("SubBackward0", out, []*Tensor{x, y}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		var gy *Tensor
		if my.ok {
			// Negating after the reduction is exact and touches fewer elements
			// when y was broadcast.
			if gy = my.reduce(g); gy != nil {
				gy = gy.Neg()
			}
		}
		return []*Tensor{mx.reduce(g), gy}
	})
}

// saveIf returns t when cond holds, else nil (so that unneeded tensors are not kept).
func saveIf(cond bool, t *Tensor) *Tensor {
	if cond {
		return t
	}
	return nil
}

// Mul returns a * b with broadcasting; either may be a Go number.
func Mul(a, b any) *Tensor {
	x, xd := operand("Mul", "input", 1, a)
	y, yd := operand("Mul", "other", 2, b)
	out := tensor.Mul(xd, yd)
	if isDual(x, y) {
		// d(ab) = da·b + a·db
		return jvp(mul(out, a, b, x, y), func() *Tensor {
			var r *Tensor
			if tx := operandTangent(x); tx != nil {
				r = Mul(tx, b)
			}
			if ty := operandTangent(y); ty != nil {
				r = addTangents(r, Mul(a, ty))
			}
			return r
		})
	}
	return mul(out, a, b, x, y)
}

func mul(out *tensor.Tensor, a, b any, x, y *Tensor) *Tensor {
	if !needsGrad(x, y) {
		return wrap(out) // skip building the backward closure
	}
	if x != nil && y != nil && sameAsOut(x, out) && sameAsOut(y, out) {
		return withFast(record("MulBackward0", out, []*Tensor{x, y}, []*Tensor{saveIf(x.RequiresGrad(), y), saveIf(y.RequiresGrad(), x)}, mulSameBackward), fastMul)
	}
	mx, my, na, nb := metaOf(x), metaOf(y), number(a), number(b)
	return record("MulBackward0", out, []*Tensor{x, y}, []*Tensor{saveIf(mx.req, y), saveIf(my.req, x)},
		func(g *Tensor, s []*Tensor) []*Tensor {
			var gx, gy *Tensor
			if mx.req {
				gx = mx.reduce(Mul(g, orNumber(s[0], nb)))
			}
			if my.req {
				gy = my.reduce(Mul(g, orNumber(s[1], na)))
			}
			return []*Tensor{gx, gy}
		})
}

// Div returns a / b with broadcasting (true division); either may be a Go number.
func Div(a, b any) *Tensor {
	x, xd := operand("Div", "input", 1, a)
	y, yd := operand("Div", "other", 2, b)
	out := tensor.Div(xd, yd)
	if isDual(x, y) {
		// d(a/b) = (da - (a/b)·db) / b
		r := div(out, a, b, x, y)
		return jvp(r, func() *Tensor {
			t := operandTangent(x)
			if ty := operandTangent(y); ty != nil {
				q := wrap(out)
				if t == nil {
					t = Mul(q, ty).Neg()
				} else {
					t = Sub(t, Mul(q, ty))
				}
			}
			return Div(t, b)
		})
	}
	return div(out, a, b, x, y)
}

func div(out *tensor.Tensor, a, b any, x, y *Tensor) *Tensor {
	if !needsGrad(x, y) {
		return wrap(out) // skip building the backward closure
	}
	mx, my, na, nb := metaOf(x), metaOf(y), number(a), number(b)
	return record("DivBackward0", out, []*Tensor{x, y}, []*Tensor{saveIf(my.req, x), y},
		func(g *Tensor, s []*Tensor) []*Tensor {
			var gx, gy *Tensor
			if mx.req {
				gx = mx.reduce(Div(g, orNumber(s[1], nb)))
			}
			if my.req {
				// d(a/b)/db = a / -b² (= -a / b² exactly; negating b², which is
				// the smaller operand when b is broadcast, saves a full pass)
				xa, y := orNumber(s[0], na), s[1]
				if y.Numel() < g.Numel() {
					// b was broadcast: reduce g·a first, then divide the
					// reduced (small) tensor, one full pass fewer.
					gy = my.reduce(Mul(g, xa)).Div(Mul(y, y).Neg())
				} else {
					gy = my.reduce(Mul(g, Div(xa, Mul(y, y).Neg())))
				}
			}
			return []*Tensor{gx, gy}
		})
}

// Neg returns -x.
func (t *Tensor) Neg() *Tensor {
	t.self("Neg")
	r := record("NegBackward0", t.data.Neg(), []*Tensor{t}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{g.Neg()}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Neg() })
	}
	return r
}

// Pow returns a ** b with broadcasting; either may be a Go number. The gradient
// with respect to the exponent is taken as 0 where the base is 0 and the
// exponent non-negative (as PyTorch does), avoiding 0·log 0 = NaN.
//
// A Go-number exponent p with a cheap form (the integers 1 <= |p| <= 5,
// 0.5 and -0.5; see tensor.Pow) is computed as PyTorch computes it: x·x for
// 2, √x for 0.5, 1/x for -1 and so on, as fast as the equivalent product;
// so is the gradient g·(p·x^(p-1)) when x^(p-1) has one.
func Pow(a, b any) *Tensor {
	x, xd := operand("Pow", "input", 1, a)
	y, yd := operand("Pow", "exponent", 2, b)
	if y == nil && x != nil {
		return powScalar(x, toFloat(b))
	}
	out := tensor.Binary(tensor.OpPow, xd, yd)
	mx, my, na, nb := metaOf(x), metaOf(y), number(a), number(b)
	res := record("PowBackward1", out, []*Tensor{x, y}, []*Tensor{x, y}, func(g *Tensor, s []*Tensor) []*Tensor {
		base, exp := orNumber(s[0], na), orNumber(s[1], nb)
		var gx, gy *Tensor
		if mx.req {
			gx = mx.reduce(Mul(g, Mul(exp, Pow(base, Sub(exp, 1)))))
		}
		if my.req {
			var lb *Tensor
			if s[0] != nil {
				lb = s[0].Log()
				zero := s[0].data.Eq(0).LogicalAnd(s[1].data.Ge(0))
				lb = lb.MaskedFill(wrap(zero), 0)
			} else {
				lb = Scalar(toFloat(na)).To(my.dtype).Log()
			}
			gy = my.reduce(Mul(g, Mul(Pow(base, exp), lb)))
		}
		return []*Tensor{gx, gy}
	})
	if isDual(x, y) {
		// d(a^b) = b·a^(b-1)·da + a^b·log(a)·db (0 where a = 0 and b ≥ 0)
		jvp(res, func() *Tensor {
			var t *Tensor
			if tx := operandTangent(x); tx != nil {
				t = Mul(tx, Mul(b, Pow(a, Sub(b, 1))))
			}
			if ty := operandTangent(y); ty != nil {
				var lb *Tensor
				if x != nil {
					zero := x.data.Eq(0).LogicalAnd(y.data.Ge(0))
					lb = x.Log().MaskedFill(wrap(zero), 0)
				} else {
					lb = Scalar(toFloat(a)).To(y.DType()).Log()
				}
				t = addTangents(t, Mul(ty, Mul(wrap(out), lb)))
			}
			return t
		})
	}
	return res
}

// powScalar is Pow(x, p) for a Go-number exponent. Backward: g·(p·x^(p-1)),
// 0 for p = 0.
func powScalar(x *Tensor, p float64) *Tensor {
	out := tensor.Pow(x.data, p)
	r := record("PowBackward0", out, []*Tensor{x}, []*Tensor{x}, func(g *Tensor, s []*Tensor) []*Tensor {
		x := s[0]
		if p == 0 {
			return []*Tensor{ZerosLike(x)}
		}
		if recordsNothing(g, x) && sameAsOut(g, x.data) {
			return []*Tensor{wrap(powGrad(g.data, x.data, p))}
		}
		return []*Tensor{Mul(g, powDeriv(x, p))}
	})
	if isDual(x) {
		jvp(r, func() *Tensor {
			if p == 0 {
				return nil
			}
			return Mul(x.tangentOf(), powDeriv(x, p))
		})
	}
	return r
}

// powDeriv is p·x^(p-1) for p != 0, where x^-1.5 (for p = -0.5) is taken
// as x^-0.5/x, so that every exponent with a cheap form has a cheap
// derivative. (At -Inf, where x^-0.5 is NaN, that gives NaN for math.Pow's 0.)
func powDeriv(x *Tensor, p float64) *Tensor {
	if p == -0.5 {
		return Div(Pow(x, p), x).Mul(p)
	}
	return Pow(x, p-1).Mul(p)
}

// powGrad is g·powDeriv(x, p) on data of one shape and dtype, computed in
// place in one temporary: the same operations, so the same bits, with fewer
// passes and allocations.
func powGrad(g, x *tensor.Tensor, p float64) *tensor.Tensor {
	var d *tensor.Tensor
	switch p {
	case 2:
		d = x.Mul(2.0) // 2·x^1: x^1 is x
	case -0.5:
		d = tensor.Pow(x, p)
		tensor.BinaryTo(d, tensor.OpDiv, d, x)
		tensor.BinaryTo(d, tensor.OpMul, d, p)
	default:
		d = tensor.Pow(x, p-1)
		tensor.BinaryTo(d, tensor.OpMul, d, p)
	}
	return tensor.BinaryTo(d, tensor.OpMul, g, d)
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	}
	tensor.Panicf("Pow", tensor.ErrArg, "expected a Go number, got %T", v)
	return 0
}

// Maximum is the element-wise maximum; where the operands are equal the
// gradient is split evenly between them.
func Maximum(a, b any) *Tensor { return minmax("MaximumBackward0", tensor.OpMaximum, a, b) }

// Minimum is the element-wise minimum; ties split the gradient evenly.
func Minimum(a, b any) *Tensor { return minmax("MinimumBackward0", tensor.OpMinimum, a, b) }

func minmax(name string, op tensor.BinaryOp, a, b any) *Tensor {
	opName := strings.TrimSuffix(name, "Backward0")
	x, xd := operand(opName, "input", 1, a)
	y, yd := operand(opName, "other", 2, b)
	out := tensor.Binary(op, xd, yd)
	mx, my, na, nb := metaOf(x), metaOf(y), number(a), number(b)
	res := record(name, out, []*Tensor{x, y}, []*Tensor{x, y}, func(g *Tensor, s []*Tensor) []*Tensor {
		av, bv := dataOrNumber(s[0], na), dataOrNumber(s[1], nb)
		eq := tensor.Binary(tensor.OpEq, av, bv)
		var winA *tensor.Tensor
		if op == tensor.OpMaximum {
			winA = tensor.Binary(tensor.OpGt, av, bv)
		} else {
			winA = tensor.Binary(tensor.OpLt, av, bv)
		}
		half := g.Mul(0.5)
		ga := Where(wrap(eq), half, Where(wrap(winA), g, 0.0))
		gb := Where(wrap(eq), half, Where(wrap(winA), 0.0, g))
		return []*Tensor{mx.reduce(ga), my.reduce(gb)}
	})
	if isDual(x, y) {
		// the tangent of the winner; the mean of both tangents at ties
		jvp(res, func() *Tensor {
			av, bv := dataOrNumber(x, a), dataOrNumber(y, b)
			eq := tensor.Binary(tensor.OpEq, av, bv)
			winOp := tensor.OpGt
			if op == tensor.OpMinimum {
				winOp = tensor.OpLt
			}
			winA := tensor.Binary(winOp, av, bv)
			ta, tb := operandTangentOrZero(a), operandTangentOrZero(b)
			return Where(wrap(eq), Add(ta, tb).Mul(0.5), Where(wrap(winA), ta, tb))
		})
	}
	return res
}

func dataOrNumber(t *Tensor, v any) any {
	if t != nil {
		return t.data
	}
	return v
}

// Where returns cond ? a : b (cond is a Bool tensor; a, b tensors or Go numbers).
func Where(cond *Tensor, a, b any) *Tensor {
	need("Where", "condition", 1, cond)
	x, xd := operand("Where", "input", 2, a)
	y, yd := operand("Where", "other", 3, b)
	out := tensor.Where(cond.data, xd, yd)
	c := cond.data
	mx, my := metaOf(x), metaOf(y)
	r := record("WhereBackward0", out, []*Tensor{x, y}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		var gx, gy *Tensor
		if mx.ok {
			gx = mx.reduce(Where(wrap(c), g, 0.0))
		}
		if my.ok {
			gy = my.reduce(Where(wrap(c), 0.0, g))
		}
		return []*Tensor{gx, gy}
	})
	if isDual(x, y) {
		jvp(r, func() *Tensor { return Where(wrap(c), operandTangentOrZero(a), operandTangentOrZero(b)) })
	}
	return r
}

// MaskedFill returns a copy of t with value where mask (Bool, broadcastable to t)
// is true; no gradient flows to the filled positions.
func (t *Tensor) MaskedFill(mask *Tensor, value float64) *Tensor {
	t.self("MaskedFill")
	need("MaskedFill", "mask", 2, mask)
	m := mask.data
	r := record("MaskedFillBackward0", t.data.MaskedFill(m, value), []*Tensor{t}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{g.MaskedFill(wrap(m), 0)}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().MaskedFill(wrap(m), 0) })
	}
	return r
}

// Comparisons return Bool tensors that never require grad.

// Eq is t == b elementwise, with broadcasting; b is a tensor or a Go number.
func (t *Tensor) Eq(b any) *Tensor {
	t.self("Eq")
	return compare(tensor.OpEq, t, b)
}

// Ne is t != b elementwise.
func (t *Tensor) Ne(b any) *Tensor {
	t.self("Ne")
	return compare(tensor.OpNe, t, b)
}

// Lt is t < b elementwise.
func (t *Tensor) Lt(b any) *Tensor {
	t.self("Lt")
	return compare(tensor.OpLt, t, b)
}

// Le is t <= b elementwise.
func (t *Tensor) Le(b any) *Tensor {
	t.self("Le")
	return compare(tensor.OpLe, t, b)
}

// Gt is t > b elementwise.
func (t *Tensor) Gt(b any) *Tensor {
	t.self("Gt")
	return compare(tensor.OpGt, t, b)
}

// Ge is t >= b elementwise.
func (t *Tensor) Ge(b any) *Tensor {
	t.self("Ge")
	return compare(tensor.OpGe, t, b)
}

// LogicalAnd, LogicalOr, LogicalXor and LogicalNot combine Bool masks.
func (t *Tensor) LogicalAnd(b *Tensor) *Tensor {
	t.self("LogicalAnd")
	need("LogicalAnd", "other", 2, b)
	return wrap(t.data.LogicalAnd(b.data))
}
func (t *Tensor) LogicalOr(b *Tensor) *Tensor {
	t.self("LogicalOr")
	need("LogicalOr", "other", 2, b)
	return wrap(t.data.LogicalOr(b.data))
}
func (t *Tensor) LogicalXor(b *Tensor) *Tensor {
	t.self("LogicalXor")
	need("LogicalXor", "other", 2, b)
	return wrap(t.data.LogicalXor(b.data))
}
func (t *Tensor) LogicalNot() *Tensor {
	t.self("LogicalNot")
	return wrap(t.data.LogicalNot())
}

func compare(op tensor.BinaryOp, a *Tensor, b any) *Tensor {
	_, bd := operand(compareNames[op], "other", 2, b)
	return wrap(tensor.Binary(op, a.data, bd))
}

var compareNames = map[tensor.BinaryOp]string{tensor.OpEq: "Eq", tensor.OpNe: "Ne", tensor.OpLt: "Lt",
	tensor.OpLe: "Le", tensor.OpGt: "Gt", tensor.OpGe: "Ge"}

// Method forms of the arithmetic ops.

// Add is Add(t, b): t + b with broadcasting; b is a tensor or a Go number.
func (t *Tensor) Add(b any) *Tensor {
	t.self("Add")
	return Add(t, b)
}

// Sub is Sub(t, b): t - b.
func (t *Tensor) Sub(b any) *Tensor {
	t.self("Sub")
	return Sub(t, b)
}

// Mul is Mul(t, b): t · b elementwise.
func (t *Tensor) Mul(b any) *Tensor {
	t.self("Mul")
	return Mul(t, b)
}

// Div is Div(t, b): t / b elementwise.
func (t *Tensor) Div(b any) *Tensor {
	t.self("Div")
	return Div(t, b)
}

// Pow is Pow(t, b): t raised to b elementwise.
func (t *Tensor) Pow(b any) *Tensor {
	t.self("Pow")
	return Pow(t, b)
}

// Maximum is Maximum(t, b): the larger of t and b elementwise.
func (t *Tensor) Maximum(b any) *Tensor {
	t.self("Maximum")
	return Maximum(t, b)
}

// Minimum is Minimum(t, b): the smaller of t and b elementwise.
func (t *Tensor) Minimum(b any) *Tensor {
	t.self("Minimum")
	return Minimum(t, b)
}

// RSub returns b - t (handy when b is a Go number: x.RSub(1) is 1 - x).
func (t *Tensor) RSub(b any) *Tensor {
	t.self("RSub")
	return Sub(b, t)
}
