package agx

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/goagx/agx/tensor"
)

// Sentinel errors of the autograd layer (matched with errors.Is after Try).
var (
	// ErrGraph: misuse of the graph (backward twice, non-scalar output without a
	// gradient, a tensor that does not require grad, an unused input).
	ErrGraph = errors.New("autograd graph error")
	// ErrInplace: a tensor saved for backward was modified in place.
	ErrInplace = errors.New("inplace modification of a saved tensor")
	// ErrGradient: a backward returned gradients of the wrong number, shape or kind.
	ErrGradient = errors.New("invalid gradient")
	// ErrOnceDifferentiable: a once-differentiable Function was differentiated twice.
	ErrOnceDifferentiable = errors.New("once-differentiable function differentiated twice")
	// ErrAnomaly: anomaly detection found NaN or Inf in a backward's output.
	ErrAnomaly = errors.New("anomaly detected")
)

// Try runs f and returns the agx error it panicked with, if any: a
// *tensor.Error (errors.Is matches its sentinel), a *GradCheckError or a
// *FunctionPanicError (see tensor.AsError). Any other panic (a runtime error,
// another library's) is re-raised unchanged. It is the bridge from agx's
// panics to Go errors, for a notebook cell that wants to print the message.
func Try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := tensor.AsError(r)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	f()
	return nil
}

// Edge points at one input slot of a Node: the gradient for the tensor that was
// output Input of Node flows along it.
type Edge struct {
	Node  *Node
	Input int
}

var nodeSeq atomic.Uint64

// Node is one recorded backward step: the gradient function of an op's
// output(s). Its Next edges lead to the nodes of the op's inputs (nil where an
// input does not require grad).
type Node struct {
	name string
	next []Edge
	seq  uint64
	// The shape and dtype of a one-output node's output (a custom Function's
	// node keeps one per output in funcNode.outMeta); see outMetaAt.
	oshape []int

	// Exactly one of these describes what the node does.
	bw   func(g *Tensor, s []*Tensor) []*Tensor // a built-in op (one output)
	fn   *funcNode                              // a custom Function
	leaf *Tensor                                // AccumulateGrad: the leaf to accumulate into
	// (DelayedError: nodeExtra.errf.)

	saved    []savedVar
	nOut     int32 // packed with the flags below
	released bool
	hadSaved bool
	fast     uint8 // nonzero: bw has an allocation-free form (see fastBackward)
	odtype   tensor.DType

	// Hooks, retained grads and the anomaly call site, which few nodes have:
	// nil until one is set (read through readExtra, written through writeExtra).
	extra *nodeExtra

	// Backing arrays for the slices of a built-in op's node, which has at most
	// two inputs and one output in the common case (saves three allocations).
	backing struct {
		next  [2]Edge
		saved [2]savedVar
		dims  [3]int // the output's shape, up to 3 dims
	}
}

// nodeExtra is the part of a Node that most nodes never use.
type nodeExtra struct {
	preHooks  []*nodePreHook
	postHooks []*nodePostHook
	// tensor hooks and retained grads for each output slot (non-leaf tensors).
	outHooks [][]*hookEntry
	retain   []*Tensor

	stack string // forward call site, with anomaly detection on
	errf  string // DelayedError: differentiating the node fails with this
	// ckpt is the Checkpoint whose recomputation refills the node's saved
	// tensors (see checkpoint.go).
	ckpt *checkpointFrame
}

// noExtra is what readExtra returns for a node without hooks; never written.
var noExtra nodeExtra

// readExtra returns the node's hooks and call site for reading.
func (n *Node) readExtra() *nodeExtra {
	if n.extra != nil {
		return n.extra
	}
	return &noExtra
}

// writeExtra returns the node's hooks and call site for writing, allocating them.
func (n *Node) writeExtra() *nodeExtra {
	if n.extra == nil {
		n.extra = &nodeExtra{}
	}
	return n.extra
}

type meta struct {
	shape []int
	dtype tensor.DType
}

// Name is the node's name as PyTorch prints it: MulBackward0, SquareBackward,
// AccumulateGrad.
func (n *Node) Name() string { return n.name }

