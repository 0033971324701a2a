package agx

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/goagx/agx/tensor"
)

// ErrGradCheck is matched (errors.Is) by every GradCheck failure.
var ErrGradCheck = errors.New("gradcheck failed")

// GradCheckOption configures GradCheck and GradGradCheck.
type GradCheckOption func(*gradCheckConfig)

type gradCheckConfig struct {
	eps, atol, rtol float64
	nondetTol       float64
	fast            bool
	undefinedGrad   bool
	scaleCheck      bool
	allowFloat32    bool
	seed            uint64
	gradOutputs     []*Tensor
	forwardAD       bool
}

func defaultGradCheck() gradCheckConfig {
	return gradCheckConfig{eps: 1e-6, atol: 1e-5, rtol: 1e-3, undefinedGrad: true, scaleCheck: true, seed: 0x5eed}
}

// Eps sets the finite-difference step (default 1e-6).
func Eps(v float64) GradCheckOption { return func(c *gradCheckConfig) { c.eps = v } }

// Atol sets the absolute tolerance (default 1e-5).
func Atol(v float64) GradCheckOption { return func(c *gradCheckConfig) { c.atol = v } }

// Rtol sets the relative tolerance (default 1e-3). Elements pass when
// |analytical - numerical| ≤ atol + rtol·|numerical|.
func Rtol(v float64) GradCheckOption { return func(c *gradCheckConfig) { c.rtol = v } }

// NondetTol allows repeated backward passes to differ by this much (default 0:
// backward must be deterministic).
func NondetTol(v float64) GradCheckOption { return func(c *gradCheckConfig) { c.nondetTol = v } }

// FastMode compares random projections vᵀJu instead of whole Jacobians: one
// backward and two forwards per input instead of one per element.
func FastMode(on ...bool) GradCheckOption {
	return func(c *gradCheckConfig) { c.fast = len(on) == 0 || on[0] }
}

// CheckUndefinedGrad checks that backward accepts missing (nil) output
// gradients and treats them as zeros (default true).
func CheckUndefinedGrad(on bool) GradCheckOption {
	return func(c *gradCheckConfig) { c.undefinedGrad = on }
}

// CheckGradScaling checks that backward multiplies by the incoming gradient: a
// backward that ignores grad_output can still match the Jacobian of a scalar
// output (default true).
func CheckGradScaling(on bool) GradCheckOption {
	return func(c *gradCheckConfig) { c.scaleCheck = on }
}

// AllowFloat32 lets GradCheck run on float32 inputs (it refuses by default:
// float32 finite differences are too imprecise for the default tolerances).
func AllowFloat32() GradCheckOption { return func(c *gradCheckConfig) { c.allowFloat32 = true } }

// CheckSeed seeds the private generator used for random projections and
// random grad outputs (GradCheck never touches the default generator).
func CheckSeed(seed uint64) GradCheckOption { return func(c *gradCheckConfig) { c.seed = seed } }

// GradGradOutputs fixes the output gradients GradGradCheck differentiates
// through (random by default).
func GradGradOutputs(gs ...*Tensor) GradCheckOption {
	return func(c *gradCheckConfig) { c.gradOutputs = gs }
}

// GradCheckError reports the first mismatch GradCheck found.
type GradCheckError struct {
	// Kind is "jacobian", "forward-ad" (with CheckForwardAD), "nondeterministic",
	// "undefined-grad", "grad-scaling", "dtype" or "error".
	Kind       string
	Output     int
	Input      int
	Element    int // flat index into the input (-1 when not element-specific)
	OutElement int // flat index into the output
	Numerical  float64
	Analytical float64
	// The whole Jacobians (rows: output elements, columns: input elements) for
	// a "jacobian" failure, for display.
	NumericalJacobian  [][]float64
	AnalyticalJacobian [][]float64
	// Labels name the two Jacobians when they are not the numerical and the
	// analytical (backward) one: a "forward-ad" failure compares the
	// forward-mode Jacobian with the numerical or the backward one.
	Labels [2]string
	Msg    string
	cause  error
}

func (e *GradCheckError) Error() string { return "agx: GradCheck: " + e.Msg }

// AgxError marks it as an agx error, so that Try returns it (from
// MustGradCheck, say) rather than panicking again.
func (e *GradCheckError) AgxError() {}

// Is makes errors.Is(err, ErrGradCheck) true.
func (e *GradCheckError) Is(target error) bool { return target == ErrGradCheck }

// Unwrap returns the panic that stopped the check, if any.
func (e *GradCheckError) Unwrap() error { return e.cause }

