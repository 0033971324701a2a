package agx

import (
	"math"
	"slices"

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
// separate allocation); longer shapes go to ext. It is kept small (32 bytes),
// so that the arguments of a binary op (two of them) stay within the size Go
// copies into a closure rather than allocating them apart.
type inMeta struct {
	ok, req bool // a tensor operand (not a Go number); it requires grad
	dtype   DType
	rank    uint8
	dims    [4]int32
	ext     *[]int // a shape of more than 4 dims, or with a dim beyond int32
}

func metaOf(t *Tensor) inMeta {
	if t == nil {
		return inMeta{}
	}
	m := inMeta{ok: true, req: t.RequiresGrad(), dtype: t.DType()}
	sh := t.data.Raw().Shape // read only: copied below
	if len(sh) <= len(m.dims) {
		m.rank = uint8(len(sh))
		for i, d := range sh {
			if d > math.MaxInt32 {
				return m.long(sh)
			}
			m.dims[i] = int32(d)
		}
		return m
	}
	return m.long(sh)
}

// long is m with the shape sh kept in ext.
func (m inMeta) long(sh []int) inMeta {
	ext := slices.Clone(sh)
	m.ext = &ext
	return m
}

// ndim is the input's number of dims.
func (m inMeta) ndim() int {
	if m.ext != nil {
		return len(*m.ext)
	}
	return int(m.rank)
}

// shape returns a copy of the input's shape.
func (m inMeta) shape() []int {
	if m.ext != nil {
		return *m.ext
	}
	sh := make([]int, m.rank) // off the common path of reduce
	for i := range sh {
		sh[i] = int(m.dims[i])
	}
	return sh
}

// dim returns the size of the input's dim i.
func (m inMeta) dim(i int) int {
	if m.ext != nil {
		return (*m.ext)[i]
	}
	return int(m.dims[i])
}

// shapeOf reports whether a has the input's shape, without copying it.
func (m inMeta) shapeOf(a *tensor.Tensor) bool {
	if m.ext != nil {
		return shapeIs(a, *m.ext)
	}
	if a.Dim() != int(m.rank) {
		return false
	}
	for i := range int(m.rank) {
		if a.Size(i) != int(m.dims[i]) {
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

// The arithmetic ops. Each one's rules are declared in arithOps (init,
// below) and written after it, op by op. Add, Sub, Mul and Div, the ops
// tiny graphs are made of, compute their forward inline and call finish,
// which saves an indirect call per op (their forward in the table is the
// same computation, which TestOpRules uses; TestInlineForwards checks that
// the two agree bit for bit).

var (
	addOp, subOp, mulOp, divOp, powOp opDef[binArgs]
	maximumOp, minimumOp              opDef[minmaxArgs]
	whereOp                           opDef[whereArgs]
	negOp                             opDef[noArgs]
	powScalarOp                       opDef[powArgs]
	maskedFillOp                      opDef[maskArgs]
	arithOps                          []rules
)

func init() {
	addOp = opDef[binArgs]{name: "AddBackward0", arity: 2, prepare: binMetas, forward: addForward, fresh: true, shared: addShared, backward: addBackward, jvp: addJVP}
	subOp = opDef[binArgs]{name: "SubBackward0", arity: 2, prepare: binMetas, forward: subForward, fresh: true, backward: subBackward, jvp: subJVP}
	mulOp = opDef[binArgs]{name: "MulBackward0", arity: 2, prepare: binMetas, forward: mulForward, fresh: true, save: mulSaves, shared: mulShared, backward: mulBackward, jvp: mulJVP}
	divOp = opDef[binArgs]{name: "DivBackward0", arity: 2, prepare: binMetas, forward: divForward, fresh: true, save: divSaves, backward: divBackward, jvp: divJVP}
	negOp = opDef[noArgs]{name: "NegBackward0", arity: 1, forward: negForward, backward: negBackward, jvp: negJVP}
	powOp = opDef[binArgs]{name: "PowBackward1", arity: 2, prepare: binMetas, forward: powForward, save: saveInputs, backward: powBackward, jvp: powJVP}
	powScalarOp = opDef[powArgs]{name: "PowBackward0", arity: 1, forward: powScalarForward, save: saveInputs, backward: powScalarBackward, dataBackward: powScalarDataBackward, jvp: powScalarJVP}
	maximumOp = opDef[minmaxArgs]{name: "MaximumBackward0", arity: 2, prepare: minmaxMetas, forward: minmaxForward, save: saveInputs, backward: minmaxBackward, jvp: minmaxJVP}
	minimumOp = opDef[minmaxArgs]{name: "MinimumBackward0", arity: 2, prepare: minmaxMetas, forward: minmaxForward, save: saveInputs, backward: minmaxBackward, jvp: minmaxJVP}
	whereOp = opDef[whereArgs]{name: "WhereBackward0", arity: 2, prepare: whereMetas, forward: whereForward, backward: whereBackward, jvp: whereJVP}
	maskedFillOp = opDef[maskArgs]{name: "MaskedFillBackward0", arity: 1, forward: maskedFillForward, backward: maskedFillBackward, jvp: maskedFillJVP}

	arithOps = []rules{addOp.done(), subOp.done(), mulOp.done(), divOp.done(), negOp.done(), powOp.done(),
		powScalarOp.done(), maximumOp.done(), minimumOp.done(), whereOp.done(), maskedFillOp.done()}
}

// binArgs is what a binary op keeps of its operands a and b: the metadata of
// the tensors among them x and y (to reduce broadcast gradients), and the Go
// numbers among them (nil for a tensor).
type binArgs struct {
	mx, my inMeta
	na, nb any
}

// newBinArgs keeps the Go numbers among a and b; the operands' metadata is
// added by binMetas, when the op records.
func newBinArgs(a, b any) binArgs { return binArgs{na: number(a), nb: number(b)} }

// binMetas is the prepare rule of the binary ops: the operands' metadata.
func binMetas(p binArgs, x ins) binArgs {
	p.mx, p.my = metaOf(x[0]), metaOf(x[1])
	return p
}

func minmaxMetas(p minmaxArgs, x ins) minmaxArgs {
	p.binArgs = binMetas(p.binArgs, x)
	return p
}

func whereMetas(p whereArgs, x ins) whereArgs {
	p.binArgs = binMetas(p.binArgs, x)
	return p
}

// operands returns the data of a binary op's operands for the tensor package.
func (p *binArgs) operands(x ins) (any, any) {
	return dataOrNumber(x[0], p.na), dataOrNumber(x[1], p.nb)
}

// a and b return the operands as the op got them: a tensor or a Go number.
func (p *binArgs) a(x *Tensor) any { return orNumber(x, p.na) }
func (p *binArgs) b(y *Tensor) any { return orNumber(y, p.nb) }

// Add returns a + b with broadcasting; either may be a Go number.
func Add(a, b any) *Tensor {
	x, xd := operand("Add", "input", 1, a)
	y, yd := operand("Add", "other", 2, b)
	// addForward inline: Add and Mul are the ops that tiny graphs are made of
	return addOp.finish(newBinArgs(a, b), ins{x, y}, tensor.Add(xd, yd))
}

func addForward(p binArgs, x ins) *tensor.Tensor { return tensor.Add(p.operands(x)) }

func addShared(x ins, out *tensor.Tensor) (backwardFn, uint8) {
	return addSameBackward(x[0], x[1], out)
}

func addBackward(p binArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{p.mx.reduce(g), p.my.reduce(g)}
}

func addJVP(_ binArgs, x ins, _ *Tensor) *Tensor {
	return addTangents(x[0].tangentOf(), x[1].tangentOf())
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

// Sub returns a - b with broadcasting; either may be a Go number.
func Sub(a, b any) *Tensor {
	x, xd := operand("Sub", "input", 1, a)
	y, yd := operand("Sub", "other", 2, b)
	return subOp.finish(newBinArgs(a, b), ins{x, y}, tensor.Sub(xd, yd)) // subForward inline
}

func subForward(p binArgs, x ins) *tensor.Tensor { return tensor.Sub(p.operands(x)) }

func subBackward(p binArgs, g *Tensor, _ []*Tensor) []*Tensor {
	var gy *Tensor
	if p.my.ok {
		// Negating after the reduction is exact and touches fewer elements
		// when y was broadcast.
		if gy = p.my.reduce(g); gy != nil {
			gy = gy.Neg()
		}
	}
	return []*Tensor{p.mx.reduce(g), gy}
}

func subJVP(_ binArgs, x ins, _ *Tensor) *Tensor {
	if ty := x[1].tangentOf(); ty != nil {
		return addTangents(x[0].tangentOf(), ty.Neg())
	}
	return x[0].tangentOf()
}

// saveIf returns t when cond holds, else nil (so that unneeded tensors are not kept).
func saveIf(cond bool, t *Tensor) *Tensor {
	if cond {
		return t
	}
	return nil
}

// requires reports whether x is a tensor that requires grad.
func requires(x *Tensor) bool { return x != nil && x.RequiresGrad() }

// Mul returns a * b with broadcasting; either may be a Go number.
func Mul(a, b any) *Tensor {
	x, xd := operand("Mul", "input", 1, a)
	y, yd := operand("Mul", "other", 2, b)
	return mulOp.finish(newBinArgs(a, b), ins{x, y}, tensor.Mul(xd, yd)) // mulForward inline
}

func mulForward(p binArgs, x ins) *tensor.Tensor { return tensor.Mul(p.operands(x)) }

// mulSaves keeps b for a's gradient and a for b's, each only when needed.
func mulSaves(x ins) ins {
	return ins{saveIf(requires(x[0]), x[1]), saveIf(requires(x[1]), x[0])}
}

func mulShared(x ins, out *tensor.Tensor) (backwardFn, uint8) {
	if x[0] != nil && x[1] != nil && sameAsOut(x[0], out) && sameAsOut(x[1], out) {
		if x[0] == x[1] {
			return mulSameBackward, fastSquare
		}
		return mulSameBackward, fastMul
	}
	return nil, 0
}

func mulBackward(p binArgs, g *Tensor, s []*Tensor) []*Tensor {
	var gx, gy *Tensor
	if p.mx.req {
		gx = p.mx.reduce(Mul(g, orNumber(s[0], p.nb)))
	}
	if p.my.req {
		gy = p.my.reduce(Mul(g, orNumber(s[1], p.na)))
	}
	return []*Tensor{gx, gy}
}

// mulJVP is d(ab) = da·b + a·db.
func mulJVP(p binArgs, x ins, _ *Tensor) *Tensor {
	var r *Tensor
	if tx := x[0].tangentOf(); tx != nil {
		r = Mul(tx, p.b(x[1]))
	}
	if ty := x[1].tangentOf(); ty != nil {
		r = addTangents(r, Mul(p.a(x[0]), ty))
	}
	return r
}

// Div returns a / b with broadcasting (true division); either may be a Go number.
func Div(a, b any) *Tensor {
	x, xd := operand("Div", "input", 1, a)
	y, yd := operand("Div", "other", 2, b)
	return divOp.finish(newBinArgs(a, b), ins{x, y}, tensor.Div(xd, yd)) // divForward inline
}

func divForward(p binArgs, x ins) *tensor.Tensor { return tensor.Div(p.operands(x)) }

// divSaves keeps a for b's gradient, and b.
func divSaves(x ins) ins { return ins{saveIf(requires(x[1]), x[0]), x[1]} }

func divBackward(p binArgs, g *Tensor, s []*Tensor) []*Tensor {
	var gx, gy *Tensor
	if p.mx.req {
		gx = p.mx.reduce(Div(g, orNumber(s[1], p.nb)))
	}
	if p.my.req {
		// d(a/b)/db = a / -b² (= -a / b² exactly; negating b², which is
		// the smaller operand when b is broadcast, saves a full pass)
		xa, y := orNumber(s[0], p.na), s[1]
		if y.Numel() < g.Numel() {
			// b was broadcast: reduce g·a first, then divide the
			// reduced (small) tensor, one full pass fewer.
			gy = p.my.reduce(Mul(g, xa)).Div(Mul(y, y).Neg())
		} else {
			gy = p.my.reduce(Mul(g, Div(xa, Mul(y, y).Neg())))
		}
	}
	return []*Tensor{gx, gy}
}

// divJVP is d(a/b) = (da - (a/b)·db) / b.
func divJVP(p binArgs, x ins, out *Tensor) *Tensor {
	t := x[0].tangentOf()
	if ty := x[1].tangentOf(); ty != nil {
		q := wrap(out.data)
		if t == nil {
			t = Mul(q, ty).Neg()
		} else {
			t = Sub(t, Mul(q, ty))
		}
	}
	return Div(t, p.b(x[1]))
}

// Neg returns -x.
func (t *Tensor) Neg() *Tensor {
	t.self("Neg")
	return negOp.run(noArgs{}, one(t))
}

func negForward(_ noArgs, x ins) *tensor.Tensor              { return x[0].data.Neg() }
func negBackward(_ noArgs, g *Tensor, _ []*Tensor) []*Tensor { return []*Tensor{g.Neg()} }
func negJVP(_ noArgs, x ins, _ *Tensor) *Tensor              { return x[0].tangentOf().Neg() }

// Pow returns a ** b with broadcasting; either may be a Go number. The gradient
// with respect to the exponent is taken as 0 where the base is 0 and the
// exponent non-negative (as PyTorch does), avoiding 0·log 0 = NaN.
//
// A Go-number exponent p with a cheap form (the integers 1 <= |p| <= 5,
// 0.5 and -0.5; see tensor.Pow) is computed as PyTorch computes it: x·x for
// 2, √x for 0.5, 1/x for -1 and so on, as fast as the equivalent product;
// so is the gradient g·(p·x^(p-1)) when x^(p-1) has one.
func Pow(a, b any) *Tensor {
	x, _ := operand("Pow", "input", 1, a)
	y, _ := operand("Pow", "exponent", 2, b)
	if y == nil && x != nil {
		return powScalarOp.run(powArgs{toFloat(b)}, one(x))
	}
	return powOp.run(newBinArgs(a, b), ins{x, y})
}

func powForward(p binArgs, x ins) *tensor.Tensor {
	a, b := p.operands(x)
	return tensor.Binary(tensor.OpPow, a, b)
}

func powBackward(p binArgs, g *Tensor, s []*Tensor) []*Tensor {
	base, exp := orNumber(s[0], p.na), orNumber(s[1], p.nb)
	var gx, gy *Tensor
	if p.mx.req {
		gx = p.mx.reduce(Mul(g, Mul(exp, Pow(base, Sub(exp, 1)))))
	}
	if p.my.req {
		var lb *Tensor
		if s[0] != nil {
			// Where, not MaskedFill: the mask has the output's shape, which
			// may be larger than a broadcast base's
			zero := s[0].data.Eq(0).LogicalAnd(s[1].data.Ge(0))
			lb = Where(wrap(zero), 0.0, s[0].Log())
		} else {
			lb = Scalar(toFloat(p.na)).To(p.my.dtype).Log()
		}
		gy = p.my.reduce(Mul(g, Mul(Pow(base, exp), lb)))
	}
	return []*Tensor{gx, gy}
}

// powJVP is d(a^b) = b·a^(b-1)·da + a^b·log(a)·db (0 where a = 0 and b ≥ 0).
func powJVP(p binArgs, x ins, out *Tensor) *Tensor {
	a, b := p.a(x[0]), p.b(x[1])
	var t *Tensor
	if tx := x[0].tangentOf(); tx != nil {
		t = Mul(tx, Mul(b, Pow(a, Sub(b, 1))))
	}
	if ty := x[1].tangentOf(); ty != nil {
		var lb *Tensor
		if x[0] != nil {
			zero := x[0].data.Eq(0).LogicalAnd(x[1].data.Ge(0))
			lb = Where(wrap(zero), 0.0, x[0].Log())
		} else {
			lb = Scalar(toFloat(a)).To(x[1].DType()).Log()
		}
		t = addTangents(t, Mul(ty, Mul(wrap(out.data), lb)))
	}
	return t
}

// powArgs is the Go-number exponent of Pow(x, p). Backward: g·(p·x^(p-1)),
// 0 for p = 0.
type powArgs struct{ p float64 }

func powScalarForward(c powArgs, x ins) *tensor.Tensor { return tensor.Pow(x[0].data, c.p) }

func powScalarBackward(c powArgs, g *Tensor, s []*Tensor) []*Tensor {
	if c.p == 0 {
		return []*Tensor{ZerosLike(s[0])}
	}
	return []*Tensor{Mul(g, powDeriv(s[0], c.p))}
}

// powScalarDataBackward is powGrad: the same operations in fewer passes, for
// a gradient of x's shape and dtype.
func powScalarDataBackward(c powArgs, g *Tensor, s []*Tensor) []*Tensor {
	if c.p == 0 {
		return []*Tensor{ZerosLike(s[0])}
	}
	if !sameAsOut(g, s[0].data) {
		return nil
	}
	return []*Tensor{wrap(powGrad(g.data, s[0].data, c.p))}
}

func powScalarJVP(c powArgs, x ins, _ *Tensor) *Tensor {
	if c.p == 0 {
		return nil
	}
	return Mul(x[0].tangentOf(), powDeriv(x[0], c.p))
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
func Maximum(a, b any) *Tensor { return minmax(&maximumOp, "Maximum", tensor.OpMaximum, a, b) }

// Minimum is the element-wise minimum; ties split the gradient evenly.
func Minimum(a, b any) *Tensor { return minmax(&minimumOp, "Minimum", tensor.OpMinimum, a, b) }

// minmaxArgs are Maximum's and Minimum's: the operands' and the kernel.
type minmaxArgs struct {
	binArgs
	op tensor.BinaryOp // OpMaximum or OpMinimum
}

func minmax(d *opDef[minmaxArgs], opName string, op tensor.BinaryOp, a, b any) *Tensor {
	x, _ := operand(opName, "input", 1, a)
	y, _ := operand(opName, "other", 2, b)
	return d.run(minmaxArgs{newBinArgs(a, b), op}, ins{x, y})
}

func minmaxForward(p minmaxArgs, x ins) *tensor.Tensor {
	a, b := p.operands(x)
	return tensor.Binary(p.op, a, b)
}

// masks returns where the operands tie and where a wins.
func (p *minmaxArgs) masks(a, b any) (eq, winA *Tensor) {
	winOp := tensor.OpGt
	if p.op == tensor.OpMinimum {
		winOp = tensor.OpLt
	}
	return wrap(tensor.Binary(tensor.OpEq, a, b)), wrap(tensor.Binary(winOp, a, b))
}

func minmaxBackward(p minmaxArgs, g *Tensor, s []*Tensor) []*Tensor {
	eq, winA := p.masks(dataOrNumber(s[0], p.na), dataOrNumber(s[1], p.nb))
	half := g.Mul(0.5)
	ga := Where(eq, half, Where(winA, g, 0.0))
	gb := Where(eq, half, Where(winA, 0.0, g))
	return []*Tensor{p.mx.reduce(ga), p.my.reduce(gb)}
}

// minmaxJVP is the tangent of the winner; the mean of both tangents at ties.
func minmaxJVP(p minmaxArgs, x ins, _ *Tensor) *Tensor {
	eq, winA := p.masks(p.operands(x))
	ta, tb := operandTangentOrZero(p.a(x[0])), operandTangentOrZero(p.b(x[1]))
	return Where(eq, Add(ta, tb).Mul(0.5), Where(winA, ta, tb))
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
	x, _ := operand("Where", "input", 2, a)
	y, _ := operand("Where", "other", 3, b)
	return whereOp.run(whereArgs{newBinArgs(a, b), cond.data}, ins{x, y})
}

// whereArgs are Where's: the operands' and the condition (not an input:
// no gradient flows to it).
type whereArgs struct {
	binArgs
	cond *tensor.Tensor
}

func whereForward(p whereArgs, x ins) *tensor.Tensor {
	a, b := p.operands(x)
	return tensor.Where(p.cond, a, b)
}

func whereBackward(p whereArgs, g *Tensor, _ []*Tensor) []*Tensor {
	var gx, gy *Tensor
	if p.mx.ok {
		gx = p.mx.reduce(Where(wrap(p.cond), g, 0.0))
	}
	if p.my.ok {
		gy = p.my.reduce(Where(wrap(p.cond), 0.0, g))
	}
	return []*Tensor{gx, gy}
}

func whereJVP(p whereArgs, x ins, _ *Tensor) *Tensor {
	return Where(wrap(p.cond), operandTangentOrZero(p.a(x[0])), operandTangentOrZero(p.b(x[1])))
}

// MaskedFill returns a copy of t with value where mask (Bool, broadcastable to t)
// is true; no gradient flows to the filled positions.
func (t *Tensor) MaskedFill(mask *Tensor, value float64) *Tensor {
	t.self("MaskedFill")
	need("MaskedFill", "mask", 2, mask)
	return maskedFillOp.run(maskArgs{mask.data, value}, one(t))
}

// maskArgs are MaskedFill's mask and value.
type maskArgs struct {
	mask  *tensor.Tensor
	value float64
}

func maskedFillForward(p maskArgs, x ins) *tensor.Tensor {
	return x[0].data.MaskedFill(p.mask, p.value)
}

func maskedFillBackward(p maskArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{g.MaskedFill(wrap(p.mask), 0)}
}

func maskedFillJVP(p maskArgs, x ins, _ *Tensor) *Tensor {
	return x[0].tangentOf().MaskedFill(wrap(p.mask), 0)
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
