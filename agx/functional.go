package agx

import (
	"slices"
	"strings"

	"github.com/goagx/agx/tensor"
)

// The functional API: derivatives of a function of tensors, in the manner of
// PyTorch's torch.autograd.functional (vjp, jvp, jacobian, hessian, vhp,
// hvp). Each call evaluates f on copies of the inputs that require grad and
// differentiates through the graph that evaluation records; f is a
// func(...*Tensor) *Tensor, a func(...*Tensor) []*Tensor, a func(*Tensor)
// *Tensor, a func(*Tensor, *Tensor) *Tensor or a Function.
//
// Options, as PyTorch's keyword arguments:
//   - CreateGraph(): the results are differentiable (with respect to the
//     inputs, and to v) and the returned outputs keep their graph. Without it
//     every result is detached.
//   - Strict(): an output or result that does not depend on an input is an
//     error (ErrGraph) instead of zeros.
//   - JacobianStrategy (Jacobian) / OuterJacobianStrategy (Hessian):
//     ReverseMode (the default) differentiates one output element per
//     backward pass; ForwardMode one input element per forward pass with a
//     dual tensor. ForwardMode cannot be combined with CreateGraph.
//
// Costs: VJP and VHP are one backward pass (VHP a double backward); JVP and
// HVP use the double-backward trick (a backward pass through a backward
// pass, PyTorch's choice too), about twice a VJP. Jacobian runs one backward
// per output element over a retained graph; Hessian is the Jacobian of the
// gradient (reverse over reverse), one double backward per input element;
// forward over reverse (OuterJacobianStrategy(ForwardMode)) is one forward
// and one backward pass with dual inputs per input element. Jacobian with
// ForwardMode is one forward pass with a dual input per input element. The
// passes run one after another (PyTorch vectorizes them with vmap, which agx
// does not have).

// FunctionalOption configures VJP, JVP, Jacobian, Hessian, VHP and HVP:
// CreateGraph(), Strict(), JacobianStrategy, OuterJacobianStrategy.
type FunctionalOption interface{ applyFunctional(*functionalConfig) }

type functionalConfig struct {
	op       string
	create   bool
	strict   bool
	strategy Strategy
	outer    Strategy
}

type functionalOpt func(*functionalConfig)

func (o functionalOpt) applyFunctional(c *functionalConfig) { o(c) }

// applyFunctional lets CreateGraph() configure the functional API; the other
// backward options have no meaning there and are refused.
func (o BackwardOption) applyFunctional(c *functionalConfig) {
	var b backwardConfig
	o(&b)
	if b.retainSet || b.allowUnused || b.gradOutputs != nil || b.undefinedRoots {
		tensor.PanicHint(c.op, tensor.ErrArg, "pass CreateGraph() or Strict(); give v as an argument",
			"%s takes CreateGraph, Strict and a strategy, not RetainGraph, AllowUnused or GradOutputs", c.op)
	}
	c.create = b.createGraph
}

// Strict makes a result that does not depend on an input an error instead
// of zeros (PyTorch's strict=True).
func Strict(on ...bool) FunctionalOption {
	return functionalOpt(func(c *functionalConfig) { c.strict = len(on) == 0 || on[0] })
}

// Strategy chooses how Jacobian builds its matrix.
type Strategy int

const (
	// ReverseMode builds the Jacobian row by row, one backward pass per
	// output element (the default).
	ReverseMode Strategy = iota
	// ForwardMode builds it column by column with forward-mode AD: one
	// forward pass per input element, each with a one-hot tangent on that
	// element (MakeDual). It wins when the inputs have fewer elements than
	// the outputs (a tall Jacobian). PyTorch's strategy="forward-mode" needs
	// vectorize=True (vmap); agx runs the columns one after another. Not
	// available with CreateGraph (as in PyTorch); every op f uses needs a
	// forward rule (every built-in has one; a custom Function needs Jvp).
	ForwardMode
)

func (s Strategy) String() string {
	if s == ForwardMode {
		return "forward-mode"
	}
	return "reverse-mode"
}

// JacobianStrategy chooses Jacobian's strategy (PyTorch's strategy=).
func JacobianStrategy(s Strategy) FunctionalOption {
	return functionalOpt(func(c *functionalConfig) { c.strategy = s })
}