// checkFunc normalises what GradCheck accepts as the function under test.
func checkFunc(f any) func(in ...*Tensor) []*Tensor {
	switch fn := f.(type) {
	case Function:
		return func(in ...*Tensor) []*Tensor { return ApplyN(fn, in...) }
	case func(...*Tensor) []*Tensor:
		return fn
	case func(...*Tensor) *Tensor:
		return func(in ...*Tensor) []*Tensor { return []*Tensor{fn(in...)} }
	case func(*Tensor) *Tensor:
		return func(in ...*Tensor) []*Tensor { return []*Tensor{fn(in[0])} }
	case func(*Tensor, *Tensor) *Tensor:
		return func(in ...*Tensor) []*Tensor { return []*Tensor{fn(in[0], in[1])} }
	}
	tensor.PanicHint("GradCheck", tensor.ErrArg, "pass a Function or a func(...*agx.Tensor) *agx.Tensor",
		"unsupported function type %T", f)
	return nil
}

// GradCheck compares the gradients computed by backward with central finite
// differences, in float64, for every input that requires grad: column j of the
// numerical Jacobian is (f(x + eps·e_j) - f(x - eps·e_j)) / 2eps and row k of
// the analytical one is the backward of the one-hot output gradient e_k. f is a
// Function or a func over tensors. It returns nil when they agree, or a
// *GradCheckError naming the output, input and element that disagree.
func GradCheck(f any, inputs []*Tensor, opts ...GradCheckOption) error {
	c := defaultGradCheck()
	for _, o := range opts {
		o(&c)
	}
	return gradCheck(checkFunc(f), inputs, c)
}

// MustGradCheck is GradCheck that panics on failure.
func MustGradCheck(f any, inputs []*Tensor, opts ...GradCheckOption) {
	if err := GradCheck(f, inputs, opts...); err != nil {
		panic(err)
	}
}

// GradGradCheck checks second derivatives: it gradchecks the function
// (inputs, v) ↦ vᵀ·∂f/∂inputs computed by Grad with CreateGraph, with random
// output gradients v (which are themselves differentiated).
func GradGradCheck(f any, inputs []*Tensor, opts ...GradCheckOption) error {
	c := defaultGradCheck()
	for _, o := range opts {
		o(&c)
	}
	fn := checkFunc(f)
	var outs []*Tensor
	if err := Try(func() { outs = fn(inputs...) }); err != nil {
		return &GradCheckError{Kind: "error", Element: -1, Msg: "the function failed: " + err.Error(), cause: err}
	}
	gen := tensor.NewGenerator(c.seed)
	gos := c.gradOutputs
	if gos == nil {
		for _, o := range outs {
			gos = append(gos, wrap(gen.Randn(tensor.Float64, o.data.Shape()...).Reshape(o.data.Shape()...)).SetRequiresGrad(true))
		}
	}
	if len(gos) != len(outs) {
		return &GradCheckError{Kind: "error", Element: -1, Msg: fmt.Sprintf("got %d grad outputs for %d outputs", len(gos), len(outs))}
	}
	nIn := len(inputs)
	second := func(all ...*Tensor) []*Tensor {
		ins, gs := all[:nIn], all[nIn:]
		o := fn(ins...)
		var diffIn []*Tensor
		for _, in := range ins {
			if in != nil && in.RequiresGrad() {
				diffIn = append(diffIn, in)
			}
		}
		var keepO, keepG []*Tensor
		for i := range o {
			if o[i].RequiresGrad() {
				keepO = append(keepO, o[i])
				keepG = append(keepG, gs[i])
			}
		}
		grads := Grad(keepO, diffIn, GradOutputs(keepG...), CreateGraph(), AllowUnused())
		var res []*Tensor
		for _, g := range grads {
			if g != nil {
				res = append(res, g)
			}
		}
		return res
	}
	all := append(append([]*Tensor{}, inputs...), gos...)
	c.gradOutputs = nil
	c.undefinedGrad = false
	return gradCheck(second, all, c)
}

// MustGradGradCheck is GradGradCheck that panics on failure.
func MustGradGradCheck(f any, inputs []*Tensor, opts ...GradCheckOption) {
	if err := GradGradCheck(f, inputs, opts...); err != nil {
		panic(err)
	}
}

