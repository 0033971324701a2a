package grade

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// C is handed to a check's function. Its assertions stop the check at the
// first one that fails, with a message for the student; like testing.T's
// FailNow they must be called from the check's own goroutine.
type C struct {
	msg string
}

// errFailNow is the panic value with which a failed assertion unwinds the check.
var errFailNow = errors.New("grade: check failed")

// Fail fails the check with a formatted message.
func (c *C) Fail(format string, args ...any) {
	c.msg = fmt.Sprintf(format, args...)
	panic(errFailNow)
}

// True fails the check with the formatted message unless cond holds.
func (c *C) True(cond bool, format string, args ...any) {
	if !cond {
		c.Fail(format, args...)
	}
}

// NoError fails the check if err is not nil; what says what was being done.
func (c *C) NoError(err error, what string) {
	if err != nil {
		c.Fail("%s: %v", what, err)
	}
}

// Shape fails the check unless t is a tensor of the given shape.
func (c *C) Shape(t *agx.Tensor, shape ...int) {
	if t == nil {
		c.Fail("got a nil tensor, want shape %v", shape)
	}
	if got := t.Shape(); !slices.Equal(got, shape) {
		c.Fail("shape %v, want %v", got, shape)
	}
}

// Close fails the check unless got and want have the same shape and
// |got - want| <= atol + rtol·|want| holds element-wise (PyTorch's allclose;
// NaN matches nothing). Values are compared as float64 whatever the dtypes.
func (c *C) Close(got, want *agx.Tensor, rtol, atol float64) {
	if want == nil {
		panic("grade: Close: want is nil")
	}
	c.Shape(got, want.Shape()...)
	c.closeValues(got.Shape(), got.Float64s(), want.Float64s(), rtol, atol)
}

// CloseValues fails the check unless got and want have the same length and
// |got - want| <= tol·(1 + |want|) holds element-wise.
func (c *C) CloseValues(got, want []float64, tol float64) {
	if len(got) != len(want) {
		c.Fail("got %d values, want %d", len(got), len(want))
	}
	c.closeValues([]int{len(got)}, got, want, tol, tol)
}

func (c *C) closeValues(shape []int, got, want []float64, rtol, atol float64) {
	bad, first := 0, -1
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= atol+rtol*math.Abs(want[i])) {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad == 0 {
		return
	}
	g, w := got[first], want[first]
	c.Fail("%d of %d values differ; first at %v: got %.6g, want %.6g (difference %.3g, tolerance %.3g)",
		bad, len(want), index(shape, first), g, w, math.Abs(g-w), atol+rtol*math.Abs(w))
}

// index turns a flat row-major position into a multi-index.
func index(shape []int, flat int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = flat % shape[d]
			flat /= shape[d]
		}
	}
	return idx
}

// GradCheck fails the check unless agx.GradCheck passes for f (a Function or a
// func over tensors) at inputs, with agx's default tolerances and opts.
func (c *C) GradCheck(f any, inputs []*agx.Tensor, opts ...agx.GradCheckOption) {
	if err := agx.GradCheck(f, inputs, opts...); err != nil {
		c.Fail("%v", err)
	}
}

// GradMatches fails the check unless f and ref (each a Function or a func over
// tensors, as for agx.GradCheck) have the same outputs and the same gradients
// with respect to every input at inputs. ref is usually the same math composed
// from agx's built-in ops. The gradients are vector-Jacobian products with a
// fixed pseudo-random output gradient, compared with rtol 1e-5, atol 1e-8
// (float64) or rtol 1e-4, atol 1e-5 (float32). The inputs are not modified.
func (c *C) GradMatches(f, ref any, inputs ...*agx.Tensor) {
	gotOut, gotGrads := vjp(c, "your function", f, inputs)
	wantOut, wantGrads := vjp(c, "the reference", ref, inputs)
	if len(gotOut) != len(wantOut) {
		c.Fail("%d outputs, want %d", len(gotOut), len(wantOut))
	}
	for k := range wantOut {
		rtol, atol := tolerances(wantOut[k].DType())
		c.withContext(fmt.Sprintf("output %d", k), func() { c.Close(gotOut[k], wantOut[k], rtol, atol) })
	}
	for i := range wantGrads {
		g, w := gotGrads[i], wantGrads[i]
		switch {
		case g == nil && w == nil:
			continue
		case g == nil:
			c.Fail("no gradient for input %d, want one", i)
		case w == nil:
			c.Fail("a gradient for input %d, which should get none", i)
		}
		rtol, atol := tolerances(w.DType())
		c.withContext(fmt.Sprintf("gradient of input %d", i), func() { c.Close(g, w, rtol, atol) })
	}
}

