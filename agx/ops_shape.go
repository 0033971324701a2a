package agx

import (
	"slices"

	"github.com/goagx/agx/tensor"
)

// The view and reshape ops, and Cat and Stack. Each one's rules are
// declared in shapeOps (init, below) and written after its method or
// function.

var (
	reshapeOp, viewOp, squeezeOp, unsqueezeOp opDef[reshapeArgs]
	transposeOp                               opDef[transposeArgs]
	permuteOp                                 opDef[permuteArgs]
	expandOp                                  opDef[reshapeArgs]
	viewOps                                   [4]opDef[viewArgs] // by kind: Narrow, Slice, Select, a gradient's view
	embedOp                                   opDef[embedArgs]
	catOp, stackOp                            opDef[catArgs]
	shapeOps                                  []rules
)

func init() {
	reshapeOp = opDef[reshapeArgs]{name: "ReshapeAliasBackward0", arity: 1, prepare: inputMeta, forward: reshapeForward, backward: reshapeBackward, jvp: reshapeJVP}
	viewOp = opDef[reshapeArgs]{name: "ViewBackward0", arity: 1, prepare: inputMeta, forward: viewForward, backward: reshapeBackward, jvp: reshapeJVP}
	squeezeOp = opDef[reshapeArgs]{name: "SqueezeBackward0", arity: 1, prepare: inputMeta, forward: squeezeForward, backward: reshapeBackward, jvp: squeezeJVP}
	unsqueezeOp = opDef[reshapeArgs]{name: "UnsqueezeBackward0", arity: 1, prepare: inputMeta, forward: unsqueezeForward, backward: reshapeBackward, jvp: unsqueezeJVP}
	transposeOp = opDef[transposeArgs]{name: "TransposeBackward0", arity: 1, forward: transposeForward, backward: transposeBackward, dataBackward: transposeDataBackward, jvp: transposeJVP}
	permuteOp = opDef[permuteArgs]{name: "PermuteBackward0", arity: 1, forward: permuteForward, backward: permuteBackward, jvp: permuteJVP}
	expandOp = opDef[reshapeArgs]{name: "ExpandBackward0", arity: 1, prepare: inputMeta, forward: expandForward, backward: expandBackward, jvp: expandJVP}

	viewOps[narrowView] = opDef[viewArgs]{name: "NarrowBackward0", arity: 1, forward: sliceLikeForward, backward: sliceLikeBackward, jvp: sliceLikeJVP}
	viewOps[sliceView] = opDef[viewArgs]{name: "SliceBackward0", arity: 1, forward: sliceLikeForward, backward: sliceLikeBackward, jvp: sliceLikeJVP}
	viewOps[selectView] = opDef[viewArgs]{name: "SelectBackward0", arity: 1, forward: sliceLikeForward, backward: sliceLikeBackward, jvp: sliceLikeJVP}
	viewOps[viewOfGrad] = opDef[viewArgs]{name: "ViewBackward", arity: 1, forward: sliceLikeForward, backward: sliceLikeBackward, jvp: sliceLikeJVP}
	embedOp = opDef[embedArgs]{name: "EmbedBackward", arity: 1, forward: embedForward, backward: embedBackward, jvp: embedJVP}
	catOp = opDef[catArgs]{name: "CatBackward0", arity: manyInputs, forwardN: catForward, fresh: true, backward: catBackward, jvpN: catJVP}
	stackOp = opDef[catArgs]{name: "StackBackward0", arity: manyInputs, forwardN: stackForward, fresh: true, backward: stackBackward, jvpN: stackJVP}

	shapeOps = []rules{reshapeOp.done(), viewOp.done(), squeezeOp.done(), unsqueezeOp.done(),
		transposeOp.done(), permuteOp.done(), expandOp.done(),
		viewOps[narrowView].done(), viewOps[sliceView].done(), viewOps[selectView].done(), viewOps[viewOfGrad].done(),
		embedOp.done(), catOp.done(), stackOp.done()}
}

// reshapeArgs are the arguments of the ops whose gradient is reshaped back
// (or summed back, Expand) to the input's shape in: the shape asked for
// (Reshape, View, Expand), the dims (Squeeze) or the dim (Unsqueeze).
type reshapeArgs struct {
	in    inMeta
	shape []int
	dim   int
}

// inputMeta is the prepare rule of the reshapes: the input's metadata.
func inputMeta(p reshapeArgs, x ins) reshapeArgs {
	p.in = metaOf(x[0])
	return p
}

