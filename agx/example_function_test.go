package agx_test

import (
	"errors"
	"fmt"

	"github.com/goagx/agx/agx"
)

// Exp is a custom Function: Forward computes exp(x) and saves the result,
// which is also the derivative, for Backward.
type Exp struct{}

func (Exp) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	y := in[0].Exp()
	ctx.SaveForBackward(y)
	return agx.Outputs(y)
}

func (Exp) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	y := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(y))
}

// Apply runs a Function and records its node in the graph.
func ExampleApply() {
	x := agx.FromSlice([]float64{0, 1}).SetRequiresGrad(true)
	y := agx.Apply(Exp{}, x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([1.0000, 2.7183], dtype=float64, grad_fn=<ExpBackward>)
	// tensor([1.0000, 2.7183], dtype=float64)
}

// ScaleShift has two inputs and a non-tensor parameter (a field). Backward
// asks NeedsInputGrad so that it computes only the gradients wanted.
type ScaleShift struct{ Shift float64 }

func (f ScaleShift) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0], in[1])
	return agx.Outputs(in[0].Mul(in[1]).Add(f.Shift))
}

func (ScaleShift) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x, w := ctx.SavedTensors()[0], ctx.SavedTensors()[1]
	gx, gw := (*agx.Tensor)(nil), (*agx.Tensor)(nil)
	if ctx.NeedsInputGrad(0) {
		gx = g[0].Mul(w)
	}
	if ctx.NeedsInputGrad(1) {
		gw = g[0].Mul(x)
	}
	return agx.Outputs(gx, gw)
}

func ExampleCtx_NeedsInputGrad() {
	x := agx.FromSlice([]float64{1, 2})                       // no grad wanted
	w := agx.FromSlice([]float64{3, 4}).SetRequiresGrad(true) // grad wanted
	agx.Apply(ScaleShift{Shift: 1}, x, w).Sum().Backward()
	fmt.Println(w.Grad(), x.Grad())
	// Output:
	// tensor([1., 2.], dtype=float64) <nil>
}

// TopOne returns the largest value and its index; the index is marked
// non-differentiable, and a value stored with Set reaches Backward.
type TopOne struct{}

func (TopOne) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	v, i := in[0].MaxDim(0, false)
	ctx.MarkNonDifferentiable(i)
	ctx.Set("n", in[0].Size(0))
	ctx.SaveForBackward(i)
	return agx.Outputs(v, i)
}

func (TopOne) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	n := agx.CtxValue[int](ctx, "n")
	i := ctx.SavedTensors()[0]
	return agx.Outputs(agx.OneHot(i, n).To(g[0].DType()).Mul(g[0]))
}

func ExampleApplyN() {
	x := agx.FromSlice([]float64{3, 7, 5}).SetRequiresGrad(true)
	out := agx.ApplyN(TopOne{}, x)
	out[0].Backward()
	fmt.Println(out[0].Item(), out[1].Item(), out[1].RequiresGrad(), x.Grad())
	// Output:
	// 7 1 false tensor([0., 1., 0.], dtype=float64)
}

func ExampleCtxValue() {
	x := agx.FromSlice([]float64{3, 7, 5}).SetRequiresGrad(true)
	agx.ApplyN(TopOne{}, x)[0].Backward() // Backward reads CtxValue[int](ctx, "n")
	fmt.Println(x.Grad())
	// Output:
	// tensor([0., 1., 0.], dtype=float64)
}

// Func is the closure form of a Function, handy in a notebook cell.
func ExampleFunc() {
	cube := agx.Func{
		FuncName: "Cube",
		Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
			ctx.SaveForBackward(in[0])
			return agx.Outputs(in[0].Pow(3))
		},
		Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
			x := ctx.SavedTensors()[0]
			return agx.Outputs(g[0].Mul(x.Mul(x)).Mul(3))
		},
	}
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := agx.Apply(cube, x)
	y.Sum().Backward()
	fmt.Println(y.GradFn().Name(), x.Grad())
	// Output:
	// CubeBackward tensor([ 3., 12.], dtype=float64)
}

func ExampleFunctionName() {
	fmt.Println(agx.FunctionName(Exp{}), agx.FunctionName(agx.Func{FuncName: "Cube"}))
	// Output:
	// Exp Cube
}

// GradCheck compares Backward with finite differences (use float64 inputs).
func ExampleGradCheck() {
	agx.ManualSeed(1)
	x := agx.Randn(agx.Float64, 3).SetRequiresGrad(true)
	fmt.Println(agx.GradCheck(Exp{}, []*agx.Tensor{x}))

	// A wrong Backward is reported with the element that disagrees.
	wrong := agx.Func{FuncName: "WrongExp",
		Fwd: Exp{}.Forward,
		Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0]) },
	}
	err := agx.GradCheck(wrong, []*agx.Tensor{agx.Scalar(0.5).SetRequiresGrad(true)})
	var ge *agx.GradCheckError
	fmt.Println(errors.Is(err, agx.ErrGradCheck), errors.As(err, &ge) && ge.Kind == "jacobian")
	// Output:
	// <nil>
	// true true
}

// GradCheck also takes a plain function over tensors, and options.
func ExampleGradCheck_func() {
	agx.ManualSeed(1)
	f := func(a, b *agx.Tensor) *agx.Tensor { return a.Mul(b).Sin() }
	a := agx.Randn(agx.Float64, 2).SetRequiresGrad(true)
	b := agx.Randn(agx.Float64, 2).SetRequiresGrad(true)
	fmt.Println(agx.GradCheck(f, []*agx.Tensor{a, b}, agx.Eps(1e-6), agx.Atol(1e-5), agx.Rtol(1e-3)))
	// Output:
	// <nil>
}

// GradGradCheck checks the gradient of the gradient (Backward built from
// differentiable ops, as Exp's is).
func ExampleGradGradCheck() {
	agx.ManualSeed(1)
	x := agx.Randn(agx.Float64, 3).SetRequiresGrad(true)
	fmt.Println(agx.GradGradCheck(Exp{}, []*agx.Tensor{x}))
	// Output:
	// <nil>
}

// MustGradCheck panics instead of returning the error: for notebook cells.
func ExampleMustGradCheck() {
	agx.ManualSeed(1)
	agx.MustGradCheck(Exp{}, []*agx.Tensor{agx.Randn(agx.Float64, 2).SetRequiresGrad(true)})
	agx.MustGradGradCheck(Exp{}, []*agx.Tensor{agx.Randn(agx.Float64, 2).SetRequiresGrad(true)})
	fmt.Println("ok")
	// Output:
	// ok
}

// Embedding Once marks a Function whose Backward is not differentiable:
// a second derivative through it is refused rather than silently wrong.
type RoundOnce struct{ agx.Once }

func (RoundOnce) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Round())
}

func (RoundOnce) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0])
}

func ExampleOnce() {
	x := agx.Scalar(1.4).SetRequiresGrad(true)
	g := agx.Grad1(agx.Apply(RoundOnce{}, x).Mul(x), x, agx.CreateGraph())
	err := agx.Try(func() { g.Backward() })
	fmt.Println(errors.Is(err, agx.ErrOnceDifferentiable))
	// Output:
	// true
}