func gradCheck(fn func(in ...*Tensor) []*Tensor, inputs []*Tensor, c gradCheckConfig) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := tensor.AsError(r)
			if !ok {
				panic(r)
			}
			err = &GradCheckError{Kind: "error", Element: -1, Msg: e.Error(), cause: e}
		}
	}()
	diff, e := differentiableInputs(inputs, c)
	if e != nil {
		return e
	}
	leaves, plain := checkLeaves(inputs)
	outs := fn(leaves...)
	evalInto := evaluator(fn, plain)
	eval := func() [][]float64 { return evalInto(nil) }
	if !anyDifferentiable(outs) {
		if e := noDifferentiableOutputsCheck(plain, diff, eval, c); e != nil {
			return e
		}
		return nil
	}
	// The Jacobians: in slow mode whole, compared element by element (num and
	// ana are kept for the checks below); in fast mode projected on random
	// directions (fastCheck).
	var num, ana [][][][]float64
	if c.fast {
		if e := fastCheck(leaves, plain, outs, diff, eval, c); e != nil {
			if e.Kind == "jacobian" {
				locateInSlowMode(fn, inputs, c, e)
			}
			return e
		}
	} else {
		num = numericalJacobian(outs, plain, diff, evalInto, c)
		ana = analyticalJacobian(outs, leaves, diff)
		if e := compareJacobians(num, ana, outs, diff, c); e != nil {
			return e
		}
		// Again, for the nondeterminism (reentrancy) check.
		if e := reentrancyCheck(ana, analyticalJacobian(outs, leaves, diff), c); e != nil {
			return e
		}
	}
	if e := checklist(fn, outs, leaves, plain, diff, num, ana, eval, c); e != nil {
		return e
	}
	return nil
}

// checklist runs the checks that follow the Jacobian comparison, the same
// in both modes (each check works from the whole Jacobians in slow mode, num
// and ana, and along random directions in fast mode, where they are nil).
func checklist(fn func(in ...*Tensor) []*Tensor, outs, leaves, plain []*Tensor, diff []int, num, ana [][][][]float64, eval func() [][]float64, c gradCheckConfig) *GradCheckError {
	if c.scaleCheck {
		if e := mulByGradOutputCheck(outs, leaves, diff); e != nil {
			return e
		}
		if e := scalingCheck(outs, leaves, plain, diff, ana, eval, c); e != nil {
			return e
		}
	}
	if c.undefinedGrad {
		if e := undefinedGradCheck(outs, leaves, diff); e != nil {
			return e
		}
	}
	if c.forwardAD {
		if c.fast {
			return forwardFastCheck(fn, leaves, plain, diff, eval, c)
		}
		return forwardADCheck(fn, leaves, outs, diff, num, ana, c)
	}
	return nil
}

// differentiableInputs returns the indices of the inputs that require grad,
// or the error for none, or for one that is not float64 (unless
// AllowFloat32).
func differentiableInputs(inputs []*Tensor, c gradCheckConfig) ([]int, *GradCheckError) {
	var diff []int
	for i, in := range inputs {
		if in == nil || !in.RequiresGrad() {
			continue
		}
		if in.DType() != Float64 && !c.allowFloat32 {
			return nil, &GradCheckError{Kind: "dtype", Input: i, Element: -1,
				Msg: fmt.Sprintf("input %d requires gradient and is not a double precision floating point (%v); finite differences need float64: convert with To(agx.Float64), or pass AllowFloat32()", i, in.DType())}
		}
		diff = append(diff, i)
	}
	if len(diff) == 0 {
		return nil, &GradCheckError{Kind: "error", Element: -1, Msg: "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True"}
	}
	return diff, nil
}

// checkLeaves makes GradCheck's private copies of the inputs, so that the
// caller's tensors and grads are untouched: leaves for the analytical
// passes, plain for the finite differences, which write into them.
func checkLeaves(inputs []*Tensor) (leaves, plain []*Tensor) {
	leaves = make([]*Tensor, len(inputs))
	plain = make([]*Tensor, len(inputs))
	for i, in := range inputs {
		if in == nil {
			continue
		}
		// The finite-difference evaluations see inputs that require grad, as
		// in PyTorch, so a function that checks RequiresGrad or registers a
		// hook behaves there as it does for the analytical pass.
		plain[i] = wrap(in.data.Clone())
		if in.RequiresGrad() {
			plain[i].requiresGrad = true
		}
		leaves[i] = wrap(in.data)
		if in.RequiresGrad() {
			leaves[i] = wrap(in.data.Clone()).SetRequiresGrad(true)
		}
	}
	return leaves, plain
}

// evaluator returns a function that runs fn on plain and returns the values
// of its float outputs as float64 (nil for the others), reusing the slices
// of r, a previous result (nil for fresh ones).
func evaluator(fn func(in ...*Tensor) []*Tensor, plain []*Tensor) func(r [][]float64) [][]float64 {
	return func(r [][]float64) [][]float64 {
		o := fn(plain...)
		fresh := len(r) != len(o)
		if fresh {
			r = make([][]float64, len(o))
		}
		for i := range o {
			switch {
			case !o[i].DType().IsFloat():
				r[i] = nil
			case fresh:
				r[i] = o[i].data.Float64s()
			default:
				r[i] = appendFloat64s(r[i][:0], o[i].data)
			}
		}
		return r
	}
}

