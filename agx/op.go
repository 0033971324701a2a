package agx

import "github.com/goagx/agx/tensor"

// Built-in ops are declared as tables of opDef values: one value per op,
// naming its rules side by side, each a named function:
//
//	expOp = opDef[noArgs]{name: "ExpBackward0", arity: 1, forward: expForward,
//		save: saveNothing, saveOut: true, backward: expBackward, jvp: expJVP}
//
// The op's public function or method checks its arguments and calls run
// (or finish, when it computed the forward itself; finishN for an op of
// any number of inputs, Cat and Stack). All end in complete, the one
// place that decides whether to record a node (some input requires grad and
// grad mode is on) and whether to compute a tangent (some input is dual). A
// node's backward shows in stack traces by its rule's name
// (agx.mulBackward), under the opDef's bind. The tables are filled in init
// functions, because the rules call ops that read them: unaryOps, arithOps,
// reduceOps, shapeOps (the views and reshapes, Cat, Stack), indexOps,
// matmulOps, batchNormOps and inplaceViewOps (the nodes of an in-place
// write through a view). TestOpRules goes through every table and
// checks each op's rules against each other.
//
// To add an op: write its forward, backward (with agx ops, so that it can be
// differentiated again) and forward rule as named functions next to its
// public method, declare its opDef in the file's init and list it in the
// file's table, and call run from the method. TestOpRules then checks it:
// an op with arguments or more than one input needs a case in ruleCases
// (op_rules_test.go), whose inputs should avoid the points where the op is
// not differentiable. The op still wants its table case (ops_cases_test.go)
// for values, GradCheck and the PyTorch oracle.
//
// What records a node without an opDef, and why:
//   - MakeDual and UnpackDual (forward.go), where forward mode starts and
//     ends. MakeDual's result gets the tangent it is given, and UnpackDual's
//     primal none though its input has one: neither is a forward rule
//     computing J v from the inputs' tangents, which is what complete runs
//     when an input is dual. Their node's backward is the identity
//     (identityBackward); TestOpRules checks it and the tangents they give.
//   - Ops composed from others (Std, GELUTanh, the losses, BatchNorm off
//     the CPU, ...) record the nodes of the ops they call, whose rules are
//     theirs; custom Functions record through Apply (function.go).

// ins holds an op's tensor inputs, in order; nil for an operand that is a Go
// number (or an optional tensor left out, as BatchNorm's weight), or past
// the op's arity. An array, so that passing it to a rule allocates nothing;
// of three, for BatchNorm's input, weight and bias.
type ins = [3]*Tensor

// manyInputs is the arity of an op of any number of inputs (Cat, Stack). Its
// forward and forward rule take the inputs as a slice (forwardN, jvpN), and
// it saves none.
const manyInputs = -1

// noArgs is the parameter type of an op without non-tensor arguments.
type noArgs struct{}

// backwardFn is a node's backward as the engine calls it: the output
// gradient and the saved tensors (unpacked) in, one gradient per input out.
type backwardFn = func(g *Tensor, s []*Tensor) []*Tensor

// opDef declares a built-in differentiable op. P holds what the op keeps of
// its non-tensor arguments (a bound, a dtype, the metadata of its operands
// for the reduction of broadcast gradients); noArgs for none.
type opDef[P any] struct {
	// name is the node's name, PyTorch's ("ExpBackward0").
	name string
	// arity is the number of tensor inputs (1 to 3, or manyInputs); the
	// node has one gradient edge per input.
	arity int
	// forward computes the result's data; fresh says that it is always new
	// storage, never a view of an input (no view link to look for).
	// forwardN is forward for arity manyInputs.
	forward  func(p P, x ins) *tensor.Tensor
	forwardN func(p P, xs []*Tensor) *tensor.Tensor
	fresh    bool
	// save picks what backward needs of the inputs (nil: nothing), in the
	// order backward reads them; saveOut appends the result.
	// saves, where set, is how many of them the node keeps (the first), when
	// fewer than the inputs (BatchNorm's x and weight, not its bias).
	save    func(x ins) ins
	saves   int
	saveOut bool
	// backward is the graph backward, written with agx ops so that it can be
	// differentiated again: from the output gradient g and the saved tensors
	// s, one gradient per input (nil for none).
	backward func(p P, g *Tensor, s []*Tensor) []*Tensor
	// dataBackward, where there is one, computes the same gradients on the
	// data alone (fused kernels, fewer passes); the node uses it when neither
	// g nor a saved tensor records anything. It returns nil to leave the case
	// to backward.
	dataBackward func(p P, g *Tensor, s []*Tensor) []*Tensor
	// jvp is the forward-mode rule: the result's tangent from the inputs'
	// (x[i].tangentOf(), nil for zeros), the inputs and the result out.
	// nil means zeros. jvpN is jvp for arity manyInputs.
	jvp  func(p P, x ins, out *Tensor) *Tensor
	jvpN func(p P, xs []*Tensor, out *Tensor) *Tensor
	// prepare, where set, completes the arguments when the op records: with
	// what only backward needs (such as the operands' metadata), so that
	// calls that record nothing do not pay for it.
	prepare func(p P, x ins) P
	// shared, where set, returns a backward shared by all nodes of the op
	// (with its fast kind, see ops_fast.go) when the call needs no state of
	// its own, or nil.
	shared func(x ins, out *tensor.Tensor) (backwardFn, uint8)

	bound backwardFn // backward bound once, for P = noArgs
}