// Reshape returns t with a new shape (a view when possible); one dim may be -1.
func (t *Tensor) Reshape(shape ...int) *Tensor {
	t.self("Reshape")
	return reshapeOp.run(reshapeArgs{shape: shape}, one(t))
}

func reshapeForward(p reshapeArgs, x ins) *tensor.Tensor { return x[0].data.Reshape(p.shape...) }

// reshapeBackward is the backward of Reshape, View, Squeeze and Unsqueeze.
func reshapeBackward(p reshapeArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{g.Reshape(p.in.shape()...)}
}

// reshapeJVP is the forward rule of Reshape and View.
func reshapeJVP(p reshapeArgs, x ins, _ *Tensor) *Tensor {
	return x[0].tangentOf().Reshape(p.shape...)
}

// View is Reshape that never copies (it panics when t's layout does not allow it).
func (t *Tensor) View(shape ...int) *Tensor {
	t.self("View")
	return viewOp.run(reshapeArgs{shape: shape}, one(t))
}

func viewForward(p reshapeArgs, x ins) *tensor.Tensor { return x[0].data.View(p.shape...) }

// Flatten reshapes t to 1-D.
func (t *Tensor) Flatten() *Tensor {
	t.self("Flatten")
	return t.Reshape(-1)
}

// Transpose swaps two dims (a view).
func (t *Tensor) Transpose(d0, d1 int) *Tensor {
	t.self("Transpose")
	return transposeOp.run(transposeArgs{d0, d1}, one(t))
}

// transposeArgs are the dims Transpose swaps.
type transposeArgs struct{ d0, d1 int }

func transposeForward(p transposeArgs, x ins) *tensor.Tensor {
	return x[0].data.Transpose(p.d0, p.d1)
}

func transposeBackward(p transposeArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{g.Transpose(p.d0, p.d1)}
}

// transposeDataBackward transposes the data, recording nothing.
func transposeDataBackward(p transposeArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{wrap(g.data.Transpose(p.d0, p.d1))}
}

func transposeJVP(p transposeArgs, x ins, _ *Tensor) *Tensor {
	return x[0].tangentOf().Transpose(p.d0, p.d1)
}

// T transposes a tensor of at most 2 dims.
func (t *Tensor) T() *Tensor {
	t.self("T")
	if t.Dim() < 2 {
		return t
	}
	if t.Dim() > 2 {
		t.data.T() // raises the tensor package's error
	}
	return t.Transpose(0, 1)
}

// MT swaps the last two dims.
func (t *Tensor) MT() *Tensor {
	t.self("MT")
	return t.Transpose(-2, -1)
}

// Permute reorders dims (a view).
func (t *Tensor) Permute(perm ...int) *Tensor {
	t.self("Permute")
	out := t.data.Permute(perm...)
	n := len(perm)
	inv := make([]int, n)
	for i, p := range perm {
		if p < 0 {
			p += n
		}
		inv[p] = i
	}
	return permuteOp.finish(permuteArgs{perm, inv}, one(t), out)
}

// permuteArgs are Permute's permutation and its inverse.
type permuteArgs struct{ perm, inv []int }

func permuteForward(p permuteArgs, x ins) *tensor.Tensor { return x[0].data.Permute(p.perm...) }

func permuteBackward(p permuteArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{g.Permute(p.inv...)}
}

func permuteJVP(p permuteArgs, x ins, _ *Tensor) *Tensor {
	return x[0].tangentOf().Permute(p.perm...)
}

// Squeeze removes size-1 dims (the given ones, or all).
func (t *Tensor) Squeeze(dims ...int) *Tensor {
	t.self("Squeeze")
	return squeezeOp.run(reshapeArgs{shape: dims}, one(t))
}

func squeezeForward(p reshapeArgs, x ins) *tensor.Tensor { return x[0].data.Squeeze(p.shape...) }

func squeezeJVP(p reshapeArgs, x ins, _ *Tensor) *Tensor {
	return x[0].tangentOf().Squeeze(p.shape...)
}

// Unsqueeze inserts a size-1 dim.
func (t *Tensor) Unsqueeze(dim int) *Tensor {
	t.self("Unsqueeze")
	return unsqueezeOp.run(reshapeArgs{dim: dim}, one(t))
}

func unsqueezeForward(p reshapeArgs, x ins) *tensor.Tensor { return x[0].data.Unsqueeze(p.dim) }

