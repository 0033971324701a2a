package agx

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/goagx/agx/internal/gradpromise"
	"github.com/goagx/agx/tensor"
)

// Function is a custom differentiable operation, the Go form of PyTorch's
// torch.autograd.Function. Forward computes the outputs from the inputs (which it
// sees detached: nothing inside Forward is recorded) and saves what Backward
// needs on ctx. Backward receives one gradient per output and returns exactly one
// gradient per input (nil for "no gradient"). Non-tensor parameters are fields of
// the Function value. Apply a Function with Apply (one output) or ApplyN.
type Function interface {
	Forward(ctx *Ctx, inputs ...*Tensor) []*Tensor
	Backward(ctx *Ctx, gradOutputs ...*Tensor) []*Tensor
}

// Named lets a Function choose its display name. By default the name is the
// Go type's name without type arguments and without a trailing "Function", so
// that, as in PyTorch where a Function class Square records SquareBackward, a
// type SquareFunction (the Go convention when a function Square applies it)
// records SquareBackward; a type Square records SquareBackward too. The
// backward node is called Name()+"Backward". Implement Named only where the
// name should differ from that default, for example to keep the name of a
// PyTorch class that itself ends in Function.
type Named interface{ Name() string }

// OnceDifferentiable is implemented by Functions whose Backward is not itself
// differentiable (like PyTorch's @once_differentiable): differentiating their
// gradients again fails with ErrOnceDifferentiable instead of silently giving
// wrong higher derivatives. Embed agx.Once to implement it.
type OnceDifferentiable interface{ OnceDifferentiable() }

// Once can be embedded in a Function to mark it once-differentiable.
type Once struct{}

// OnceDifferentiable implements the OnceDifferentiable interface.
func (Once) OnceDifferentiable() {}

// Func is the closure style of Function for quick notebook cells:
//
//	square := agx.Func{FuncName: "Square",
//		Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor { ... },
//		Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { ... }}
//	y := agx.Apply(square, x)
type Func struct {
	FuncName string
	Fwd      func(ctx *Ctx, inputs ...*Tensor) []*Tensor
	Bwd      func(ctx *Ctx, gradOutputs ...*Tensor) []*Tensor
	// Jv is the optional forward-mode rule (see Jvper); nil: the Func
	// refuses dual inputs.
	Jv   func(ctx *Ctx, tangents ...*Tensor) []*Tensor
	Once bool // once-differentiable
}

// Forward implements Function.
func (f Func) Forward(ctx *Ctx, inputs ...*Tensor) []*Tensor { return f.Fwd(ctx, inputs...) }

// Backward implements Function.
func (f Func) Backward(ctx *Ctx, g ...*Tensor) []*Tensor { return f.Bwd(ctx, g...) }

// Jvp implements Jvper by calling Jv.
func (f Func) Jvp(ctx *Ctx, tangents ...*Tensor) []*Tensor { return f.Jv(ctx, tangents...) }

// Name implements Named.
func (f Func) Name() string {
	if f.FuncName == "" {
		return "Func"
	}
	return f.FuncName
}

// Outputs is a convenience for returning from Forward and Backward:
// return agx.Outputs(y) instead of []*agx.Tensor{y}.
func Outputs(ts ...*Tensor) []*Tensor { return ts }

// Ctx carries state from a Function's Forward to its Backward.
type Ctx struct {
	name         string
	inputs       []*Tensor // the user's inputs (with their graph)
	detached     []*Tensor // what Forward saw
	needs        []bool
	saved        []savedVar
	savedSet     bool
	savedRaw     []*Tensor
	dirty        []*Tensor
	nonDiff      []*Tensor
	materialize  bool
	values       map[string]any
	inForward    bool
	inJvp        bool
	node         *Node
	createGraph  bool
	savedVersion []uint64

	// Backing arrays of needs and, when the call records nothing (so that no
	// node keeps ctx), detached, for Functions of up to two inputs.
	backing struct {
		needs    [2]bool
		detached [2]*Tensor
	}
}

