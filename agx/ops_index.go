package agx

import "github.com/goagx/agx/tensor"

// The index ops. Each one's rules are declared in indexOps (init, below) and
// written after its method. The index tensors (Int64) are arguments, not
// inputs: no gradient flows to them.

var (
	gatherOp      opDef[gatherArgs]
	scatterAddOp  opDef[scatterArgs]
	scatterOp     opDef[scatterArgs]
	indexSelectOp opDef[indexSelectArgs]
	indexOps      []rules
)

func init() {
	gatherOp = opDef[gatherArgs]{name: "GatherBackward0", arity: 1, forward: gatherForward, backward: gatherBackward, dataBackward: gatherDataBackward, jvp: gatherJVP}
	scatterAddOp = opDef[scatterArgs]{name: "ScatterAddBackward0", arity: 2, forward: scatterAddForward, backward: scatterAddBackward, jvp: scatterAddJVP}
	scatterOp = opDef[scatterArgs]{name: "ScatterBackward0", arity: 2, forward: scatterForward, backward: scatterBackward, jvp: scatterJVP}
	indexSelectOp = opDef[indexSelectArgs]{name: "IndexSelectBackward0", arity: 1, forward: indexSelectForward, backward: indexSelectBackward, jvp: indexSelectJVP}

	indexOps = []rules{gatherOp.done(), scatterAddOp.done(), scatterOp.done(), indexSelectOp.done()}
}

// Gather picks values along dim at index (Int64, same rank as t):
// out[i][j] = t[index[i][j]][j] for dim 0. Backward: the gradient is
// scatter-added back to the gathered positions.
func (t *Tensor) Gather(dim int, index *Tensor) *Tensor {
	t.self("Gather")
	need("Gather", "index", 3, index)
	return gatherOp.run(gatherArgs{dim, index.data, t.data.Shape()}, one(t))
}

// gatherArgs are Gather's dim and index, and the input's shape.
type gatherArgs struct {
	dim   int
	idx   *tensor.Tensor
	shape []int
}

func gatherForward(p gatherArgs, x ins) *tensor.Tensor { return x[0].data.Gather(p.dim, p.idx) }

func gatherBackward(p gatherArgs, g *Tensor, _ []*Tensor) []*Tensor {
	z := wrap(tensor.Zeros(g.DType(), p.shape...))
	return []*Tensor{z.ScatterAdd(p.dim, wrap(p.idx), g)}
}

// gatherDataBackward adds into the zeros in place, not into a copy.
func gatherDataBackward(p gatherArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{wrap(tensor.Zeros(g.DType(), p.shape...).ScatterAddInPlace(p.dim, p.idx, g.data))}
}

func gatherJVP(p gatherArgs, x ins, _ *Tensor) *Tensor {
	return x[0].tangentOf().Gather(p.dim, wrap(p.idx))
}

// ScatterAdd returns a copy of t with src added at index along dim. Backward:
// t gets the gradient unchanged, src gets it gathered at index.
func (t *Tensor) ScatterAdd(dim int, index, src *Tensor) *Tensor {
	t.self("ScatterAdd")
	need("ScatterAdd", "index", 3, index)
	need("ScatterAdd", "src", 4, src)
	return scatterAddOp.run(scatterArgs{dim: dim, idx: index.data}, ins{t, src})
}

// scatterArgs are ScatterAdd's and Scatter's dim and index, and (Scatter)
// the metadata of src.
type scatterArgs struct {
	dim int
	idx *tensor.Tensor
	ms  inMeta
}

func scatterAddForward(p scatterArgs, x ins) *tensor.Tensor {
	return x[0].data.ScatterAdd(p.dim, p.idx, x[1].data)
}

func scatterAddBackward(p scatterArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{g, g.Gather(p.dim, wrap(p.idx))}
}

func scatterAddJVP(p scatterArgs, x ins, _ *Tensor) *Tensor {
	return operandTangentOrZero(x[0]).(*Tensor).ScatterAdd(p.dim, wrap(p.idx), operandTangentOrZero(x[1]).(*Tensor))
}

// Scatter returns a copy of t with src written at index along dim. Backward:
// t's gradient is zero where it was overwritten; src gets the gradient gathered
// at index.
func (t *Tensor) Scatter(dim int, index, src *Tensor) *Tensor {
	t.self("Scatter")
	need("Scatter", "index", 3, index)
	need("Scatter", "src", 4, src)
	return scatterOp.run(scatterArgs{dim, index.data, metaOf(src)}, ins{t, src})
}

func scatterForward(p scatterArgs, x ins) *tensor.Tensor {
	return x[0].data.Scatter(p.dim, p.idx, x[1].data)
}

func scatterBackward(p scatterArgs, g *Tensor, _ []*Tensor) []*Tensor {
	zeros := wrap(tensor.Zeros(g.DType(), p.ms.shape()...))
	return []*Tensor{g.Scatter(p.dim, wrap(p.idx), zeros), g.Gather(p.dim, wrap(p.idx))}
}

func scatterJVP(p scatterArgs, x ins, _ *Tensor) *Tensor {
	return operandTangentOrZero(x[0]).(*Tensor).Scatter(p.dim, wrap(p.idx), operandTangentOrZero(x[1]).(*Tensor))
}

// IndexSelect picks the entries index (1-D Int64) along dim.
// Backward: the gradient is added back at those entries.
func (t *Tensor) IndexSelect(dim int, index *Tensor) *Tensor {
	t.self("IndexSelect")
	need("IndexSelect", "index", 3, index)
	if index.Dim() != 1 {
		tensor.Panicf("IndexSelect", tensor.ErrShape, "index must be 1-D, got shape %v", index.Shape())
	}
	shape := t.data.Shape()
	if dim < 0 {
		dim += len(shape)
	}
	out := t.data.IndexSelect(dim, index.data)
	// The same selection as a gather with the index expanded over the other dims.
	view := make([]int, len(shape))
	for i := range view {
		view[i] = 1
	}
	view[dim] = index.Numel()
	idx := index.data.Reshape(view...).Expand(out.Shape()...)
	return indexSelectOp.finish(indexSelectArgs{gatherArgs{dim, idx, shape}, index.data}, one(t), out)
}

// indexSelectArgs are IndexSelect's: its index expanded for a gather, and
// as given.
type indexSelectArgs struct {
	gatherArgs
	index *tensor.Tensor
}

func indexSelectForward(p indexSelectArgs, x ins) *tensor.Tensor {
	return x[0].data.IndexSelect(p.dim, p.index)
}

func indexSelectBackward(p indexSelectArgs, g *Tensor, s []*Tensor) []*Tensor {
	return gatherBackward(p.gatherArgs, g, s)
}

func indexSelectJVP(p indexSelectArgs, x ins, _ *Tensor) *Tensor {
	return x[0].tangentOf().IndexSelect(p.dim, wrap(p.index))
}

// OneHot encodes Int64 class indices as a tensor with a new last dim of size
// numClasses (-1: max index + 1). The result is Int64 and has no gradient; cast
// it with To(agx.Float32) to use it in arithmetic.
func OneHot(index *Tensor, numClasses int) *Tensor {
	need("OneHot", "input", 1, index)
	return wrap(tensor.OneHot(index.data, numClasses))
}
