package agx

import (
	"errors"
	"slices"

	"github.com/goagx/agx/tensor"
)

// Forward-mode automatic differentiation.
//
// A dual tensor carries, next to its value (the primal), a tangent of the
// same shape: the direction v of a directional derivative. Every built-in op
// whose inputs carry tangents gives its result the tangent J·v, computed by
// the op's forward rule (its Jacobian-vector product) as the op runs, so one
// forward pass yields f(x) and J_f(x)·v together. Custom Functions take part
// through an optional Jvp method (see Jvper).
//
// There is no dual level to open (PyTorch's fwAD.dual_level): a tangent lives
// on the Tensor object that MakeDual returns, and on the results of ops on
// it, and is gone with them. A tensor that is not dual costs the ops nothing
// but a nil check.

// ErrForwardAD: misuse of forward-mode AD (a tangent of the wrong shape or
// dtype, a custom Function without Jvp meeting a dual tensor, a Jvp that
// returns tangents of the wrong number or shape).
var ErrForwardAD = errors.New("forward-mode AD error")

// Jvper is implemented by Functions that support forward-mode AD, as a
// torch.autograd.Function with a jvp staticmethod. Jvp runs right after
// Forward, only when some input is dual, and receives one tangent per input
// (zeros for float inputs without one, nil for other inputs; with
// ctx.SetMaterializeGrads(false), nil for every input without a tangent). It
// returns one tangent per output of Forward: nil means zeros, a tangent whose
// shape broadcasts to the output's is expanded, and its dtype is cast to the
// output's.
//
// What ctx carries into Jvp: the tensors given to SaveForBackward
// (ctx.SavedTensors(), PyTorch's save_for_forward and saved_tensors in one)
// and the values stored with Set. Like Forward, Jvp sees inputs and saved
// tensors detached and records no forward tangents of its own: the tangents it
// returns are the outputs' tangents as they are. It must not call
// SaveForBackward. For an input that Forward modified in place (MarkDirty),
// the tangent Jvp returns for that output becomes the input's new tangent.
type Jvper interface {
	Jvp(ctx *Ctx, tangents ...*Tensor) []*Tensor
}

// MakeDual returns a dual tensor: primal's value (shared, and gradients flow
// back to primal when it requires grad) with the
// tangent attached. The tangent must have primal's shape and dtype, and primal
// must be floating point. The tangent is kept as it is (not copied): a tangent
// that requires grad makes the tangents computed from it differentiable.
func MakeDual(primal, tangent *Tensor) *Tensor {
	need("MakeDual", "tensor", 1, primal)
	need("MakeDual", "tangent", 2, tangent)
	if !primal.DType().IsFloat() {
		tensor.Panicf("MakeDual", ErrForwardAD, "expected a floating point primal, got %v", primal.DType())
	}
	if !slices.Equal(primal.data.Shape(), tangent.data.Shape()) {
		tensor.PanicHint("MakeDual", ErrForwardAD, "give the tangent the primal's shape",
			"Trying to set a forward gradient that has a different size than that of the original Tensor, this is not supported. Tensor is of size %v while the given forward gradient is of size %v.", primal.data.Shape(), tangent.data.Shape())
	}
	if tangent.DType() != primal.DType() {
		tensor.PanicHint("MakeDual", ErrForwardAD, "convert the tangent with To(primal.DType())",
			"expected the tangent to have the primal's dtype %v, got %v", primal.DType(), tangent.DType())
	}
	r := record("MakeDualBackward0", primal.data, []*Tensor{primal}, nil, identityBackward)
	// Not tracked as a view, so that in-place ops on the dual tensor work
	// (they write into primal's storage, whose version counter they share).
	r.view = nil
	r.writeExtra().tangent = tangent
	return r
}

func identityBackward(g *Tensor, _ []*Tensor) []*Tensor { return []*Tensor{g} }

// UnpackDual splits a dual tensor into its primal (a view of t's value
// without the tangent, through which gradients flow back to t) and its
// tangent. For a tensor without a tangent, tangent is nil.
func UnpackDual(t *Tensor) (primal, tangent *Tensor) {
	need("UnpackDual", "tensor", 1, t)
	tangent = t.tangentOf()
	if tangent == nil {
		return t, nil
	}
	return record("AliasBackward0", t.data, []*Tensor{t}, nil, identityBackward), tangent
}

// Tangent returns t's forward-mode tangent, nil when t is not dual.
func (t *Tensor) Tangent() *Tensor {
	t.self("Tangent")
	return t.tangentOf()
}

// IsDual reports whether t carries a forward-mode tangent.
func (t *Tensor) IsDual() bool {
	t.self("IsDual")
	return t.tangentOf() != nil
}

func (t *Tensor) tangentOf() *Tensor {
	if t == nil || t.extra == nil {
		return nil
	}
	return t.extra.tangent
}

// Forward rules run with tangent propagation off in their goroutine: the
// ops a rule calls on primals and tangents compute values (and record
// reverse-mode nodes as usual) but no tangents of tangents. Like NoGrad, the
// state is per goroutine (goroutineScopes, scope.go) and costs one atomic
// load while no rule runs anywhere.
var noTangentScopes = goroutineScopes{depth: map[uintptr]int32{}}