// OuterJacobianStrategy chooses the strategy of Hessian's outer Jacobian
// (PyTorch's outer_jacobian_strategy=): ReverseMode is reverse over reverse.
func OuterJacobianStrategy(s Strategy) FunctionalOption {
	return functionalOpt(func(c *functionalConfig) { c.outer = s })
}

func functionalSetup(op string, f any, opts []FunctionalOption) (func(...*Tensor) []*Tensor, functionalConfig) {
	c := functionalConfig{op: op}
	for _, o := range opts {
		if o == nil {
			tensor.Panicf(op, tensor.ErrArg, "nil option")
		}
		o.applyFunctional(&c)
	}
	for _, s := range []Strategy{c.strategy, c.outer} {
		if s != ReverseMode && s != ForwardMode {
			tensor.Panicf(op, tensor.ErrArg, "unknown strategy %d", int(s))
		}
	}
	switch {
	case op != "Jacobian" && c.strategy != ReverseMode:
		tensor.PanicHint(op, tensor.ErrArg, "use OuterJacobianStrategy for Hessian's outer Jacobian",
			"JacobianStrategy applies to Jacobian only")
	case op != "Hessian" && c.outer != ReverseMode:
		tensor.PanicHint(op, tensor.ErrArg, "use JacobianStrategy with Jacobian",
			"OuterJacobianStrategy applies to Hessian only")
	case c.create && (c.strategy == ForwardMode || c.outer == ForwardMode):
		tensor.PanicHint(op, tensor.ErrArg, "leave CreateGraph off, or use ReverseMode",
			"torch.autograd.functional.%s: `create_graph=True` and `strategy=\"forward-mode\"` are not supported together (yet). Please either set `create_graph=False` or `strategy=\"reverse-mode\"`.",
			strings.ToLower(op))
	}
	var fn func(...*Tensor) []*Tensor
	switch g := f.(type) {
	case Function:
		fn = func(in ...*Tensor) []*Tensor { return ApplyN(g, in...) }
	case func(...*Tensor) []*Tensor:
		fn = g
	case func(...*Tensor) *Tensor:
		fn = func(in ...*Tensor) []*Tensor { return []*Tensor{g(in...)} }
	case func(*Tensor) *Tensor:
		fn = func(in ...*Tensor) []*Tensor {
			if len(in) != 1 {
				tensor.Panicf(op, tensor.ErrArg, "the function takes 1 input, got %d", len(in))
			}
			return []*Tensor{g(in[0])}
		}
	case func(*Tensor, *Tensor) *Tensor:
		fn = func(in ...*Tensor) []*Tensor {
			if len(in) != 2 {
				tensor.Panicf(op, tensor.ErrArg, "the function takes 2 inputs, got %d", len(in))
			}
			return []*Tensor{g(in[0], in[1])}
		}
	default:
		tensor.PanicHint(op, tensor.ErrArg, "pass a Function or a func(...*agx.Tensor) *agx.Tensor",
			"unsupported function type %T", f)
	}
	wrapped := func(in ...*Tensor) []*Tensor {
		outs := fn(in...)
		if len(outs) == 0 {
			tensor.Panicf(op, tensor.ErrArg, "the user-provided function returned no outputs")
		}
		for i, o := range outs {
			if o == nil {
				tensor.Panicf(op, tensor.ErrArg, "output %d of the user-provided function is nil", i)
			}
		}
		return outs
	}
	return wrapped, c
}

// preprocess gives f its own tensors for the inputs: with create, an input
// that requires grad is passed through a differentiable view (so results
// stay connected to it); otherwise a detached copy that requires grad when
// needGraph.
func (c functionalConfig) preprocess(what string, ts []*Tensor, needGraph bool) []*Tensor {
	if len(ts) == 0 && what == "inputs" {
		tensor.Panicf(c.op, tensor.ErrArg, "no inputs")
	}
	out := make([]*Tensor, len(ts))
	for i, t := range ts {
		if t == nil {
			tensor.Panicf(c.op, tensor.ErrArg, "element %d of %s is nil", i, what)
		}
		if c.create && t.RequiresGrad() {
			out[i] = t.View(t.Shape()...)
			continue
		}
		d := t.Detach()
		if needGraph {
			if !t.DType().IsFloat() {
				tensor.Panicf(c.op, tensor.ErrDType, "element %d of %s has dtype %v: only floating point inputs can be differentiated", i, what, t.DType())
			}
			d.SetRequiresGrad(true)
		}
		out[i] = d
	}
	return out
}