func unsqueezeJVP(p reshapeArgs, x ins, _ *Tensor) *Tensor {
	return x[0].tangentOf().Unsqueeze(p.dim)
}

// Expand broadcasts size-1 dims to shape without copying. Backward: the
// gradient is summed over the expanded dims.
func (t *Tensor) Expand(shape ...int) *Tensor {
	t.self("Expand")
	if shapeIs(t.data, shape) {
		return t
	}
	return expandOp.run(reshapeArgs{shape: shape}, one(t))
}

func expandForward(p reshapeArgs, x ins) *tensor.Tensor { return x[0].data.Expand(p.shape...) }

func expandBackward(p reshapeArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{sumTo(g, p.in.shape())}
}

func expandJVP(p reshapeArgs, x ins, _ *Tensor) *Tensor {
	return x[0].tangentOf().Expand(p.shape...)
}

// BroadcastTo is Expand with broadcasting's rules and errors.
func (t *Tensor) BroadcastTo(shape ...int) *Tensor {
	t.self("BroadcastTo")
	tensor.BroadcastShapes("BroadcastTo", t.data.Shape(), shape)
	return t.Expand(shape...)
}

// Narrow returns length elements of dim starting at start (a view).
func (t *Tensor) Narrow(dim, start, length int) *Tensor {
	t.self("Narrow")
	out := t.data.Narrow(dim, start, length)
	return t.sliceLike(narrowView, out, func(x *tensor.Tensor) *tensor.Tensor { return x.Narrow(dim, start, length) })
}

// Slice returns dim from start to stop (exclusive) with step, like x[start:stop:step].
func (t *Tensor) Slice(dim, start, stop, step int) *Tensor {
	t.self("Slice")
	out := t.data.Slice(dim, start, stop, step)
	return t.sliceLike(sliceView, out, func(x *tensor.Tensor) *tensor.Tensor { return x.Slice(dim, start, stop, step) })
}

// Select returns index i of dim, removing the dim (a view).
func (t *Tensor) Select(dim, i int) *Tensor {
	t.self("Select")
	out := t.data.Select(dim, i)
	return t.sliceLike(selectView, out, func(x *tensor.Tensor) *tensor.Tensor { return x.Select(dim, i) })
}

// The kinds of sliceLike views, indexes into viewOps.
const (
	narrowView = iota
	sliceView
	selectView
	viewOfGrad // wrapView's: the view of a gradient, in embed's backward
)

// viewArgs are the arguments of a view op recorded by sliceLike: its kind
// (which opDef of viewOps), the view itself on tensor data, and the input's
// shape (for the backward's zeros).
type viewArgs struct {
	kind  int
	view  func(*tensor.Tensor) *tensor.Tensor
	shape []int
}

// sliceLike records a view op whose backward writes the gradient into the
// viewed region of a zero tensor of the input's shape.
func (t *Tensor) sliceLike(kind int, out *tensor.Tensor, view func(*tensor.Tensor) *tensor.Tensor) *Tensor {
	return viewOps[kind].finish(viewArgs{kind, view, t.data.Shape()}, one(t), out)
}

func sliceLikeForward(p viewArgs, x ins) *tensor.Tensor { return p.view(x[0].data) }

func sliceLikeBackward(p viewArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{embed(g, p.shape, p.view)}
}

// sliceLikeJVP is the same view of the tangent.
func sliceLikeJVP(p viewArgs, x ins, _ *Tensor) *Tensor {
	tt := x[0].tangentOf()
	return tt.sliceLike(p.kind, p.view(tt.data), p.view)
}

// embed places g into the region view() selects of a zero tensor of shape; its
// own backward takes that region back out, so higher derivatives work.
func embed(g *Tensor, shape []int, view func(*tensor.Tensor) *tensor.Tensor) *Tensor {
	return embedOp.run(embedArgs{shape, view}, one(g))
}

// embedArgs are embed's: the shape of the zeros and the region.
type embedArgs struct {
	shape []int
	view  func(*tensor.Tensor) *tensor.Tensor
}

func embedForward(p embedArgs, x ins) *tensor.Tensor {
	z := tensor.Zeros(x[0].DType(), p.shape...)
	p.view(z).CopyFrom(x[0].data)
	return z
}

func embedBackward(p embedArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{wrapView(g, p.view)}
}

func embedJVP(p embedArgs, x ins, _ *Tensor) *Tensor {
	return embed(x[0].tangentOf(), p.shape, p.view)
}