// rules is what TestOpRules sees of an opDef of any P.
type rules interface {
	opName() string
}

func (d *opDef[P]) opName() string { return d.name }

// saveNothing, saveInputs: the common save rules.
func saveInputs(x ins) ins { return x }

var saveNothing func(x ins) ins // nil: the node keeps no tensor

// nSaved is the number of tensors save keeps.
func (d *opDef[P]) nSaved() int {
	if d.saves > 0 {
		return d.saves
	}
	return d.arity
}

// done finishes the declaration: for an op without arguments, the node
// backward is bound once, so that recording allocates no closure.
func (d *opDef[P]) done() *opDef[P] {
	if _, ok := any(*new(P)).(noArgs); ok {
		var p P
		d.bound = d.bind(p)
	}
	return d
}

// run is every built-in op: it computes the forward on x, records a node
// when an input needs grad (else returns the bare result, linked as a view
// when it shares an input's storage) and gives the result its tangent when
// an input is dual.
func (d *opDef[P]) run(p P, x ins) *Tensor {
	return d.complete(&p, x, nil, d.forward(p, x))
}

// finish is run for a result the caller computed itself (when the forward
// shares work with the argument checks).
func (d *opDef[P]) finish(p P, x ins, out *tensor.Tensor) *Tensor {
	return d.complete(&p, x, nil, out)
}

// finishN is finish for an op of any number of inputs.
func (d *opDef[P]) finishN(p P, xs []*Tensor, out *tensor.Tensor) *Tensor {
	return d.complete(&p, ins{}, xs, out)
}

// complete is run after the forward, on the inputs x (or xs, for arity
// manyInputs). p is a pointer (to the caller's copy) only so that the
// arguments are not copied at every step.
func (d *opDef[P]) complete(p *P, x ins, xs []*Tensor, out *tensor.Tensor) *Tensor {
	in := xs
	if d.arity != manyInputs {
		in = x[:d.arity]
	}
	var r *Tensor
	switch {
	case needsGrad(in...):
		r = d.record(p, x, in, out)
	case d.fresh:
		r = wrap(out)
	default:
		r = result(out, in)
	}
	if isDual(in...) {
		d.tangent(*p, x, xs, r)
	}
	return r
}

// record records out's node on the inputs in (x, as a slice). The shared
// backward, when it applies, needs no arguments: then prepare is not called.
func (d *opDef[P]) record(p *P, x ins, in []*Tensor, out *tensor.Tensor) *Tensor {
	var s ins
	var save []*Tensor
	if d.save != nil {
		s = d.save(x)
		save = s[:d.nSaved()]
	}
	var bw backwardFn
	var kind uint8
	if d.shared != nil {
		bw, kind = d.shared(x, out)
	}
	if bw == nil {
		if d.prepare != nil {
			*p = d.prepare(*p, x)
		}
		bw = d.bound
		if bw == nil {
			bw = d.bind(*p)
		}
	}
	r := record(d.name, out, in, save, bw)
	if d.saveOut {
		saveOutput(r)
	}
	if kind != 0 {
		withFast(r, kind)
	}
	return r
}

// tangent gives r its tangent by the op's forward-mode rule (a function of
// its own, so that only dual calls pay for the closure).
func (d *opDef[P]) tangent(p P, x ins, xs []*Tensor, r *Tensor) {
	switch {
	case d.jvpN != nil:
		jvp(r, func() *Tensor { return d.jvpN(p, xs, r) })
	case d.jvp != nil:
		jvp(r, func() *Tensor { return d.jvp(p, x, r) })
	default:
		jvp(r, func() *Tensor { return nil })
	}
}

// bind returns the node backward for arguments p: the data-only backward
// when nothing records and it applies, else the graph backward.
func (d *opDef[P]) bind(p P) backwardFn {
	if d.dataBackward == nil {
		return func(g *Tensor, s []*Tensor) []*Tensor { return d.backward(p, g, s) }
	}
	return func(g *Tensor, s []*Tensor) []*Tensor {
		if recordsNothing(g) && recordsNothing(s...) {
			if r := d.dataBackward(p, g, s); r != nil {
				return r
			}
		}
		return d.backward(p, g, s)
	}
}

// one returns x as the inputs of a unary op.
func one(x *Tensor) ins { return ins{x} }