// anyDifferentiable reports whether some output is float and requires grad.
func anyDifferentiable(outs []*Tensor) bool {
	for _, o := range outs {
		if o.RequiresGrad() && o.DType().IsFloat() {
			return true
		}
	}
	return false
}

// locateInSlowMode reruns a check whose fast mode found a Jacobian mismatch
// in slow mode, as PyTorch does, to name the element in e.
func locateInSlowMode(fn func(in ...*Tensor) []*Tensor, inputs []*Tensor, c gradCheckConfig, e *GradCheckError) {
	slow := c
	slow.fast = false
	var se *GradCheckError
	if err := gradCheck(fn, inputs, slow); errors.As(err, &se) && se.Kind == "jacobian" {
		e.Element, e.OutElement = se.Element, se.OutElement
		e.NumericalJacobian, e.AnalyticalJacobian = se.NumericalJacobian, se.AnalyticalJacobian
		e.Msg += "\nRerun in slow mode (FastMode off): " + se.Msg
	} else {
		e.Msg += "\nRerun in slow mode (FastMode off), the Jacobians agree: the mismatch may come from the tolerances in fast mode."
	}
}

// numericalJacobian returns num[o][i], the Jacobian of output o with respect
// to differentiable input i ([numel(out)][numel(in)]), by central
// differences of step eps on each element of plain[i].
func numericalJacobian(outs, plain []*Tensor, diff []int, evalInto func([][]float64) [][]float64, c gradCheckConfig) [][][][]float64 {
	num := make([][][][]float64, len(outs))
	for o := range outs {
		num[o] = make([][][]float64, len(plain))
	}
	var plus, minus [][]float64
	for _, i := range diff {
		get, set, n := accessor(plain[i].data)
		for o := range outs {
			num[o][i] = newMatrix(outs[o].Numel(), n)
		}
		for j := 0; j < n; j++ {
			orig := get(j)
			set(j, orig+c.eps)
			plus = evalInto(plus)
			set(j, orig-c.eps)
			minus = evalInto(minus)
			set(j, orig)
			for o := range outs {
				for k := range plus[o] {
					num[o][i][k][j] = (plus[o][k] - minus[o][k]) / (2 * c.eps)
				}
			}
		}
	}
	return num
}

// compareJacobians compares the numerical and analytical Jacobians of each
// differentiable output. As PyTorch, only those are checked: an output
// marked non-differentiable may well change with the input.
func compareJacobians(num, ana [][][][]float64, outs []*Tensor, diff []int, c gradCheckConfig) *GradCheckError {
	for o := range outs {
		if !outs[o].RequiresGrad() || !outs[o].DType().IsFloat() {
			continue
		}
		for _, i := range diff {
			if e := compareJacobian(num[o][i], ana[o][i], o, i, c); e != nil {
				return e
			}
		}
	}
	return nil
}

// reentrancyCheck compares two analytical Jacobians from the same inputs
// and grad_outputs: they may differ by NondetTol at most.
func reentrancyCheck(ana, again [][][][]float64, c gradCheckConfig) *GradCheckError {
	for o := range ana {
		for i := range ana[o] {
			for k := range ana[o][i] {
				for j := range ana[o][i][k] {
					if d := math.Abs(ana[o][i][k][j] - again[o][i][k][j]); d > c.nondetTol {
						e := nondetError(c, o, i, j, ana[o][i][k][j], d)
						e.OutElement = k
						return e
					}
				}
			}
		}
	}
	return nil
}

func newMatrix(rows, cols int) [][]float64 {
	m := make([][]float64, rows)
	flat := make([]float64, rows*cols)
	for r := range m {
		m[r] = flat[r*cols : (r+1)*cols]
	}
	return m
}

// analyticalJacobian builds J[o][i] row by row from one-hot output gradients.
func analyticalJacobian(outs, leaves []*Tensor, diff []int) [][][][]float64 {
	ana := make([][][][]float64, len(outs))
	diffLeaves := make([]*Tensor, len(diff))
	for k, i := range diff {
		diffLeaves[k] = leaves[i]
	}
	for o, out := range outs {
		ana[o] = make([][][]float64, len(leaves))
		for _, i := range diff {
			ana[o][i] = newMatrix(out.Numel(), leaves[i].Numel())
		}
		if !out.RequiresGrad() || !out.DType().IsFloat() {
			continue
		}
		for k := 0; k < out.Numel(); k++ {
			oh := onehotAt(out, k)
			grads := Grad([]*Tensor{out}, diffLeaves, GradOutputs(oh), RetainGraph(), AllowUnused())
			for d, i := range diff {
				if grads[d] == nil {
					continue
				}
				copy(ana[o][i][k], grads[d].data.Float64s())
			}
		}
	}
	return ana
}

