package agx

import "github.com/goagx/agx/tensor"

// Gather picks values along dim at index (Int64, same rank as t):
// out[i][j] = t[index[i][j]][j] for dim 0. Backward: the gradient is
// scatter-added back to the gathered positions.
func (t *Tensor) Gather(dim int, index *Tensor) *Tensor {
	t.self("Gather")
	need("Gather", "index", 3, index)
	idx := index.data
	shape := t.data.Shape()
	r := record("GatherBackward0", t.data.Gather(dim, idx), []*Tensor{t}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		if recordsNothing(g) {
			// nothing to record: add into the zeros in place, not a copy
			return []*Tensor{wrap(tensor.Zeros(g.DType(), shape...).ScatterAddInPlace(dim, idx, g.data))}
		}
		z := wrap(tensor.Zeros(g.DType(), shape...))
		return []*Tensor{z.ScatterAdd(dim, wrap(idx), g)}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().Gather(dim, index) })
	}
	return r
}

// ScatterAdd returns a copy of t with src added at index along dim. Backward:
// t gets the gradient unchanged, src gets it gathered at index.
func (t *Tensor) ScatterAdd(dim int, index, src *Tensor) *Tensor {
	t.self("ScatterAdd")
	need("ScatterAdd", "index", 3, index)
	need("ScatterAdd", "src", 4, src)
	idx := index.data
	r := record("ScatterAddBackward0", t.data.ScatterAdd(dim, idx, src.data), []*Tensor{t, src}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{g, g.Gather(dim, wrap(idx))}
	})
	if isDual(t, src) {
		jvp(r, func() *Tensor {
			return operandTangentOrZero(t).(*Tensor).ScatterAdd(dim, index, operandTangentOrZero(src).(*Tensor))
		})
	}
	return r
}

// Scatter returns a copy of t with src written at index along dim. Backward:
// t's gradient is zero where it was overwritten; src gets the gradient gathered
// at index.
func (t *Tensor) Scatter(dim int, index, src *Tensor) *Tensor {
	t.self("Scatter")
	need("Scatter", "index", 3, index)
	need("Scatter", "src", 4, src)
	idx := index.data
	ms := metaOf(src)
	r := record("ScatterBackward0", t.data.Scatter(dim, idx, src.data), []*Tensor{t, src}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		zeros := wrap(tensor.Zeros(g.DType(), ms.shape()...))
		return []*Tensor{g.Scatter(dim, wrap(idx), zeros), g.Gather(dim, wrap(idx))}
	})
	if isDual(t, src) {
		jvp(r, func() *Tensor {
			return operandTangentOrZero(t).(*Tensor).Scatter(dim, index, operandTangentOrZero(src).(*Tensor))
		})
	}
	return r
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
	full := out.Shape()
	idx := index.data.Reshape(view...).Expand(full...)
	r := record("IndexSelectBackward0", out, []*Tensor{t}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		z := wrap(tensor.Zeros(g.DType(), shape...))
		return []*Tensor{z.ScatterAdd(dim, wrap(idx), g)}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().IndexSelect(dim, index) })
	}
	return r
}

// OneHot encodes Int64 class indices as a tensor with a new last dim of size
// numClasses (-1: max index + 1). The result is Int64 and has no gradient; cast
// it with To(agx.Float32) to use it in arithmetic.
func OneHot(index *Tensor, numClasses int) *Tensor {
	need("OneHot", "input", 1, index)
	return wrap(tensor.OneHot(index.data, numClasses))
}