// FunctionName is the name of the Function this ctx belongs to.
func (c *Ctx) FunctionName() string { return c.name }

// SaveForBackward stores tensors (inputs, outputs or intermediates; nil entries
// allowed) for Backward. Call it once, in Forward. Saved tensors are checked on
// access: modifying one in place before Backward is an error.
func (c *Ctx) SaveForBackward(ts ...*Tensor) {
	if !c.inForward {
		tensor.Panicf(c.name, ErrGraph, "SaveForBackward can only be called in Forward")
	}
	c.savedRaw = slices.Clone(ts)
	c.savedSet = true
}

// SavedTensors returns the tensors saved by SaveForBackward, in order. It
// panics with PyTorch's messages if one was modified in place since it was saved,
// or if the graph was already freed by an earlier backward pass.
//
// In Backward, a pass without CreateGraph gets them detached (RequiresGrad
// is false), so nothing Backward computes from them is recorded; a pass with
// CreateGraph gets them with their place in the graph, so a saved input that
// requires grad still does. A Backward can use that to do cheaper work when
// it will not be differentiated (functions.ScaledSigmoid reads a saved σ(x)
// then, and recomputes it from x otherwise).
func (c *Ctx) SavedTensors() []*Tensor {
	if c.inForward || c.inJvp {
		return slices.Clone(c.savedRaw)
	}
	n := c.node
	if n == nil {
		return nil
	}
	n.checkNotReleased()
	out := make([]*Tensor, len(n.saved))
	for i := range n.saved {
		out[i] = n.unpack(i, c.createGraph)
	}
	return out
}

// NeedsInputGrad reports whether input i requires a gradient; Backward may skip
// computing the others (and return nil for them).
func (c *Ctx) NeedsInputGrad(i int) bool {
	if i < 0 || i >= len(c.needs) {
		tensor.Panicf("NeedsInputGrad", tensor.ErrIndex, "input %d out of range for %s with %d inputs", i, c.name, len(c.needs))
	}
	return c.needs[i]
}

// MarkDirty declares that Forward modified these inputs in place. Forward must
// then return them as outputs; Apply returns the caller's own input object, with
// its history rebased onto this Function.
func (c *Ctx) MarkDirty(ts ...*Tensor) { c.dirty = append(c.dirty, ts...) }

// MarkNonDifferentiable declares outputs (for example indices or masks) that have
// no gradient: they do not require grad, and Backward receives zeros (or nil, see
// SetMaterializeGrads) for them.
func (c *Ctx) MarkNonDifferentiable(ts ...*Tensor) { c.nonDiff = append(c.nonDiff, ts...) }

// SetMaterializeGrads chooses whether Backward receives zero tensors (true, the
// default) or nil for outputs that received no gradient.
func (c *Ctx) SetMaterializeGrads(on bool) { c.materialize = on }

// Set stores a non-tensor value (a shape, a flag, a scale) for Backward. Tensors
// are refused: save them with SaveForBackward so that in-place changes are
// detected and memory is released after backward.
func (c *Ctx) Set(key string, v any) {
	switch v.(type) {
	case *Tensor, *tensor.Tensor, []*Tensor, []*tensor.Tensor:
		tensor.PanicHint("Ctx.Set", tensor.ErrArg, "save tensors with SaveForBackward",
			"%s: refusing to store a tensor under %q on ctx", c.name, key)
	}
	if c.values == nil {
		c.values = map[string]any{}
	}
	c.values[key] = v
}

// Get returns a value stored with Set (nil if absent).
func (c *Ctx) Get(key string) any { return c.values[key] }

// CtxValue returns the value stored under key as a T, panicking with a clear
// message if it is missing or has another type.
func CtxValue[T any](c *Ctx, key string) T {
	v, ok := c.values[key]
	if !ok {
		tensor.Panicf("CtxValue", tensor.ErrArg, "%s: no value stored under %q", c.name, key)
	}
	t, ok := v.(T)
	if !ok {
		tensor.Panicf("CtxValue", tensor.ErrArg, "%s: value under %q is a %T, not a %s", c.name, key, v, reflect.TypeFor[T]())
	}
	return t
}