// postprocess detaches results unless the graph is wanted.
func (c functionalConfig) postprocess(ts []*Tensor) []*Tensor {
	if c.create {
		return ts
	}
	out := make([]*Tensor, len(ts))
	for i, t := range ts {
		if t != nil {
			out[i] = t.Detach()
		}
	}
	return out
}

// inputVector prepares the v of JVP, HVP and VHP, one tensor per input: given,
// it is checked against the inputs; nil stands for 1 when there is a single
// one-element input, as in PyTorch.
func (c functionalConfig) inputVector(v, in []*Tensor) []*Tensor {
	if v != nil {
		v = c.preprocess("v", v, false)
		c.validateV(v, in)
	} else if len(in) != 1 || in[0].Numel() != 1 {
		tensor.Panicf(c.op, tensor.ErrArg, "The vector v can only be None if the input to the user-provided function is a single Tensor with a single element.")
	}
	return v
}

// validateV checks that v has one tensor of the right shape per entry of other.
func (c functionalConfig) validateV(v, other []*Tensor) {
	if len(v) != len(other) {
		tensor.Panicf(c.op, tensor.ErrArg, "v is a tuple of invalid length: should be %d but got %d", len(other), len(v))
	}
	for i := range v {
		if !slices.Equal(v[i].Shape(), other[i].Shape()) {
			tensor.Panicf(c.op, tensor.ErrShape, "Entry %d in v has invalid size: should be %v but got %v", i, other[i].Shape(), v[i].Shape())
		}
	}
}

// checkRequiresGrad is PyTorch's strict-mode check of outputs and
// intermediate results.
func (c functionalConfig) checkRequiresGrad(ts []*Tensor, kind string) {
	if !c.strict {
		return
	}
	for i, t := range ts {
		if t == nil {
			c.fail("The output of the user-provided function is independent of input %d. This is not allowed in strict mode.", i)
		}
		if t.RequiresGrad() {
			continue
		}
		switch kind {
		case "hessian":
			c.fail("The hessian of the user-provided function with respect to input %d is independent of the input. This is not allowed in strict mode. You should ensure that your function is thrice differentiable and that the hessian depends on the inputs.", i)
		case "jacobian":
			c.fail("While computing the hessian, found that the jacobian of the user-provided function with respect to input %d is independent of the input. This is not allowed in strict mode. You should ensure that your function is twice differentiable and that the jacobian depends on the inputs (this would be violated by a linear function for example).", i)
		case "grad_inputs":
			c.fail("The gradient with respect to input %d is independent of the inputs of the user-provided function. This is not allowed in strict mode.", i)
		default:
			c.fail("Output %d of the user-provided function does not require gradients. The outputs must be computed in a differentiable manner from the input when running in strict mode.", i)
		}
	}
}

func (c functionalConfig) fail(format string, args ...any) {
	tensor.PanicHint(c.op, ErrGraph, "leave Strict off to get zeros for independent inputs", format, args...)
}

// autogradGrad is Grad over the outputs that require grad (the others, and
// their gradient outputs, are left out), with unused inputs giving nil. With
// createGraph it records the gradients' graph and keeps the graph it ran
// through (CreateGraph and RetainGraph), for a later pass over either.
func autogradGrad(outputs, inputs, gradOutputs []*Tensor, createGraph bool) []*Tensor {
	var outs, gos []*Tensor
	for i, o := range outputs {
		if o != nil && o.RequiresGrad() {
			outs = append(outs, o)
			if gradOutputs != nil {
				gos = append(gos, gradOutputs[i])
			} else {
				gos = append(gos, nil)
			}
		}
	}
	if len(outs) == 0 {
		return make([]*Tensor, len(inputs))
	}
	return Grad(outs, inputs, GradOutputs(gos...), AllowUnused(), CreateGraph(createGraph), RetainGraph(createGraph))
}

