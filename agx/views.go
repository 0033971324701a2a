package agx

import "github.com/goagx/agx/tensor"

// In-place writes through views. A tensor produced by a view op (Narrow,
// Select, Reshape, Transpose, ...) shares storage with its base, the first
// tensor of that storage in the chain of view ops. Writing into the view in
// place changes the base too, so, as PyTorch's CopySlices does, the base's
// history is rebased onto a node that routes the gradient of the written
// region to the in-place op and the rest to the base's old history; the view's
// history then becomes "that region of the new base". Other views of the same
// base catch up lazily (syncView) the next time they are used.

// viewInfo ties a view to its base and to the base's history its own history
// was derived from.
type viewInfo struct {
	base   *Tensor
	baseFn *Node
}

// newViewInfo returns the view record for an op output sharing in's storage.
func newViewInfo(in *Tensor) *viewInfo {
	base := in
	if in.view != nil {
		base = in.view.base
	}
	return &viewInfo{base: base, baseFn: base.gradFn}
}

// storageOffsets lists the storage offset of every element of t, row-major.
func storageOffsets(t *tensor.Tensor) []int {
	shape, strides := t.Shape(), t.Strides()
	n := t.Numel()
	offs := make([]int, n)
	pos := make([]int, len(shape))
	for i := 0; i < n; i++ {
		off := t.Offset()
		for d := range shape {
			off += pos[d] * strides[d]
		}
		offs[i] = off
		for d := len(shape) - 1; d >= 0; d-- {
			pos[d]++
			if pos[d] < shape[d] {
				break
			}
			pos[d] = 0
		}
	}
	return offs
}

// viewIndex returns, for every element of view (row-major), the row-major
// position of the base element it shares memory with; ok is false when an
// element of either is not uniquely addressed (expanded dims).
func viewIndex(base, view *tensor.Tensor) (idx []int64, ok bool) {
	at := make(map[int]int64, base.Numel())
	for i, off := range storageOffsets(base) {
		if _, dup := at[off]; dup {
			return nil, false
		}
		at[off] = int64(i)
	}
	idx = make([]int64, view.Numel())
	seen := make(map[int64]bool, len(idx))
	for i, off := range storageOffsets(view) {
		p, found := at[off]
		if !found || seen[p] {
			return nil, false
		}
		seen[p] = true
		idx[i] = p
	}
	return idx, true
}

// viewNode records view = base[idx] (reshaped to the view's shape) on data:
// its backward scatters the gradient into a zero tensor of the base's shape.
func viewNode(base *Tensor, data *tensor.Tensor, idx *Tensor) *Node {
	bshape := base.data.Shape()
	n := base.Numel()
	r := record("AsStridedBackward0", data, []*Tensor{base}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		z := wrap(tensor.Zeros(g.DType(), n))
		return []*Tensor{z.ScatterAdd(0, idx, g.Reshape(-1)).Reshape(bshape...)}
	})
	return r.gradFn
}

// syncView re-derives a view's history from its base when the base's history
// changed (an in-place write through the base or another view).
func (t *Tensor) syncView() {
	v := t.view
	if v == nil || v.base.gradFn == v.baseFn || v.base.gradFn == nil || t.requiresGrad || !IsGradEnabled() {
		return
	}
	idx, ok := viewIndex(v.base.data, t.data)
	if !ok {
		return
	}
	t.gradFn, t.outputNr = viewNode(v.base, t.data, wrap(tensor.FromSlice(idx, len(idx)))), 0
	v.baseFn = v.base.gradFn
	if t.retainsGrad {
		t.gradFn.setRetain(t)
	}
}

// inplaceView writes r (the recorded result of an in-place op on the view t)
// into t and rebases t's base and t.
func (t *Tensor) inplaceView(name string, r *Tensor) {
	base := t.view.base
	idx, ok := viewIndex(base.data, t.data)
	if !ok {
		tensor.PanicHint(name, ErrGraph, "clone the tensor before modifying it in place",
			"unsupported operation: more than one element of the written-to tensor refers to a single memory location")
	}
	idxT := wrap(tensor.FromSlice(idx, len(idx)))
	vshape := t.data.Shape()
	m := make([]float64, base.Numel())
	for i := range m {
		m[i] = 1
	}
	for _, p := range idx {
		m[p] = 0
	}
	mask := wrap(tensor.FromSlice(m, len(m)).To(base.DType()).Reshape(base.data.Shape()...))
	old := &Tensor{data: base.data, gradFn: base.gradFn, outputNr: base.outputNr, requiresGrad: base.requiresGrad}
	t.data.CopyFrom(r.data)
	cs := record("CopySlices", base.data, []*Tensor{old, r}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{g.Mul(mask), g.Reshape(-1).Gather(0, idxT).Reshape(vshape...)}
	})
	base.gradFn, base.outputNr, base.requiresGrad = cs.gradFn, 0, false
	if base.retainsGrad {
		base.gradFn.setRetain(base)
	}
	t.gradFn, t.outputNr, t.requiresGrad = viewNode(base, t.data, idxT), 0, false
	t.view.baseFn = base.gradFn
	if t.retainsGrad {
		t.gradFn.setRetain(t)
	}
}