type funcNode struct {
	f         Function
	ctx       *Ctx
	once      bool
	keepsNone bool // f makes the recycling promise (gradpromise.Keeper)
	// input metadata, to validate gradients
	inMeta []meta
	inReq  []bool
	// shape and dtype of each output, to materialise zero grads; outInl backs
	// the one output most Functions have
	outMeta []meta
	outInl  [1]meta
	// inInl backs inMeta for up to two inputs, and dims the shapes of the
	// metadata while they fit (saves up to four allocations per call).
	inInl [2]meta
	dims  [8]int
	ndims int
}

// shape returns a copy of t's shape, in fn.dims while there is room.
func (fn *funcNode) shape(t *tensor.Tensor) []int {
	r := t.Dim()
	if fn.ndims+r > len(fn.dims) {
		return t.Shape()
	}
	d := fn.dims[fn.ndims : fn.ndims+r : fn.ndims+r]
	for i := range d {
		d[i] = t.Size(i)
	}
	fn.ndims += r
	return d
}

// FunctionName returns the display name of a Function value: its Name() when
// it implements Named, otherwise its type's name without type arguments and
// without a trailing "Function" (see Named); "Function" for nil.
func FunctionName(f Function) string {
	if n, ok := f.(Named); ok {
		return n.Name()
	}
	t := reflect.TypeOf(f)
	if t == nil {
		return "Function"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := t.Name()
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	if base := strings.TrimSuffix(name, "Function"); base != "" {
		name = base
	}
	if name == "" {
		name = "Function"
	}
	return name
}

// Apply runs a Function with one output and returns it.
func Apply(f Function, inputs ...*Tensor) *Tensor {
	out := ApplyN(f, inputs...)
	if len(out) != 1 {
		tensor.PanicHint("Apply", tensor.ErrArg, "use ApplyN for Functions with several outputs",
			"%s returned %d outputs", FunctionName(f), len(out))
	}
	return out[0]
}

// ApplyN runs a Function and returns all its outputs. If any input requires
// grad, the outputs record a node named <Name>Backward that calls f.Backward.
func ApplyN(f Function, inputs ...*Tensor) []*Tensor {
	if f == nil {
		tensor.Panicf("Apply", tensor.ErrArg, "nil Function")
	}
	name := FunctionName(f)
	ctx, record := newCtx(name, inputs)
	dual := isDual(inputs...)
	outs := runForward(f, ctx)
	checkDirty(ctx, outs)
	var n *Node
	if record {
		n = newFuncNode(f, ctx, inputs, len(outs))
	}
	results := wrapOutputs(ctx, n, inputs, outs)
	if dual {
		applyJvp(f, ctx, inputs, outs, results)
	}
	if n != nil && ctx.savedSet {
		saveForNode(n, ctx, inputs, outs, results)
	}
	// Drop what only Forward and this function needed: the node keeps ctx,
	// and ctx must not keep inputs and outputs alive once the saved tensors
	// are released.
	ctx.savedRaw, ctx.inputs, ctx.detached, ctx.dirty, ctx.nonDiff = nil, nil, nil, nil, nil
	return results
}

// newCtx makes the ctx of a call on inputs, with the detached inputs Forward
// sees, and reports whether the call records a node (some input requires
// grad and grad mode is on).
func newCtx(name string, inputs []*Tensor) (ctx *Ctx, record bool) {
	ctx = &Ctx{name: name, inputs: inputs, materialize: true}
	if len(inputs) <= len(ctx.backing.needs) {
		ctx.needs = ctx.backing.needs[:len(inputs):len(inputs)]
	} else {
		ctx.needs = make([]bool, len(inputs))
	}
	// As PyTorch's needs_input_grad, needs reports each input's requires_grad
	// even under NoGrad, where nothing is recorded.
	for i, in := range inputs {
		if in != nil {
			ctx.needs[i] = in.RequiresGrad()
			record = record || ctx.needs[i]
		}
	}
	record = record && IsGradEnabled()
	if !record && len(inputs) <= len(ctx.backing.detached) {
		ctx.detached = ctx.backing.detached[:len(inputs):len(inputs)]
	} else {
		ctx.detached = make([]*Tensor, len(inputs))
	}
	for i, in := range inputs {
		if in != nil {
			ctx.detached[i] = &Tensor{data: in.data}
		}
	}
	return ctx, record
}

// runForward calls f.Forward on the detached inputs and checks that it left
// f's fields alone and returned at least one output and no nil.
func runForward(f Function, ctx *Ctx) []*Tensor {
	snap := snapshotFields(f)
	ctx.inForward = true
	outs := callForward(f, ctx)
	ctx.inForward = false
	snap.check(ctx.name)
	if len(outs) == 0 {
		tensor.Panicf(ctx.name, ErrGradient, "Forward returned no outputs")
	}
	for i, o := range outs {
		if o == nil {
			tensor.Panicf(ctx.name, ErrGradient, "Forward returned nil as output %d", i)
		}
	}
	return outs
}

// inputIndex returns the index of the input that Forward saw as t, or -1.
func (c *Ctx) inputIndex(t *Tensor) int {
	for i, d := range c.detached {
		if d != nil && (d == t || d.data == t.data) {
			return i
		}
	}
	return -1
}

// containsTensor reports whether t, or a tensor on t's data, is in list.
func containsTensor(list []*Tensor, t *Tensor) bool {
	for _, x := range list {
		if x == t || (x != nil && x.data == t.data) {
			return true
		}
	}
	return false
}

// checkDirty checks that every tensor given to MarkDirty is an input that
// Forward returned.
func checkDirty(ctx *Ctx, outs []*Tensor) {
	for _, d := range ctx.dirty {
		if ctx.inputIndex(d) < 0 {
			tensor.Panicf(ctx.name, ErrGraph, "MarkDirty was given a tensor that is not an input of Forward")
		}
		if !containsTensor(outs, d) {
			tensor.PanicHint(ctx.name, ErrGraph, "return every tensor given to MarkDirty from Forward",
				"Some elements marked as dirty during the forward method were not returned as output. The inputs that are modified inplace must all be outputs of the Function.")
		}
	}
}

// newFuncNode makes the node <Name>Backward of a recorded call, with an edge
// and the metadata of each input, for nOut outputs (wrapOutputs adds their
// metadata).
func newFuncNode(f Function, ctx *Ctx, inputs []*Tensor, nOut int) *Node {
	n := &Node{name: ctx.name + "Backward", nOut: int32(nOut), seq: nodeSeq.Add(1)}
	if len(inputs) <= len(n.backing.next) {
		n.next = n.backing.next[:len(inputs):len(inputs)]
	} else {
		n.next = make([]Edge, len(inputs))
	}
	fnode := &funcNode{f: f, ctx: ctx, inReq: ctx.needs}
	if len(inputs) <= len(fnode.inInl) {
		fnode.inMeta = fnode.inInl[:len(inputs):len(inputs)]
	} else {
		fnode.inMeta = make([]meta, len(inputs))
	}
	fnode.outMeta = fnode.outInl[:0]
	_, fnode.once = f.(OnceDifferentiable)
	_, fnode.keepsNone = f.(gradpromise.Keeper)
	if fo, ok := f.(Func); ok && fo.Once {
		fnode.once = true
	}
	for i, in := range inputs {
		if in != nil {
			n.next[i] = gradEdge(in)
			fnode.inMeta[i] = meta{fnode.shape(in.data), in.DType()}
		}
	}
	n.fn = fnode
	ctx.node = n
	if anomalyEnabled.Load() {
		n.writeExtra().stack = callerStack()
	}
	return n
}

// wrapOutputs returns the caller's tensor for each output of Forward and,
// when the call records node n, attaches the differentiable ones to it.
func wrapOutputs(ctx *Ctx, n *Node, inputs, outs []*Tensor) []*Tensor {
	results := make([]*Tensor, len(outs))
	for i, o := range outs {
		var r *Tensor
		if k := slices.Index(outs[:i], o); k >= 0 && (ctx.inputIndex(o) < 0 || containsTensor(ctx.dirty, o)) {
			// The same tensor returned twice is one object, as in PyTorch: it
			// stands for the last output slot it was returned in. An input
			// returned twice without MarkDirty is not: PyTorch gives each slot
			// its own view of the input, with its own output index.
			r = results[k]
		} else if j := ctx.inputIndex(o); j >= 0 && containsTensor(ctx.dirty, o) {
			r = inputs[j]
			if n != nil && r.gradFn == nil && r.requiresGrad {
				tensor.PanicHint(ctx.name, ErrGraph, "clone the leaf first, or run under NoGrad",
					"a leaf Variable that requires grad is being used in an in-place operation")
			}
		} else {
			r = &Tensor{data: o.data}
		}
		diff := o.DType().IsFloat() && !containsTensor(ctx.nonDiff, o)
		if n != nil {
			n.fn.outMeta = append(n.fn.outMeta, meta{n.fn.shape(o.data), o.DType()})
			if diff {
				r.gradFn, r.outputNr, r.requiresGrad = n, int32(i), false
			} else if r.gradFn == nil {
				r.requiresGrad = false
			}
		}
		results[i] = r
	}
	return results
}

// saveForNode stores on n the tensors Forward gave SaveForBackward: an
// output as the caller's result, an input as the caller's tensor.
func saveForNode(n *Node, ctx *Ctx, inputs, outs, results []*Tensor) {
	if len(ctx.savedRaw) <= len(n.backing.saved) {
		n.saved = n.backing.saved[:len(ctx.savedRaw)]
	} else {
		n.saved = make([]savedVar, len(ctx.savedRaw))
	}
	for i, s := range ctx.savedRaw {
		switch {
		case s == nil:
		case slices.Contains(outs, s):
			n.saved[i] = newSaved(results[slices.Index(outs, s)])
		case slices.Contains(ctx.detached, s):
			// An input as Forward saw it: save the caller's tensor (found by
			// identity, so that an input passed twice maps to its own slot).
			n.saved[i] = newSaved(inputs[slices.Index(ctx.detached, s)])
		default:
			n.saved[i] = newSaved(s)
		}
	}
	for _, s := range n.saved {
		if s.t != nil {
			n.hadSaved = true
		}
	}
}

// backward runs the Function's Backward and validates its gradients.
func (fn *funcNode) backward(n *Node, grads []*Tensor, create bool) []*Tensor {
	ctx := fn.ctx
	anyReq := false
	for i, g := range grads {
		if g == nil && ctx.materialize {
			m := n.outMetaAt(i)
			grads[i] = wrap(tensor.Zeros(m.dtype, m.shape...))
		}
		if g != nil && g.RequiresGrad() {
			anyReq = true
		}
	}
	ctx.createGraph = create
	var in []*Tensor
	if fn.once && create {
		in = fn.backwardOnce(n, grads, anyReq)
	} else {
		in = callBackward(n, fn.f, ctx, grads)
	}
	if len(in) > len(fn.inMeta) {
		// Extra trailing nils are dropped, as PyTorch drops trailing Nones.
		k := len(in)
		for k > len(fn.inMeta) && in[k-1] == nil {
			k--
		}
		if k == len(fn.inMeta) {
			in = in[:k]
		}
	}
	if len(in) != len(fn.inMeta) {
		tensor.PanicHint(n.name, ErrGradient, "return one gradient per input of Forward, nil where there is none",
			"function %s returned an incorrect number of gradients (expected %d, got %d)", n.name, len(fn.inMeta), len(in))
	}
	for i, g := range in {
		if g == nil {
			continue
		}
		if !fn.inReq[i] {
			in[i] = nil // a gradient for an input that needs none is dropped
			continue
		}
		in[i] = validateGrad(n.name, i, g, fn.inMeta[i])
	}
	return in
}

// backwardOnce runs the Backward of a once-differentiable Function in a pass
// with CreateGraph: without recording, each gradient it returns then the
// output of a DelayedError node, so that only differentiating it again fails
// (PyTorch's once_differentiable). gradsReq reports that some incoming
// gradient requires grad.
func (fn *funcNode) backwardOnce(n *Node, grads []*Tensor, gradsReq bool) []*Tensor {
	refuseForwardOverReverse(n, grads)
	det := make([]*Tensor, len(grads))
	for i, g := range grads {
		if g != nil {
			det[i] = g.Detach()
		}
	}
	ctx := fn.ctx
	ctx.createGraph = false
	in := callBackward(n, fn.f, ctx, det)
	ctx.createGraph = true
	anyReq := gradsReq
	for _, s := range n.saved {
		if s.t != nil && s.t.RequiresGrad() {
			anyReq = true
		}
	}
	if !anyReq {
		return in
	}
	for i, g := range in {
		if g != nil {
			in[i] = delayedError(n, g, grads)
		}
	}
	return in
}

// refuseForwardOverReverse panics when a once-differentiable node's
// backward would itself be differentiated in forward mode (a gradient or a
// saved tensor carries a tangent), which the Function does not allow: better
// than gradients without their tangents.
func refuseForwardOverReverse(n *Node, grads []*Tensor) {
	dual := false
	for _, g := range grads {
		dual = dual || g.tangentOf() != nil
	}
	for _, s := range n.saved {
		dual = dual || s.t.tangentOf() != nil
	}
	if dual {
		tensor.PanicHint(n.name, ErrForwardAD, "give the Function a Backward made of agx ops (and drop Once), or use reverse over reverse",
			"trying to differentiate twice a function that was marked as once-differentiable (%s): forward over reverse needs the tangents of its backward", n.name)
	}
}

// delayedError returns g (a gradient the once-differentiable node n
// computed) as the output of a DelayedError node, whose own backward fails
// with PyTorch's message. The error node depends on everything the gradient
// depended on: n's incoming gradients and saved tensors that require grad.
func delayedError(n *Node, g *Tensor, grads []*Tensor) *Tensor {
	e := &Node{name: "DelayedError", nOut: 1, seq: nodeSeq.Add(1), next: []Edge{},
		extra:  &nodeExtra{errf: fmt.Sprintf("trying to differentiate twice a function that was marked as once-differentiable (%s)", n.name)},
		oshape: g.data.Shape(), odtype: g.DType()}
	for _, gg := range grads {
		if gg != nil && gg.RequiresGrad() {
			e.next = append(e.next, gradEdge(gg))
		}
	}
	for _, s := range n.saved {
		if s.t != nil && s.t.RequiresGrad() {
			e.next = append(e.next, gradEdge(s.t))
		}
	}
	return &Tensor{data: g.data, gradFn: e}
}

// validateGrad checks a returned gradient against its input: broadcast shapes
// are summed down, other shapes rejected, and the dtype cast to the input's.
func validateGrad(name string, i int, g *Tensor, m meta) *Tensor {
	gs := g.data.Shape()
	if !slices.Equal(gs, m.shape) {
		if !expandable(m.shape, gs) {
			tensor.PanicHint(name, ErrGradient, "the gradient must have the input's shape (or one that broadcasting reduces to it)",
				"Function %s returned an invalid gradient at index %d - got %v but expected shape compatible with %v", name, i, gs, m.shape)
		}
		g = sumTo(g, m.shape)
	}
	if !g.DType().IsFloat() {
		tensor.Panicf(name, ErrGradient, "Function %s returned an invalid gradient at index %d - expected a floating point gradient, got %v", name, i, g.DType())
	}
	if g.DType() != m.dtype {
		g = g.To(m.dtype)
	}
	return g
}

// expandable reports whether shape can be broadcast (expanded) to target.
func expandable(shape, target []int) bool {
	if len(shape) > len(target) {
		return false
	}
	off := len(target) - len(shape)
	for i, s := range shape {
		if s != 1 && s != target[off+i] {
			return false
		}
	}
	return true
}

// ErrFunctionPanic: a custom Function's Forward or Backward panicked with
// something that is not an agx error (a runtime error such as an index out of
// range, or a panic of the user's own). The error names the Function or node,
// the method and the line that panicked, and wraps the original value when it
// is an error.
var ErrFunctionPanic = errors.New("panic in a custom Function's Forward or Backward")

// FunctionPanicError is what a Forward's or Backward's non-agx panic becomes:
// Try returns it, and GradCheck reports it. errors.Is(err, ErrFunctionPanic)
// is true, and errors.As finds the original error (a runtime.Error, say) when
// it was one.
type FunctionPanicError struct {
	// Node is the backward node's name ("FBackward") for a panic in
	// Backward, the Function's name ("F") for one in Forward.
	Node   string
	Method string // "Forward" or "Backward"
	Value  any    // what the method panicked with
	At     string // the function and file:line that panicked (in a notebook, its line of cell code)
	// Created is, for a Backward panic with anomaly detection on, where the
	// node's forward was called (empty otherwise).
	Created string
}

func (e *FunctionPanicError) Error() string {
	s := fmt.Sprintf("agx: %s: %s panicked: %v", e.Node, e.Method, e.Value)
	if e.At != "" {
		s += "\n  at " + e.At
	}
	switch {
	case e.Method == "Forward":
	case e.Created != "":
		s += "\n  its forward was called at:\n" + e.Created
	default:
		s += "\n  (enable DetectAnomaly to see where its forward was called)"
	}
	return s
}

// AgxError marks it as an agx error for Try.
func (e *FunctionPanicError) AgxError() {}

// Unwrap returns ErrFunctionPanic and the panic value when it is an error.
func (e *FunctionPanicError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{ErrFunctionPanic, err}
	}
	return []error{ErrFunctionPanic}
}