func withoutTangents(f func()) { noTangentScopes.run(f) }

func tangentsEnabled() bool { return !noTangentScopes.inside() }

// isDual reports whether an op on these inputs must compute a tangent.
func isDual(ts ...*Tensor) bool {
	for _, t := range ts {
		if t != nil && t.extra != nil && t.extra.tangent != nil {
			return tangentsEnabled()
		}
	}
	return false
}

// dualAny is isDual for an operand that may be a Go number.
func dualAny(vs ...any) bool {
	for _, v := range vs {
		if t, ok := v.(*Tensor); ok && isDual(t) {
			return true
		}
	}
	return false
}

// operandTangent returns the tangent of an operand (nil for none or a Go number).
func operandTangent(v any) *Tensor {
	if t, ok := v.(*Tensor); ok {
		return t.tangentOf()
	}
	return nil
}

// operandTangentOrZero is operandTangent, with zeros of the operand's shape (or the number 0)
// where there is none, for rules that need every operand's tangent.
func operandTangentOrZero(v any) any {
	if t, ok := v.(*Tensor); ok {
		if tt := t.tangentOf(); tt != nil {
			return tt
		}
		return ZerosLike(t)
	}
	return 0.0
}

// jvp gives out (a fresh result of an op whose inputs are dual) the tangent
// rule computes: nil means zeros; a tangent of another shape is broadcast to
// out's, and its dtype cast to out's. Non-float results get no tangent.
func jvp(out *Tensor, rule func() *Tensor) *Tensor {
	if !out.DType().IsFloat() {
		return out
	}
	var t *Tensor
	withoutTangents(func() { t = rule() })
	out.writeExtra().tangent = fitTangent("forward rule", out, t)
	return out
}

// fitTangent makes t a tangent for out: zeros for nil, broadcast to out's
// shape, cast to its dtype.
func fitTangent(who string, out, t *Tensor) *Tensor {
	if t == nil {
		return wrap(tensor.Zeros(out.DType(), out.data.Shape()...))
	}
	if s := out.data.Raw().Shape; !shapeIs(t.data, s) {
		if !expandable(t.data.Shape(), out.data.Shape()) {
			tensor.PanicHint(who, ErrForwardAD, "return a tangent of the output's shape",
				"tangent of shape %v does not match the output of shape %v", t.data.Shape(), out.data.Shape())
		}
		withoutTangents(func() { t = t.Expand(out.data.Shape()...) })
	}
	if t.DType() != out.DType() {
		withoutTangents(func() { t = t.To(out.DType()) })
	}
	return t
}

// applyJvp runs a Function's Jvp after its Forward, when some input is dual,
// and attaches the tangents to the results. It is called by ApplyN while ctx
// still holds what Forward saved.
func applyJvp(f Function, ctx *Ctx, inputs, outs, results []*Tensor) {
	jf, ok := f.(Jvper)
	if fn, isFunc := f.(Func); isFunc && fn.Jv == nil {
		ok = false
	}
	if !ok {
		tensor.PanicHint(ctx.name, ErrForwardAD, "implement Jvp(ctx, tangents...) on the Function (Jv on a Func), or pass its inputs without tangents (UnpackDual)",
			"%s has no Jvp, but an input is a dual tensor: you must implement the jvp function for a custom Function to use it with forward mode AD", ctx.name)
	}
	tans := make([]*Tensor, len(inputs))
	for i, in := range inputs {
		if in == nil {
			continue
		}
		if tt := in.tangentOf(); tt != nil {
			tans[i] = tt
		} else if ctx.materialize && in.DType().IsFloat() {
			tans[i] = ZerosLike(in)
		}
	}
	var got []*Tensor
	ctx.inJvp = true
	withoutTangents(func() { got = jf.Jvp(ctx, tans...) })
	ctx.inJvp = false
	if len(got) > len(outs) {
		k := len(got)
		for k > len(outs) && got[k-1] == nil {
			k--
		}
		got = got[:k]
	}
	if len(got) != len(outs) {
		tensor.PanicHint(ctx.name, ErrForwardAD, "return one tangent per output of Forward, nil for zeros",
			"%s: Jvp returned %d tangents for %d outputs", ctx.name, len(got), len(outs))
	}
	for i, r := range results {
		if slices.Index(results[:i], r) >= 0 {
			continue // the same output returned twice: first tangent wins
		}
		if !r.DType().IsFloat() || slices.ContainsFunc(ctx.nonDiff, func(t *Tensor) bool { return t == outs[i] || t.data == outs[i].data }) {
			continue
		}
		if got[i] != nil && !got[i].DType().IsFloat() {
			tensor.Panicf(ctx.name, ErrForwardAD, "%s: Jvp returned a %v tangent for output %d; tangents are floating point", ctx.name, got[i].DType(), i)
		}
		r.writeExtra().tangent = fitTangent(ctx.name, r, got[i])
	}
}

// detachKeepTangent is Detach keeping t's tangent: the engine detaches the
// gradients it hands out without CreateGraph, and a gradient computed from
// dual tensors keeps its tangent (forward-over-reverse).
func detachKeepTangent(t *Tensor) *Tensor {
	d := t.Detach()
	if tt := t.tangentOf(); tt != nil {
		d.writeExtra().tangent = tt
	}
	return d
}