func onehotAt(out *Tensor, k int) *Tensor {
	v := make([]float64, out.Numel())
	v[k] = 1
	return wrap(tensor.FromSlice(v, len(v)).Reshape(out.data.Shape()...).To(out.DType()))
}

func compareJacobian(num, ana [][]float64, o, i int, c gradCheckConfig) *GradCheckError {
	for k := range num {
		for j := range num[k] {
			n, a := num[k][j], ana[k][j]
			if math.Abs(a-n) > c.atol+c.rtol*math.Abs(n) || math.IsNaN(a) != math.IsNaN(n) {
				return &GradCheckError{Kind: "jacobian", Output: o, Input: i, Element: j, OutElement: k,
					Numerical: n, Analytical: a, NumericalJacobian: num, AnalyticalJacobian: ana,
					Msg: fmt.Sprintf("Jacobian mismatch for output %d with respect to input %d,\nat input element %d, output element %d: numerical %.6g vs analytical %.6g (atol %g, rtol %g)\nnumerical:%s\nanalytical:%s",
						o, i, j, k, n, a, c.atol, c.rtol, formatMatrix(num), formatMatrix(ana))}
			}
		}
	}
	return nil
}

func formatMatrix(m [][]float64) string {
	var b strings.Builder
	const maxRows = 8
	for r, row := range m {
		if r == maxRows {
			fmt.Fprintf(&b, "\n  ... (%d rows)", len(m))
			break
		}
		b.WriteString("\n  [")
		for j, v := range row {
			if j == 12 {
				fmt.Fprintf(&b, " ... (%d cols)", len(row))
				break
			}
			if j > 0 {
				b.WriteString(", ")
			}
			cell := fmt.Sprintf("%.4f", v)
			if cell == "-0.0000" {
				cell = "0.0000" // tiny negatives and -0 read as noise otherwise
			}
			b.WriteString(cell)
		}
		b.WriteString("]")
	}
	return b.String()
}

// scalingCheck verifies that backward multiplies by grad_output: with a
// random grad_output v whose entries are far from 1 (in [2, 3)), backward(v)
// must be vᵀJ. A Backward that ignores the size of its incoming gradient
// passes the Jacobian check (one-hot gradients are 1) and the zero check
// (mulByGradOutputCheck), but not this one. Slow mode compares each element
// with vᵀJ from the analytical Jacobian ana (already checked against the
// numerical one); fast mode, which has no Jacobian (ana is nil), compares
// backward(v)·u with the numerical vᵀ(J u) along a random unit direction u.
func scalingCheck(outs, leaves, plain []*Tensor, diff []int, ana [][][][]float64, eval func() [][]float64, c gradCheckConfig) *GradCheckError {
	gen := tensor.NewGenerator(c.seed + 1)
	diffLeaves := make([]*Tensor, len(diff))
	for k, i := range diff {
		diffLeaves[k] = leaves[i]
	}
	for o, out := range outs {
		if !out.RequiresGrad() || !out.DType().IsFloat() {
			continue
		}
		v := gen.Uniform(tensor.Float64, 2, 3, out.data.Shape()...).Float64s()
		vt := wrap(tensor.FromSlice(v, len(v)).Reshape(out.data.Shape()...).To(out.DType()))
		grads := Grad([]*Tensor{out}, diffLeaves, GradOutputs(vt), RetainGraph(), AllowUnused())
		for d, i := range diff {
			got := make([]float64, leaves[i].Numel())
			if grads[d] != nil {
				got = grads[d].data.Float64s()
			}
			var e *GradCheckError
			if ana != nil {
				e = scalingElements(o, i, v, got, ana[o][i], c)
			} else {
				e = scalingAlong(o, i, v, got, plain[i], eval, gen, c)
			}
			if e != nil {
				return e
			}
		}
	}
	return nil
}