// callBackward runs f.Backward, turning a panic that is not an agx error into
// a *FunctionPanicError naming the node. The deferred function costs a few
// nanoseconds when nothing panics.
func callBackward(n *Node, f Function, ctx *Ctx, grads []*Tensor) []*Tensor {
	defer func() {
		if r := recover(); r != nil {
			rethrowNamed(r, &FunctionPanicError{Node: n.name, Method: "Backward", Created: n.readExtra().stack})
		}
	}()
	return f.Backward(ctx, grads...)
}

// callForward runs f.Forward as callBackward runs Backward, naming the
// Function in what a non-agx panic becomes.
func callForward(f Function, ctx *Ctx) []*Tensor {
	defer func() {
		if r := recover(); r != nil {
			rethrowNamed(r, &FunctionPanicError{Node: ctx.name, Method: "Forward"})
		}
	}()
	return f.Forward(ctx, ctx.detached...)
}

// rethrowNamed panics again with r when it is an agx error (already named),
// and otherwise with e carrying r and the line that panicked. It must be
// called from the deferred function that recovered r.
func rethrowNamed(r any, e *FunctionPanicError) {
	if _, ok := tensor.AsError(r); ok {
		panic(r)
	}
	e.Value, e.At = r, panicSite()
	panic(e)
}

// panicSite returns the first frame below the runtime's panic machinery, from
// inside a deferred recover: the function and line that panicked.
func panicSite() string {
	pcs := make([]uintptr, 32)
	k := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:k])
	seenPanic := false
	for {
		f, more := frames.Next()
		if f.Function == "runtime.gopanic" {
			seenPanic = true
		} else if seenPanic && !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s (%s)", f.Function, frameLocation(f.File, f.Line))
		}
		if !more {
			return ""
		}
	}
}