// NextFunctions returns the edges to the nodes of the op's inputs.
func (n *Node) NextFunctions() []Edge { return append([]Edge(nil), n.next...) }

// NumOutputs is the number of outputs of the forward op (gradients Node receives).
func (n *Node) NumOutputs() int { return int(n.nOut) }

// String returns "<Name>".
func (n *Node) String() string { return "<" + n.name + ">" }

// savedVar is a tensor saved for backward with the version it had when saved.
type savedVar struct {
	t        *Tensor // nil entries are allowed (SaveForBackward(nil))
	version  uint64
	gradFn   *Node // t's grad_fn when saved (in-place ops may rebase t later)
	outputNr int32
}

func newSaved(t *Tensor) savedVar {
	if t == nil {
		return savedVar{}
	}
	return savedVar{t: t, version: t.data.Version(), gradFn: t.gradFn, outputNr: t.outputNr}
}

// unpack returns the saved tensor, checking that it was not modified in place
// since it was saved. Without createGraph it is returned detached, so that
// computations in backward record nothing.
func (n *Node) unpack(i int, create bool) *Tensor { return n.unpackFor(i, create, false) }

// checkNotReleased panics with PyTorch's "Trying to backward through the
// graph a second time" when the graph pass that ran before freed the saved
// tensors n had.
func (n *Node) checkNotReleased() {
	if n.released && n.hadSaved {
		panicReleased(n)
	}
}

// panicReleased raises the error for saved tensors already freed.
func panicReleased(n *Node) {
	tensor.PanicHint(n.name, ErrGraph, "specify RetainGraph() on the first Backward/Grad call if you need to backward through the graph a second time",
		"Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call Backward() or Grad()")
}

// unpackFor is unpack; with shared, a saved tensor that does not require grad
// is returned itself rather than as a detached copy (for the built-in
// backwards, which never keep or modify their saved tensors).
func (n *Node) unpackFor(i int, create, shared bool) *Tensor {
	if n.released {
		panicReleased(n)
	}
	if n.extra != nil && n.extra.ckpt != nil {
		n.extra.ckpt.fill(create)
	}
	s := n.saved[i]
	if s.t == nil {
		return nil
	}
	if v := s.t.data.Version(); v != s.version {
		what := "a leaf"
		if s.gradFn != nil {
			what = fmt.Sprintf("output %d of %s", s.outputNr, s.gradFn.name)
		}
		tensor.PanicHint(n.name, ErrInplace, "clone the tensor before modifying it in place, or save a copy",
			"one of the variables needed for gradient computation has been modified by an inplace operation: [%v %v], which is %s, is at version %d; expected version %d instead",
			s.t.DType(), s.t.data.Shape(), what, v, s.version)
	}
	if !create {
		if shared && !s.t.RequiresGrad() {
			return s.t // already records nothing; no detached copy needed
		}
		d := &Tensor{data: s.t.data}
		if tt := s.t.tangentOf(); tt != nil {
			// Forward-over-reverse: the backward sees the saved tensor's
			// tangent, so its gradients carry tangents too.
			d.writeExtra().tangent = tt
		}
		return d
	}
	if s.t.gradFn != s.gradFn {
		// t was rebased by a later in-place op: give back the tensor as it was.
		r := &Tensor{data: s.t.data, gradFn: s.gradFn, outputNr: s.outputNr}
		if tt := s.t.tangentOf(); tt != nil {
			r.writeExtra().tangent = tt
		}
		return r
	}
	return s.t
}

func (n *Node) release() {
	if n.hadSaved {
		clear(n.saved) // the slice may be the node's inline array
		n.saved = nil
		n.released = true
	}
}

// gradEdge returns the edge along which t's gradient flows.
func gradEdge(t *Tensor) Edge {
	t.syncView()
	if t.gradFn != nil {
		return Edge{Node: t.gradFn, Input: int(t.outputNr)}
	}
	if t.requiresGrad {
		return Edge{Node: t.accumulator(), Input: 0}
	}
	return Edge{}
}