// scalingElements compares got = backward(v) for input i with vᵀJ, element
// by element, J being output o's analytical Jacobian for input i.
func scalingElements(o, i int, v, got []float64, jac [][]float64, c gradCheckConfig) *GradCheckError {
	want := make([]float64, len(got))
	for k, vk := range v {
		for j := range want {
			want[j] += vk * jac[k][j]
		}
	}
	for j := range want {
		if math.Abs(got[j]-want[j]) > c.atol+c.rtol*math.Abs(want[j]) {
			return &GradCheckError{Kind: "grad-scaling", Output: o, Input: i, Element: j, Numerical: want[j], Analytical: got[j],
				Msg: fmt.Sprintf("backward not multiplied by grad_output for output %d with respect to input %d: with a random grad_output v, element %d of backward(v) is %.6g but vᵀJ is %.6g (does Backward multiply by the incoming gradient?)", o, i, j, got[j], want[j])}
		}
	}
	return nil
}

// scalingAlong compares got = backward(v) for input i, projected on a random
// unit direction u, with vᵀ(J u) from central differences of output o along
// u, with fast mode's tolerance (atol scaled by Σu·Σv).
func scalingAlong(o, i int, v, got []float64, in *Tensor, eval func() [][]float64, gen *tensor.Generator, c gradCheckConfig) *GradCheckError {
	u := unitRand(gen, in.Numel())
	plus, minus := evalAlong(in, u, eval, c.eps)
	num, ana, sumU, sumV := 0.0, 0.0, 0.0, 0.0
	for k, vk := range v {
		num += vk * (plus[o][k] - minus[o][k]) / (2 * c.eps)
		sumV += vk
	}
	for j, uj := range u {
		ana += got[j] * uj
		sumU += uj
	}
	if math.Abs(ana-num) > c.atol*sumU*sumV+c.rtol*math.Abs(num) || math.IsNaN(ana) != math.IsNaN(num) {
		return &GradCheckError{Kind: "grad-scaling", Output: o, Input: i, Element: -1, Numerical: num, Analytical: ana,
			Msg: fmt.Sprintf("backward not multiplied by grad_output for output %d with respect to input %d: with a random grad_output v and a random direction u, backward(v)·u is %.6g but vᵀJu is %.6g (fast mode; does Backward multiply by the incoming gradient?)", o, i, ana, num)}
	}
	return nil
}

// evalAlong evaluates the function at in + eps·u and at in - eps·u (in is
// one of GradCheck's plain inputs, written in place and restored after).
func evalAlong(in *Tensor, u []float64, eval func() [][]float64, eps float64) (plus, minus [][]float64) {
	get, set, n := accessor(in.data)
	orig := make([]float64, n)
	for j := range orig {
		orig[j] = get(j)
	}
	shift := func(sign float64) {
		for j := range orig {
			set(j, orig[j]+sign*eps*u[j])
		}
	}
	shift(1)
	plus = eval()
	shift(-1)
	minus = eval()
	shift(0)
	return plus, minus
}

// unitRand returns n uniform numbers in [0, 1) from gen, scaled to unit
// length (when not all zero).
func unitRand(gen *tensor.Generator, n int) []float64 {
	u := gen.Rand(tensor.Float64, n).Float64s()
	norm := 0.0
	for _, x := range u {
		norm += x * x
	}
	if norm = math.Sqrt(norm); norm > 0 {
		for j := range u {
			u[j] /= norm
		}
	}
	return u
}

// undefinedGradCheck runs backward with no gradient for every output and
// expects nil or zero input gradients.
func undefinedGradCheck(outs, leaves []*Tensor, diff []int) (ge *GradCheckError) {
	var roots []*Tensor
	for _, o := range outs {
		if o.RequiresGrad() && o.DType().IsFloat() {
			roots = append(roots, o)
		}
	}
	if len(roots) == 0 {
		return nil
	}
	diffLeaves := make([]*Tensor, len(diff))
	for k, i := range diff {
		diffLeaves[k] = leaves[i]
	}
	var grads []*Tensor
	err := tryAny(func() {
		grads = run("GradCheck", roots, diffLeaves, backwardConfig{retainGraph: true, allowUnused: true, undefinedRoots: true})
	})
	if err != nil {
		return &GradCheckError{Kind: "undefined-grad", Element: -1, cause: err,
			Msg: "Expected backward function to handle undefined output grads (nil gradients, treated as zeros): " + err.Error()}
	}
	for d, g := range grads {
		if g == nil {
			continue
		}
		for j, v := range g.data.Float64s() {
			if v != 0 {
				return &GradCheckError{Kind: "undefined-grad", Input: diff[d], Element: j, Analytical: v,
					Msg: fmt.Sprintf("Expected all input grads to be undefined or zero when all output grads are undefined or zero; input %d element %d is %g", diff[d], j, v)}
			}
		}
	}
	return nil
}

