package agx

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/goagx/agx/tensor"
)

// DType aliases so that notebook code needs only the agx import.
type DType = tensor.DType

// The element types.
const (
	Float32 = tensor.Float32
	Float64 = tensor.Float64
	Bool    = tensor.Bool
	Int64   = tensor.Int64
)

// Tensor is a tensor.Tensor that takes part in automatic differentiation. A leaf
// (created by the user) can require gradients; the result of a differentiable op
// on tensors that require gradients records the op's backward Node as its GradFn.
type Tensor struct {
	data   *tensor.Tensor
	grad   *Tensor
	gradFn *Node        // nil for leaves
	view   *viewInfo    // set when t shares storage with the input of the op that made it
	extra  *tensorExtra // leaf node, hooks and name, which few tensors have
	// The small fields last, packed together (tiny tensors are made by the
	// million: the struct is 48 bytes).
	outputNr     int32 // which output of gradFn this tensor is
	requiresGrad bool  // leaves only; non-leaves require grad iff gradFn != nil
	retainsGrad  bool
}

// tensorExtra is the part of a Tensor that most tensors never use.
type tensorExtra struct {
	accum *Node // the AccumulateGrad node of a leaf, created on first use
	// tangent is the forward-mode tangent of a dual tensor (see MakeDual).
	tangent *Tensor
	hooks   []*hookEntry
	name    string
	// gradPooled is set while grad's buffer belongs to the engine alone: a
	// backward pass allocated it for this tensor only (as a gradient that
	// reached no other slot, or as the sum of two), and no one has been
	// handed it since (Grad clears the flag). The next pass may then add
	// into it in place, and ZeroGrad recycles it.
	gradPooled atomic.Bool
}

// noTensorExtra is what readExtra returns for a tensor without one; never written.
var noTensorExtra tensorExtra

// readExtra returns the tensor's leaf node, hooks and name for reading.
func (t *Tensor) readExtra() *tensorExtra {
	if t.extra != nil {
		return t.extra
	}
	return &noTensorExtra
}

// writeExtra returns them for writing, allocating them.
func (t *Tensor) writeExtra() *tensorExtra {
	if t.extra == nil {
		t.extra = &tensorExtra{}
	}
	return t.extra
}

// New wraps a tensor.Tensor as a leaf that does not require gradients. The data
// is shared, not copied.
func New(t *tensor.Tensor) *Tensor {
	if t == nil {
		tensor.Panicf("New", tensor.ErrArg, "nil tensor")
	}
	return &Tensor{data: t}
}

func wrap(t *tensor.Tensor) *Tensor { return &Tensor{data: t} }

// Data returns the underlying tensor.Tensor (shared, not copied). Writing to it
// bypasses autograd; call BumpVersion afterwards so saved-tensor checks see it.
func (t *Tensor) Data() *tensor.Tensor {
	t.self("Data")
	return t.data
}

// RequiresGrad reports whether gradients flow to or through t.
func (t *Tensor) RequiresGrad() bool {
	t.self("RequiresGrad")
	t.syncView()
	return t.requiresGrad || t.gradFn != nil
}

// SetRequiresGrad marks a leaf as requiring gradients (or not) and returns it, so
// that it can be chained: x := agx.FromSlice(...).SetRequiresGrad(true).
func (t *Tensor) SetRequiresGrad(on bool) *Tensor {
	t.self("SetRequiresGrad")
	if t.gradFn != nil {
		tensor.PanicHint("SetRequiresGrad", ErrGraph, "call Detach() to get a leaf that shares the data",
			"you can only change requires_grad flags of leaf variables (this tensor has grad_fn=<%s>)", t.gradFn.Name())
	}
	if on && !t.DType().IsFloat() {
		tensor.Panicf("SetRequiresGrad", tensor.ErrDType, "only Tensors of floating point dtype can require gradients (got %v)", t.DType())
	}
	t.requiresGrad = on
	return t
}

// IsLeaf reports whether t was created by the user rather than by a recorded op.
func (t *Tensor) IsLeaf() bool {
	t.self("IsLeaf")
	return t.gradFn == nil
}

// GradFn returns the backward node that produced t, or nil for a leaf.
func (t *Tensor) GradFn() *Node {
	t.self("GradFn")
	t.syncView()
	return t.gradFn
}

// OutputNr is the index of t among its GradFn's outputs.
func (t *Tensor) OutputNr() int {
	t.self("OutputNr")
	return int(t.outputNr)
}

// Grad returns the accumulated gradient of a leaf (or of a non-leaf after
// RetainGrad), or nil when none has been computed.
func (t *Tensor) Grad() *Tensor {
	t.self("Grad")
	if x := t.extra; x != nil && x.gradPooled.Load() {
		// From now on the caller may keep the gradient: the next pass
		// adds into a new tensor, and ZeroGrad leaves the memory to the
		// collector (PyTorch likewise accumulates out of place while the
		// gradient has other references).
		x.gradPooled.Store(false)
	}
	return t.grad
}

// BorrowGrad calls f with the accumulated gradient (nil when there is none)
// without handing it out as Grad does: f may read it, but must neither keep
// it (nor a view of it, nor its Data) after it returns nor write into it.
// The gradient then stays the engine's own, so the next pass may add into
// it in place and ZeroGrad may recycle its memory (see ZeroGrad).
// Optimizers read gradients this way.
func (t *Tensor) BorrowGrad(f func(g *Tensor)) {
	t.self("BorrowGrad")
	f(t.grad)
}