// fillInZeros replaces nil results with zeros shaped like refs, or fails in
// strict mode with the message of the stage that found them.
func (c functionalConfig) fillInZeros(grads, refs []*Tensor, stage string) []*Tensor {
	out := make([]*Tensor, len(refs))
	for i, g := range grads {
		if g != nil {
			out[i] = g
			continue
		}
		if c.strict {
			switch stage {
			case "back_trick":
				c.fail("The output of the user-provided function is independent of input %d. This is not allowed in strict mode when using create_graph=True.", i)
			case "double_back":
				c.fail("The gradient with respect to input %d is independent of the inputs of the user-provided function. This is not allowed in strict mode.", i)
			case "double_back_trick":
				c.fail("The gradient with respect to the input is independent of entry %d in the grad_outputs when using the double backward trick to compute forward mode gradients. This is not allowed in strict mode.", i)
			default:
				c.fail("The output of the user-provided function is independent of input %d. This is not allowed in strict mode.", i)
			}
		}
		out[i] = ZerosLike(refs[i])
	}
	return out
}

// VJP returns f's outputs at inputs and the vector-Jacobian product vᵀ·J
// (one tensor per input, shaped like it), as torch.autograd.functional.vjp.
// v holds one tensor per output, shaped like it; it may be nil when f
// returns a single one-element tensor (then v is 1). An input the outputs do
// not depend on gets zeros (an error with Strict). One backward pass.
func VJP(f any, inputs, v []*Tensor, opts ...FunctionalOption) (outputs, vjp []*Tensor) {
	fn, c := functionalSetup("VJP", f, opts)
	enableGrad(func() {
		in := c.preprocess("inputs", inputs, true)
		outputs = fn(in...)
		c.checkRequiresGrad(outputs, "outputs")
		if v != nil {
			v = c.preprocess("v", v, false)
			c.validateV(v, outputs)
		} else if len(outputs) != 1 || outputs[0].Numel() != 1 {
			tensor.Panicf(c.op, tensor.ErrArg, "The vector v can only be None if the user-provided function returns a single Tensor with a single element.")
		}
		vjp = c.fillInZeros(autogradGrad(outputs, in, v, c.create), in, "back")
	})
	return c.postprocess(outputs), c.postprocess(vjp)
}

// JVP returns f's outputs at inputs and the Jacobian-vector product J·v (one
// tensor per output, shaped like it), as torch.autograd.functional.jvp. v
// holds one tensor per input, shaped like it; it may be nil when there is a
// single one-element input. It uses the double-backward trick: the vjp with
// a gradient output u that requires grad is linear in u, and its own vjp
// with v is J·v; so it costs about two backward passes, and every op f uses
// must be twice differentiable.
func JVP(f any, inputs, v []*Tensor, opts ...FunctionalOption) (outputs, jvp []*Tensor) {
	fn, c := functionalSetup("JVP", f, opts)
	enableGrad(func() {
		in := c.preprocess("inputs", inputs, true)
		v = c.inputVector(v, in)
		outputs = fn(in...)
		c.checkRequiresGrad(outputs, "outputs")
		u := make([]*Tensor, len(outputs))
		for i, o := range outputs {
			u[i] = ZerosLike(o).SetRequiresGrad(true)
		}
		gradInputs := autogradGrad(outputs, in, u, true)
		c.checkRequiresGrad(gradInputs, "grad_inputs")
		jvp = c.fillInZeros(autogradGrad(gradInputs, u, v, c.create), outputs, "back_trick")
	})
	return c.postprocess(outputs), c.postprocess(jvp)
}

// Jacobian returns the Jacobian of f at inputs, as
// torch.autograd.functional.jacobian: J[i][j] is the derivative of output i
// with respect to input j, of shape output i's shape followed by input j's.
// A pair with no dependence gets zeros (an error with Strict). In reverse
// mode (the default) it runs one backward pass per output element, over a
// graph recorded once: cheap for a wide Jacobian (few outputs, many
// inputs). With JacobianStrategy(ForwardMode) it runs one forward pass per
// input element, each giving one column: cheap for a tall Jacobian (few
// inputs, many outputs).
func Jacobian(f any, inputs []*Tensor, opts ...FunctionalOption) [][]*Tensor {
	fn, c := functionalSetup("Jacobian", f, opts)
	var jac [][]*Tensor
	enableGrad(func() {
		if c.strategy == ForwardMode {
			jac = c.jacobianForward(fn, inputs, false)
		} else {
			jac = c.jacobian(fn, inputs)
		}
	})
	return jac
}