func tolerances(dt agx.DType) (rtol, atol float64) {
	if dt == tensor.Float32 {
		return 1e-4, 1e-5
	}
	return 1e-5, 1e-8
}

// withContext runs an assertion and prefixes its failure message with what.
func (c *C) withContext(what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			if r == errFailNow {
				c.msg = what + ": " + c.msg
			}
			panic(r)
		}
	}()
	fn()
}

// vjp evaluates f on fresh leaf copies of inputs and back-propagates a fixed
// pseudo-random output gradient; it returns the outputs (detached) and one
// gradient per input (nil where there is none).
func vjp(c *C, who string, f any, inputs []*agx.Tensor) (outs, grads []*agx.Tensor) {
	leaves := make([]*agx.Tensor, len(inputs))
	var diff []*agx.Tensor
	var diffAt []int
	for i, x := range inputs {
		leaves[i] = agx.New(x.Data().Clone())
		if dt := x.DType(); dt == tensor.Float32 || dt == tensor.Float64 {
			leaves[i].SetRequiresGrad(true)
			diff, diffAt = append(diff, leaves[i]), append(diffAt, i)
		}
	}
	ys := call(f, leaves)
	gen := tensor.NewGenerator(20240501)
	var outsWithGrad, gouts []*agx.Tensor
	for k, y := range ys {
		if y == nil {
			c.Fail("%s returned a nil output %d", who, k)
		}
		outs = append(outs, y.Detach())
		if y.RequiresGrad() {
			outsWithGrad = append(outsWithGrad, y)
			gouts = append(gouts, agx.New(gen.Randn(y.DType(), y.Shape()...)))
		}
	}
	grads = make([]*agx.Tensor, len(inputs))
	if len(outsWithGrad) == 0 || len(diff) == 0 {
		return outs, grads
	}
	gs := agx.Grad(outsWithGrad, diff, agx.GradOutputs(gouts...), agx.AllowUnused())
	for j, i := range diffAt {
		grads[i] = gs[j]
	}
	return outs, grads
}

// call applies f (as accepted by agx.GradCheck) to inputs.
func call(f any, in []*agx.Tensor) []*agx.Tensor {
	switch fn := f.(type) {
	case agx.Function:
		return agx.ApplyN(fn, in...)
	case func(...*agx.Tensor) []*agx.Tensor:
		return fn(in...)
	case func(...*agx.Tensor) *agx.Tensor:
		return []*agx.Tensor{fn(in...)}
	case func(*agx.Tensor) *agx.Tensor:
		return []*agx.Tensor{fn(in[0])}
	case func(*agx.Tensor, *agx.Tensor) *agx.Tensor:
		return []*agx.Tensor{fn(in[0], in[1])}
	}
	panic(fmt.Sprintf("grade: GradMatches: unsupported function type %T (pass an agx.Function or a func over *agx.Tensor)", f))
}

// Panics fails the check unless fn panics with a value whose text contains
// want (any panic when want is empty).
func (c *C) Panics(fn func(), want string) {
	var r any
	panicked := func() (p bool) {
		defer func() {
			if r = recover(); r != nil {
				p = true
			}
		}()
		fn()
		return false
	}()
	if !panicked {
		c.Fail("no panic, want one mentioning %q", want)
	}
	text := fmt.Sprint(r)
	if e, ok := r.(error); ok {
		text = e.Error()
	}
	if !strings.Contains(text, want) {
		c.Fail("panic %q does not mention %q", text, want)
	}
}

// normalize makes multiple-choice answers comparable: trimmed, lower case.
func normalize(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Choice fails the check unless answer is correct (ignoring case and
// surrounding space). The message never reveals the correct answer.
func (c *C) Choice(answer, correct string) {
	if normalize(answer) == "" {
		c.Fail("no answer given yet")
	}
	if normalize(answer) != normalize(correct) {
		c.Fail("%q is not the right answer", answer)
	}
}

// Choices fails the check unless answers and correct hold the same set of
// options (order, case and repeats ignored): for questions with several right
// options. The message never reveals the correct answers.
func (c *C) Choices(answers, correct []string) {
	set := func(xs []string) []string {
		var out []string
		for _, x := range xs {
			if n := normalize(x); n != "" {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	got, want := set(answers), set(correct)
	if len(got) == 0 {
		c.Fail("no answer given yet")
	}
	if !slices.Equal(got, want) {
		c.Fail("the selection %q is not right", answers)
	}
}