// SetGrad replaces the accumulated gradient (nil clears it).
func (t *Tensor) SetGrad(g *Tensor) {
	t.self("SetGrad")
	if g != nil && !slices.Equal(g.data.Shape(), t.data.Shape()) {
		tensor.Panicf("SetGrad", tensor.ErrShape, "assigned grad has shape %v but the tensor has shape %v", g.data.Shape(), t.data.Shape())
	}
	t.setGrad(g, false)
}

// ZeroGrad clears the accumulated gradient (sets it to nil, as PyTorch's
// zero_grad(set_to_none=True) does).
//
// A gradient that a backward pass allocated for this tensor alone, and that
// no one has been handed since (by Grad), has no other reference: ZeroGrad
// then gives its memory back to the tensor package, and the next result of
// the same size reuses it while it is still in cache, as PyTorch's allocator
// reuses the block that `p.grad = None` frees. A gradient that Grad has
// returned is left to the collector, since the caller may still hold it.
func (t *Tensor) ZeroGrad() {
	t.self("ZeroGrad")
	if x := t.extra; x != nil && x.gradPooled.Load() && t.grad != nil {
		tensor.Recycle(t.grad.data)
	}
	t.setGrad(nil, false)
}

// setGrad replaces the gradient; pooled: its buffer belongs to the engine
// alone (see tensorExtra.gradPooled).
func (t *Tensor) setGrad(g *Tensor, pooled bool) {
	t.grad = g
	if pooled {
		t.writeExtra().gradPooled.Store(true)
	} else if x := t.extra; x != nil && x.gradPooled.Load() {
		x.gradPooled.Store(false)
	}
}

// RetainGrad makes a non-leaf keep its gradient in Grad() after backward.
func (t *Tensor) RetainGrad() *Tensor {
	t.self("RetainGrad")
	if t.gradFn == nil {
		if !t.requiresGrad {
			tensor.Panicf("RetainGrad", ErrGraph, "can't retain_grad on Tensor that has requires_grad=False")
		}
		return t
	}
	t.retainsGrad = true
	t.gradFn.setRetain(t)
	return t
}

// Detach returns a leaf sharing t's data (and version counter) that does not
// require gradients.
func (t *Tensor) Detach() *Tensor {
	t.self("Detach")
	return &Tensor{data: t.data}
}

// SetName gives the tensor a name shown in graph exports.
func (t *Tensor) SetName(name string) *Tensor {
	t.self("SetName")
	t.writeExtra().name = name
	return t
}

// Name is the name set with SetName.
func (t *Tensor) Name() string {
	t.self("Name")
	return t.readExtra().name
}

// Shape returns a copy of the shape.
func (t *Tensor) Shape() []int {
	t.self("Shape")
	return t.data.Shape()
}

// Dim is the number of dimensions.
func (t *Tensor) Dim() int {
	t.self("Dim")
	return t.data.Dim()
}

// Size is the size of dim d (negative counts from the end).
func (t *Tensor) Size(d int) int {
	t.self("Size")
	return t.data.Size(d)
}

// Numel is the number of elements.
func (t *Tensor) Numel() int {
	t.self("Numel")
	return t.data.Numel()
}

// DType is the element type.
func (t *Tensor) DType() DType {
	t.self("DType")
	return t.data.DType()
}

// Version counts in-place writes to t's storage (shared with its views).
func (t *Tensor) Version() uint64 {
	t.self("Version")
	return t.data.Version()
}

// BumpVersion records an in-place write made through Data().
func (t *Tensor) BumpVersion() {
	t.self("BumpVersion")
	t.data.BumpVersion()
}

// Item returns the single element of t as a float64.
func (t *Tensor) Item() float64 {
	t.self("Item")
	return t.data.Item()
}

// Float64s returns the elements in row-major order as float64.
func (t *Tensor) Float64s() []float64 {
	t.self("Float64s")
	return t.data.Float64s()
}

// String prints like PyTorch: tensor([4., 6.], grad_fn=<MulBackward0>).
func (t *Tensor) String() string {
	switch {
	case t.gradFn != nil:
		return t.data.StringWith(fmt.Sprintf("grad_fn=<%s>", t.gradFn.Name()))
	case t.requiresGrad:
		return t.data.StringWith("requires_grad=True")
	}
	return t.data.String()
}

// need panics with ErrArg when t, argument arg (at position pos, from 1) of
// op, is nil: the op and the argument are named, as in PyTorch's "argument
// 'input' (position 1) must be Tensor, not NoneType".
func need(op, arg string, pos int, t *Tensor) {
	if t == nil {
		tensor.Panicf(op, tensor.ErrArg, "argument '%s' (position %d) must be a Tensor, not nil", arg, pos)
	}
}

// needAt is need for element i of a list argument ("tensors", as PyTorch's
// torch.cat names it).
func needAt(op string, i int, t *Tensor) {
	if t == nil {
		tensor.Panicf(op, tensor.ErrArg, "expected a Tensor as element %d in argument 'tensors', but got nil", i)
	}
}

// self is need for the receiver of a method, PyTorch's "self".
func (t *Tensor) self(op string) {
	if t == nil {
		tensor.Panicf(op, tensor.ErrArg, "argument 'self' (position 1) must be a Tensor, not nil")
	}
}