// tryAny is Try that also turns other panics (typically a nil dereference in a
// Backward handed a nil gradient) into an error, for the undefined-grad check.
func tryAny(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	f()
	return nil
}

// fastCheck is PyTorch's fast mode: for each differentiable input i a random
// unit vector u (uniform entries in [0, 1), normalised), for each
// differentiable output o a random unit v (likewise); it compares vᵀ(J u) from central differences
// along u with (vᵀJ)·u from backward, per output and input, with atol scaled
// by Σu·Σv. Backward runs twice per output to check reentrancy.
func fastCheck(leaves, plain, outs []*Tensor, diff []int, eval func() [][]float64, c gradCheckConfig) *GradCheckError {
	gen := tensor.NewGenerator(c.seed)
	us := make([][]float64, len(diff))
	for d, i := range diff {
		us[d] = unitRand(gen, leaves[i].Numel())
	}
	vs := make([][]float64, len(outs))
	for o, out := range outs {
		if out.DType().IsFloat() && out.RequiresGrad() {
			// Only differentiable outputs, each with a unit v, as PyTorch.
			vs[o] = unitRand(gen, out.Numel())
		}
	}
	// Numerical: num[d][o] = vᵀ·(f(x + eps·u) - f(x - eps·u)) / 2eps.
	num := make([][]float64, len(diff))
	for d, i := range diff {
		plus, minus := evalAlong(plain[i], us[d], eval, c.eps)
		num[d] = make([]float64, len(outs))
		for o := range outs {
			if vs[o] == nil || plus[o] == nil {
				continue
			}
			for k := range plus[o] {
				num[d][o] += vs[o][k] * (plus[o][k] - minus[o][k]) / (2 * c.eps)
			}
		}
	}
	ana, e := fastAnalytical(outs, leaves, diff, us, vs, c)
	if e != nil {
		return e
	}
	for d, i := range diff {
		sumU := 0.0
		for _, x := range us[d] {
			sumU += x
		}
		for o := range outs {
			if vs[o] == nil {
				continue
			}
			sumV := 0.0
			for _, x := range vs[o] {
				sumV += x
			}
			n, a := num[d][o], ana[d][o]
			if math.Abs(a-n) > c.atol*sumU*sumV+c.rtol*math.Abs(n) || math.IsNaN(a) != math.IsNaN(n) {
				return &GradCheckError{Kind: "jacobian", Output: o, Input: i, Element: -1, Numerical: n, Analytical: a,
					Msg: fmt.Sprintf("Jacobian mismatch for output %d with respect to input %d,\nnumerical:%.6g\nanalytical:%.6g\n\nThese are vᵀJu for random vectors u and v (fast mode).", o, i, n, a)}
			}
		}
	}
	return nil
}

// fastAnalytical returns ana[d][o] = (vᵀJ)·u for fast mode's directions us
// (per differentiable input) and vs (per output, nil where not
// differentiable), running each backward twice to check reentrancy.
func fastAnalytical(outs, leaves []*Tensor, diff []int, us, vs [][]float64, c gradCheckConfig) ([][]float64, *GradCheckError) {
	diffLeaves := make([]*Tensor, len(diff))
	for k, i := range diff {
		diffLeaves[k] = leaves[i]
	}
	ana := make([][]float64, len(diff))
	for d := range ana {
		ana[d] = make([]float64, len(outs))
	}
	for o, out := range outs {
		if vs[o] == nil || !out.RequiresGrad() {
			continue
		}
		vt := wrap(tensor.FromSlice(vs[o], len(vs[o])).Reshape(out.data.Shape()...).To(out.DType()))
		g1 := Grad([]*Tensor{out}, diffLeaves, GradOutputs(vt), RetainGraph(), AllowUnused())
		g2 := Grad([]*Tensor{out}, diffLeaves, GradOutputs(vt), RetainGraph(), AllowUnused())
		for d, i := range diff {
			var a, b []float64
			if g1[d] != nil {
				a = g1[d].data.Float64s()
			}
			if g2[d] != nil {
				b = g2[d].data.Float64s()
			}
			for j := range max(len(a), len(b)) {
				x, y := at(a, j), at(b, j)
				if dd := math.Abs(x - y); dd > c.nondetTol {
					return nil, nondetError(c, o, i, j, x, dd)
				}
			}
			for j, x := range a {
				ana[d][o] += x * us[d][j]
			}
		}
	}
	return ana, nil
}

// at returns s[j], or 0 past its end (a nil gradient is zeros).
func at(s []float64, j int) float64 {
	if j < len(s) {
		return s[j]
	}
	return 0
}