// jacobianForward builds the Jacobian column by column: for each element k
// of each input j, f runs on the inputs with input j made dual with the
// one-hot tangent e_k, and the tangent of output i is column k of J[i][j].
// An output without a tangent does not depend on input j. needGraph makes
// the primals require grad (Hessian's inner reverse pass needs it).
func (c functionalConfig) jacobianForward(fn func(...*Tensor) []*Tensor, inputs []*Tensor, needGraph bool) [][]*Tensor {
	in := c.preprocess("inputs", inputs, needGraph)
	for i, x := range in {
		if !x.DType().IsFloat() {
			tensor.Panicf(c.op, tensor.ErrDType, "element %d of inputs has dtype %v: only floating point inputs can be differentiated", i, x.DType())
		}
	}
	var cols [][][]*Tensor // cols[j][i]: the columns of J[i][j]
	var outShapes [][]int
	var outDTypes []DType
	for j, x := range in {
		for k := range x.Numel() {
			args := slices.Clone(in)
			args[j] = MakeDual(x, onehotAt(x, k))
			outs := fn(args...)
			if outShapes == nil {
				cols = make([][][]*Tensor, len(in))
				for _, o := range outs {
					outShapes = append(outShapes, o.Shape())
					outDTypes = append(outDTypes, o.DType())
				}
			} else if len(outs) != len(outShapes) {
				tensor.Panicf(c.op, tensor.ErrArg, "the user-provided function returned %d outputs, then %d", len(outShapes), len(outs))
			}
			if cols[j] == nil {
				cols[j] = make([][]*Tensor, len(outs))
			}
			for i, o := range outs {
				tg := o.Tangent()
				if tg == nil {
					if c.strict {
						c.fail("Output %d of the user-provided function is independent of input %d. This is not allowed in strict mode.", i, j)
					}
					tg = Zeros(o.DType(), o.Shape()...)
				}
				cols[j][i] = append(cols[j][i], tg.Detach().Reshape(o.Numel()))
			}
		}
	}
	if outShapes == nil { // every input is empty: f runs once for the shapes
		for _, o := range fn(in...) {
			outShapes = append(outShapes, o.Shape())
			outDTypes = append(outDTypes, o.DType())
		}
	}
	jac := make([][]*Tensor, len(outShapes))
	for i, os := range outShapes {
		jac[i] = make([]*Tensor, len(in))
		for j, x := range in {
			shape := append(slices.Clone(os), x.Shape()...)
			if x.Numel() == 0 || cols[j] == nil {
				jac[i][j] = Zeros(outDTypes[i], shape...)
				continue
			}
			jac[i][j] = Stack(1, cols[j][i]...).Reshape(shape...)
		}
	}
	return jac
}

func (c functionalConfig) jacobian(fn func(...*Tensor) []*Tensor, inputs []*Tensor) [][]*Tensor {
	in := c.preprocess("inputs", inputs, true)
	outputs := fn(in...)
	c.checkRequiresGrad(outputs, "outputs")
	jac := make([][]*Tensor, len(outputs))
	for i, out := range outputs {
		rows := make([][]*Tensor, len(in))
		for k := range out.Numel() {
			var vj []*Tensor
			if out.RequiresGrad() {
				vj = Grad([]*Tensor{out}, in, GradOutputs(onehotAt(out, k)), AllowUnused(), RetainGraph(), CreateGraph(c.create))
			} else {
				vj = make([]*Tensor, len(in))
			}
			for j, g := range vj {
				switch {
				case g != nil:
					if c.strict && c.create && !g.RequiresGrad() {
						c.fail("The jacobian of the user-provided function is independent of input %d. This is not allowed in strict mode when create_graph=True.", j)
					}
				case c.strict:
					c.fail("Output %d of the user-provided function is independent of input %d. This is not allowed in strict mode.", i, j)
				default:
					g = ZerosLike(in[j])
				}
				rows[j] = append(rows[j], g)
			}
		}
		jac[i] = make([]*Tensor, len(in))
		for j := range in {
			shape := append(out.Shape(), in[j].Shape()...)
			if len(rows[j]) == 0 {
				jac[i][j] = Zeros(in[j].DType(), shape...)
			} else {
				jac[i][j] = Stack(0, rows[j]...).Reshape(shape...)
			}
		}
		jac[i] = c.postprocess(jac[i])
	}
	return jac
}