// accumulator returns the leaf's AccumulateGrad node.
func (t *Tensor) accumulator() *Node {
	x := t.writeExtra()
	if x.accum == nil {
		x.accum = &Node{name: "AccumulateGrad", leaf: t, nOut: 1, seq: nodeSeq.Add(1),
			oshape: t.data.Shape(), odtype: t.DType()}
	}
	return x.accum
}

// recordsNothing reports whether an op on these inputs records neither a
// node nor a tangent: a backward that sees it may work on the data alone.
func recordsNothing(ts ...*Tensor) bool { return !needsGrad(ts...) && !isDual(ts...) }

// needsGrad reports whether an op on these inputs records a node.
func needsGrad(ts ...*Tensor) bool {
	for _, t := range ts {
		if t != nil {
			t.syncView()
		}
		if t != nil && (t.requiresGrad || t.gradFn != nil) {
			return IsGradEnabled()
		}
	}
	return false
}

// record attaches a built-in backward to out when some input requires grad.
// bw receives the output gradient and the saved tensors (unpacked) and returns
// one gradient per input (nil for none). Non-tensor state is captured by bw.
// The engine reuses the saved-tensor slice for the next node: bw reads its
// elements but must not keep the slice itself.
func record(name string, out *tensor.Tensor, inputs []*Tensor, save []*Tensor, bw func(g *Tensor, s []*Tensor) []*Tensor) *Tensor {
	res := result(out, inputs)
	if !needsGrad(inputs...) {
		return res
	}
	n := &Node{name: name, bw: bw, nOut: 1, seq: nodeSeq.Add(1)}
	if len(inputs) <= len(n.backing.next) {
		n.next = n.backing.next[:len(inputs):len(inputs)]
	} else {
		n.next = make([]Edge, len(inputs))
	}
	for i, in := range inputs {
		if in != nil {
			n.next[i] = gradEdge(in)
		}
	}
	for _, s := range save {
		if s != nil {
			n.hadSaved = true
		}
	}
	// A node that saved only nils (Go-number or unneeded operands) has nothing
	// to free, so it can run again (as PyTorch's MulBackward1 for a scalar).
	if len(save) > 0 {
		if len(save) <= len(n.backing.saved) {
			n.saved = n.backing.saved[:len(save)] // saveOutput may append in place
		} else {
			n.saved = make([]savedVar, len(save))
		}
		for i, s := range save {
			n.saved[i] = newSaved(s)
		}
	}
	shape := out.Raw().Shape // read only: copied into the node
	if len(shape) <= len(n.backing.dims) {
		n.oshape = append(n.backing.dims[:0:len(shape)], shape...)
	} else {
		n.oshape = slices.Clone(shape)
	}
	n.odtype = out.DType()
	if anomalyEnabled.Load() {
		n.writeExtra().stack = callerStack()
	}
	res.gradFn = n
	return res
}

// result wraps out, the result of an op on inputs, without a node: linked as
// a view of the input whose storage it shares, if any.
func result(out *tensor.Tensor, inputs []*Tensor) *Tensor {
	res := &Tensor{data: out}
	for _, in := range inputs {
		if in != nil && in.data.SameStorage(out) {
			res.view = newViewInfo(in)
			break
		}
	}
	return res
}

// saveOutput saves the op's own output (after record created the node).
func saveOutput(t *Tensor) {
	if n := t.gradFn; n != nil {
		n.saved = append(n.saved, newSaved(t))
		n.hadSaved = true
	}
}

// numOutMeta is the number of outputs whose metadata the node keeps.
func (n *Node) numOutMeta() int {
	if n.fn != nil {
		return len(n.fn.outMeta)
	}
	return 1
}

// outMetaAt returns the shape and dtype of the node's output i.
func (n *Node) outMetaAt(i int) meta {
	if n.fn != nil {
		return n.fn.outMeta[i]
	}
	return meta{n.oshape, n.odtype}
}

// setOutMeta replaces the shape and dtype of the node's output i.
func (n *Node) setOutMeta(i int, m meta) {
	if n.fn != nil {
		n.fn.outMeta[i] = m
		return
	}
	n.oshape, n.odtype = m.shape, m.dtype
}