// nondetError is the reentrancy failure, in PyTorch's words.
func nondetError(c gradCheckConfig, o, i, j int, v, d float64) *GradCheckError {
	return &GradCheckError{Kind: "nondeterministic", Output: o, Input: i, Element: j, Analytical: v,
		Msg: fmt.Sprintf("Backward is not reentrant, i.e., running backward with same input and grad_output multiple times gives different values, although analytical gradient matches numerical gradient. The tolerance for nondeterminism was %g (output %d, input %d, element %d differs by %g)", c.nondetTol, o, i, j, d)}
}

// mulByGradOutputCheck is PyTorch's check that backward multiplies by the
// incoming gradient: with zero output gradients every input gradient must be
// zero (or nil).
func mulByGradOutputCheck(outs, leaves []*Tensor, diff []int) *GradCheckError {
	var roots, zeros []*Tensor
	for _, o := range outs {
		if o.RequiresGrad() && o.DType().IsFloat() {
			roots = append(roots, o)
			zeros = append(zeros, wrap(tensor.Zeros(o.DType(), o.data.Shape()...)))
		}
	}
	if len(roots) == 0 {
		return nil
	}
	diffLeaves := make([]*Tensor, len(diff))
	for k, i := range diff {
		diffLeaves[k] = leaves[i]
	}
	grads := Grad(roots, diffLeaves, GradOutputs(zeros...), RetainGraph(), AllowUnused())
	for d, g := range grads {
		if g == nil {
			continue
		}
		for j, v := range g.data.Float64s() {
			if v != 0 {
				return &GradCheckError{Kind: "grad-scaling", Input: diff[d], Element: j, Analytical: v,
					Msg: fmt.Sprintf("backward not multiplied by grad_output: with zero output gradients, element %d of the gradient for input %d is %g (does Backward multiply by the incoming gradient?)", j, diff[d], v)}
			}
		}
	}
	return nil
}

// noDifferentiableOutputsCheck: when no output requires grad, the function's
// numerical gradient must be zero (per element, or along the random
// directions in fast mode, within NondetTol), as PyTorch checks.
func noDifferentiableOutputsCheck(plain []*Tensor, diff []int, eval func() [][]float64, c gradCheckConfig) *GradCheckError {
	gen := tensor.NewGenerator(c.seed)
	for _, i := range diff {
		get, set, n := accessor(plain[i].data)
		var dirs [][]float64
		if c.fast {
			dirs = [][]float64{gen.Rand(tensor.Float64, n).Float64s()}
		} else {
			for j := range n {
				e := make([]float64, n)
				e[j] = 1
				dirs = append(dirs, e)
			}
		}
		orig := make([]float64, n)
		for j := range orig {
			orig[j] = get(j)
		}
		for _, u := range dirs {
			for j := range orig {
				set(j, orig[j]+c.eps*u[j])
			}
			plus := eval()
			for j := range orig {
				set(j, orig[j]-c.eps*u[j])
			}
			minus := eval()
			for j := range orig {
				set(j, orig[j])
			}
			for o := range plus {
				for k := range plus[o] {
					if d := math.Abs(plus[o][k]-minus[o][k]) / (2 * c.eps); (c.fast && d > c.nondetTol) || (!c.fast && d != 0) {
						return &GradCheckError{Kind: "jacobian", Output: o, Input: i, Element: -1, OutElement: k, Numerical: d,
							Msg: "Numerical gradient for function expected to be zero: no output requires grad, yet output " + fmt.Sprint(o) + " changes with input " + fmt.Sprint(i)}
					}
				}
			}
		}
	}
	return nil
}

// accessor reads and writes the elements of a contiguous float tensor that
// GradCheck owns, in its own dtype.
func accessor(t *tensor.Tensor) (get func(int) float64, set func(int, float64), n int) {
	switch t.DType() {
	case tensor.Float32:
		s := tensor.Data[float32](t)
		return func(j int) float64 { return float64(s[j]) }, func(j int, v float64) { s[j] = float32(v) }, len(s)
	default:
		s := tensor.Data[float64](t)
		return func(j int) float64 { return s[j] }, func(j int, v float64) { s[j] = v }, len(s)
	}
}

// appendFloat64s appends t's elements, as float64, to dst; a contiguous
// float64 CPU tensor is copied straight from its storage.
func appendFloat64s(dst []float64, t *tensor.Tensor) []float64 {
	if _, cpu := t.Backend().(tensor.CPU); cpu && t.DType() == Float64 && t.IsContiguous() {
		return append(dst, tensor.Data[float64](t)...)
	}
	return append(dst, t.Float64s()...)
}