// wrapView applies a tensor-level view to an autograd tensor, recording the
// view's backward (embed).
func wrapView(t *Tensor, view func(*tensor.Tensor) *tensor.Tensor) *Tensor {
	return t.sliceLike(viewOfGrad, view(t.data), view)
}

// Cat concatenates tensors along dim. Backward: each input gets its slice
// of the gradient, in its own dtype.
func Cat(dim int, ts ...*Tensor) *Tensor {
	datas := make([]*tensor.Tensor, len(ts))
	for i, t := range ts {
		needAt("Cat", i, t)
		datas[i] = t.data
	}
	out := tensor.Cat(dim, datas...)
	if dim < 0 {
		dim += out.Dim()
	}
	return catOp.finishN(newCatArgs(dim, ts), ts, out) // catForward inline: dim is known after
}

// catArgs are the arguments of Cat and Stack: the dim (non-negative), and
// what backward needs of each input: its size in dim (Cat) and its dtype.
type catArgs struct {
	dim   int
	sizes []int
	dts   []DType
}

func newCatArgs(dim int, ts []*Tensor) catArgs {
	p := catArgs{dim: dim, sizes: make([]int, len(ts)), dts: make([]DType, len(ts))}
	for i, t := range ts {
		p.sizes[i], p.dts[i] = t.data.Size(dim), t.DType()
	}
	return p
}

func catForward(p catArgs, xs []*Tensor) *tensor.Tensor { return tensor.Cat(p.dim, datasOf(xs)...) }

func catBackward(p catArgs, g *Tensor, _ []*Tensor) []*Tensor {
	gs := make([]*Tensor, len(p.sizes))
	off := 0
	for i, n := range p.sizes {
		gs[i] = castTo(g.Narrow(p.dim, off, n), p.dts[i])
		off += n
	}
	return gs
}

// catJVP is the Cat of the inputs' tangents (zeros where none).
func catJVP(p catArgs, xs []*Tensor, out *Tensor) *Tensor {
	return Cat(p.dim, tangentsAs(xs, out.DType())...)
}

// Stack joins tensors of the same shape along a new dim. Backward: each
// input gets its index of the gradient along dim, in its own dtype.
func Stack(dim int, ts ...*Tensor) *Tensor {
	for i, t := range ts {
		needAt("Stack", i, t)
	}
	for i, t := range ts {
		if i > 0 && !slices.Equal(t.data.Shape(), ts[0].data.Shape()) {
			tensor.Panicf("Stack", tensor.ErrShape, "stack expects each tensor to be equal size, but got %v at entry 0 and %v at entry %d", ts[0].data.Shape(), t.data.Shape(), i)
		}
	}
	out := tensor.Stack(dim, datasOf(ts)...)
	if dim < 0 {
		dim += out.Dim()
	}
	return stackOp.finishN(catArgs{dim: dim, dts: dtypesOf(ts)}, ts, out) // stackForward inline: dim is known after
}

func stackForward(p catArgs, xs []*Tensor) *tensor.Tensor {
	return tensor.Stack(p.dim, datasOf(xs)...)
}

func stackBackward(p catArgs, g *Tensor, _ []*Tensor) []*Tensor {
	gs := make([]*Tensor, len(p.dts))
	for i, dt := range p.dts {
		gs[i] = castTo(g.Select(p.dim, i), dt)
	}
	return gs
}

// stackJVP is the Stack of the inputs' tangents (zeros where none).
func stackJVP(p catArgs, xs []*Tensor, out *Tensor) *Tensor {
	return Stack(p.dim, tangentsAs(xs, out.DType())...)
}

// datasOf returns the data of ts.
func datasOf(ts []*Tensor) []*tensor.Tensor {
	d := make([]*tensor.Tensor, len(ts))
	for i, t := range ts {
		d[i] = t.data
	}
	return d
}

func dtypesOf(ts []*Tensor) []DType {
	d := make([]DType, len(ts))
	for i, t := range ts {
		d[i] = t.DType()
	}
	return d
}

// castTo returns t in dtype dt.
func castTo(t *Tensor, dt DType) *Tensor {
	if t.DType() != dt {
		return t.To(dt)
	}
	return t
}

// tangentsAs returns the tangents of xs (zeros where none) in dtype dt.
func tangentsAs(xs []*Tensor, dt DType) []*Tensor {
	tans := make([]*Tensor, len(xs))
	for i, t := range xs {
		tans[i] = castTo(operandTangentOrZero(t).(*Tensor), dt)
	}
	return tans
}