// Hessian returns the Hessian of a scalar function f at inputs, as
// torch.autograd.functional.hessian: H[i][j] is the second derivative with
// respect to inputs i and j, of shape input i's shape followed by input j's.
// f must return one tensor with one element. It is the Jacobian of the
// gradient: reverse over reverse (OuterJacobianStrategy(ReverseMode), the
// default), one double backward per input element, or forward over reverse
// (OuterJacobianStrategy(ForwardMode)): per input element, f and its
// gradient run on inputs made dual with a one-hot tangent, and the
// gradient's tangent is the Hessian's column. Forward over reverse needs
// every Backward on the way to propagate tangents (built-in backwards do;
// a custom Backward does when it is written with agx ops). Not with
// CreateGraph.
func Hessian(f any, inputs []*Tensor, opts ...FunctionalOption) [][]*Tensor {
	fn, c := functionalSetup("Hessian", f, opts)
	single := func(in ...*Tensor) []*Tensor {
		outs := fn(in...)
		c.checkRequiresGrad(outs, "outputs")
		c.singleScalar(outs, "hessian")
		return []*Tensor{outs[0].Reshape()}
	}
	inner := functionalConfig{op: c.op, create: true}
	jacFunc := func(in ...*Tensor) []*Tensor {
		jac := inner.jacobian(single, in)[0]
		c.checkRequiresGrad(jac, "jacobian")
		return jac
	}
	var h [][]*Tensor
	enableGrad(func() {
		if c.outer == ForwardMode {
			h = c.jacobianForward(jacFunc, inputs, true)
		} else {
			h = c.jacobian(jacFunc, inputs)
		}
	})
	return h
}

func (c functionalConfig) singleScalar(outs []*Tensor, name string) {
	if len(outs) != 1 {
		tensor.Panicf(c.op, tensor.ErrArg, "The function given to %s should return a single Tensor (got %d)", name, len(outs))
	}
	if outs[0].Numel() != 1 {
		tensor.Panicf(c.op, tensor.ErrShape, "The Tensor returned by the function given to %s should contain a single element (got shape %v)", name, outs[0].Shape())
	}
}

// VHP returns the output of a scalar function f at inputs and the
// vector-Hessian product vᵀ·H (one tensor per input), as
// torch.autograd.functional.vhp: the gradient, recorded, then its vjp with v
// (a double backward). v holds one tensor per input, shaped like it; it may
// be nil for a single one-element input.
func VHP(f any, inputs, v []*Tensor, opts ...FunctionalOption) (output *Tensor, vhp []*Tensor) {
	return hessianProduct("VHP", f, inputs, v, opts, false)
}

// HVP returns the output of a scalar function f at inputs and the
// Hessian-vector product H·v, as torch.autograd.functional.hvp, by the
// double-backward trick (about one backward pass more than VHP). For a
// twice continuously differentiable f, H is symmetric and HVP equals VHP.
func HVP(f any, inputs, v []*Tensor, opts ...FunctionalOption) (output *Tensor, hvp []*Tensor) {
	return hessianProduct("HVP", f, inputs, v, opts, true)
}

func hessianProduct(op string, f any, inputs, v []*Tensor, opts []FunctionalOption, trick bool) (*Tensor, []*Tensor) {
	fn, c := functionalSetup(op, f, opts)
	var outputs, res []*Tensor
	enableGrad(func() {
		in := c.preprocess("inputs", inputs, true)
		v = c.inputVector(v, in)
		outputs = fn(in...)
		c.checkRequiresGrad(outputs, "outputs")
		name := "vhp"
		if trick {
			name = "hvp"
		}
		c.singleScalar(outputs, name)
		jac := autogradGrad(outputs, in, nil, true)
		c.checkRequiresGrad(jac, "jacobian")
		if !trick {
			res = c.fillInZeros(autogradGrad(jac, in, v, c.create), in, "double_back")
			return
		}
		u := make([]*Tensor, len(in))
		for i, x := range in {
			u[i] = ZerosLike(x).SetRequiresGrad(true)
		}
		doubleBack := autogradGrad(jac, in, u, true)
		res = c.fillInZeros(autogradGrad(doubleBack, u, v, c.create), in, "double_back_trick")
	})
	return c.postprocess(outputs)[0], c.postprocess(res)
}
