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

// The two nodes an in-place write through a view records, AsStridedBackward0
// and CopySlices (PyTorch's), are declared in inplaceViewOps and written
// below. They are finished on data that exists (the view, the written
// base): only their nodes are kept, as the new histories of the view and
// its base, and the result complete makes is dropped (with the tangent it
// gets when the base is dual: forward mode refuses in-place writes through
// views, and a view's tangent does not follow its base's). Their forwards
// compute the same values out of place, for TestOpRules.

var (
	asStridedOp, copySlicesOp opDef[regionArgs]
	inplaceViewOps            []rules
)

func init() {
	asStridedOp = opDef[regionArgs]{name: "AsStridedBackward0", arity: 1, forward: asStridedForward, backward: asStridedBackward, jvp: asStridedJVP}
	copySlicesOp = opDef[regionArgs]{name: "CopySlices", arity: 2, forward: copySlicesForward, backward: copySlicesBackward, jvp: copySlicesJVP}
	inplaceViewOps = []rules{asStridedOp.done(), copySlicesOp.done()}
}

// regionArgs are the arguments of both: the region of the base a view
// covers, as the row-major position in the base (idx, Int64) of every
// element of the view, of shape vshape; the base's metadata (AsStrided);
// and a mask of the base's shape and dtype, 1 outside the region and 0 in it
// (CopySlices).
type regionArgs struct {
	idx    *Tensor
	vshape []int
	base   inMeta
	mask   *Tensor
}

// viewNode records view = base[idx] (reshaped to the view's shape) on data,
// the view, and returns its node.
func viewNode(base *Tensor, data *tensor.Tensor, idx *Tensor) *Node {
	p := regionArgs{idx: idx, vshape: data.Shape(), base: metaOf(base)}
	return asStridedOp.finish(p, one(base), data).gradFn
}

// asStridedForward is the view's values, copied.
func asStridedForward(p regionArgs, x ins) *tensor.Tensor {
	return x[0].data.Reshape(-1).Gather(0, p.idx.data).Reshape(p.vshape...)
}

// asStridedBackward scatters the gradient into a zero tensor of the base's
// shape.
func asStridedBackward(p regionArgs, g *Tensor, _ []*Tensor) []*Tensor {
	bshape := p.base.shape()
	z := wrap(tensor.Zeros(g.DType(), tensor.NumelOf(bshape)))
	return []*Tensor{z.ScatterAdd(0, p.idx, g.Reshape(-1)).Reshape(bshape...)}
}

func asStridedJVP(p regionArgs, x ins, _ *Tensor) *Tensor {
	return x[0].tangentOf().Reshape(-1).Gather(0, p.idx).Reshape(p.vshape...)
}

// copySlicesForward is the old base with the region replaced by the
// written values r: old·mask + r placed in the region.
func copySlicesForward(p regionArgs, x ins) *tensor.Tensor {
	return copySlices(p, wrap(x[0].data), wrap(x[1].data)).data
}

func copySlicesBackward(p regionArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{g.Mul(p.mask), g.Reshape(-1).Gather(0, p.idx).Reshape(p.vshape...)}
}

func copySlicesJVP(p regionArgs, x ins, _ *Tensor) *Tensor {
	return copySlices(p, operandTangentOrZero(x[0]).(*Tensor), operandTangentOrZero(x[1]).(*Tensor))
}

// copySlices is old with the region replaced by r, with agx ops.
func copySlices(p regionArgs, old, r *Tensor) *Tensor {
	z := ZerosLike(old).Reshape(-1)
	return old.Mul(p.mask).Add(z.ScatterAdd(0, p.idx, r.Reshape(-1)).Reshape(old.Shape()...))
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
	cs := copySlicesOp.finish(regionArgs{idx: idxT, vshape: vshape, mask: mask}, ins{old, r}, base.data)
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
