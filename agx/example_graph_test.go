package agx_test

import (
	"errors"
	"fmt"

	"github.com/goagx/agx/agx"
)

// MulFn is a custom Function with two inputs: Forward saves both for
// Backward, which reads them back in the same order.
type MulFn struct{}

func (MulFn) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0], in[1])
	return agx.Outputs(in[0].Mul(in[1]))
}

func (MulFn) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	saved := ctx.SavedTensors()
	a, b := saved[0], saved[1]
	return agx.Outputs(g[0].Mul(b), g[0].Mul(a))
}

func ExampleCtx_SaveForBackward() {
	a := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	b := agx.FromSlice([]float64{3, 4}).SetRequiresGrad(true)
	agx.Apply(MulFn{}, a, b).Sum().Backward()
	fmt.Println(a.Grad(), b.Grad())
	// Output:
	// tensor([3., 4.], dtype=float64) tensor([1., 2.], dtype=float64)
}

// A saved tensor changed in place before Backward is caught when Backward
// reads it with SavedTensors, with PyTorch's message.
func ExampleCtx_SavedTensors() {
	a := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	b := agx.FromSlice([]float64{3, 4})
	y := agx.Apply(MulFn{}, a, b)
	b.AddInPlace(1) // b was saved
	err := agx.Try(func() { y.Sum().Backward() })
	fmt.Println(errors.Is(err, agx.ErrInplace))
	// Output:
	// true
}

// Outputs builds the slice Forward and Backward return; nil stands for
// "no gradient" for an input.
func ExampleOutputs() {
	g := agx.FromSlice([]float64{1, 2})
	grads := agx.Outputs(g, nil)
	fmt.Println(len(grads), grads[1] == nil)
	// Output:
	// 2 true
}

// Scale keeps a non-tensor value on the ctx with Set for Backward to read
// with Get: the factor it computed in Forward.
type Scale struct{}

func (Scale) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	k := float64(in[0].Size(0)) // a value known only once Forward runs
	ctx.Set("k", k)
	return agx.Outputs(in[0].Mul(k))
}

func (Scale) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	k := ctx.Get("k").(float64)
	return agx.Outputs(g[0].Mul(k))
}

func ExampleCtx_Set() {
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	agx.Apply(Scale{}, x).Sum().Backward()
	fmt.Println(x.Grad())
	// Output:
	// tensor([3., 3., 3.], dtype=float64)
}

// Get returns nil for a key never Set.
func ExampleCtx_Get() {
	probe := agx.Func{
		FuncName: "Probe",
		Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
			ctx.Set("seen", true)
			fmt.Println(ctx.Get("seen"), ctx.Get("missing"))
			return agx.Outputs(in[0].Clone())
		},
		Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return g },
	}
	agx.Apply(probe, agx.Scalar(1.0))
	// Output:
	// true <nil>
}

// FunctionName tells a Forward or Backward shared by several Functions
// which one it runs for.
func ExampleCtx_FunctionName() {
	fwd := func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
		fmt.Println("forward of", ctx.FunctionName())
		return agx.Outputs(in[0].Clone())
	}
	bwd := func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return g }
	x := agx.Scalar(1.0)
	agx.Apply(agx.Func{FuncName: "First", Fwd: fwd, Bwd: bwd}, x)
	agx.Apply(agx.Func{FuncName: "Second", Fwd: fwd, Bwd: bwd}, x)
	// Output:
	// forward of First
	// forward of Second
}

// TopOne (see ApplyN) marks its index output non-differentiable: it does
// not require grad, though the values output does.
func ExampleCtx_MarkNonDifferentiable() {
	x := agx.FromSlice([]float64{3, 7, 5}).SetRequiresGrad(true)
	out := agx.ApplyN(TopOne{}, x)
	fmt.Println(out[0].RequiresGrad(), out[1].RequiresGrad(), out[1])
	// Output:
	// true false tensor(1)
}

// IsGradEnabled is false inside NoGrad, where ops record nothing.
func ExampleIsGradEnabled() {
	fmt.Println(agx.IsGradEnabled())
	agx.NoGrad(func() { fmt.Println(agx.IsGradEnabled()) })
	// Output:
	// true
	// false
}

// Walking the backward graph by hand: each Node names its op, and its
// NextFunctions lead towards the leaves, where AccumulateGrad nodes hold
// the leaf tensors (Variable).
func ExampleNode_NextFunctions() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true).SetName("x")
	n := x.Exp().Sum().GradFn()
	for n != nil {
		fmt.Print(n.Name())
		if v := n.Variable(); v != nil {
			fmt.Print(" -> ", v.Name())
		}
		fmt.Println()
		next := n.NextFunctions()
		if len(next) == 0 {
			break
		}
		n = next[0].Node
	}
	// Output:
	// SumBackward0
	// ExpBackward0
	// AccumulateGrad -> x
}

func ExampleNode_Name() {
	a := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	fmt.Println(a.Mul(2).GradFn().Name(), agx.Apply(MulFn{}, a, a).GradFn().Name())
	// Output:
	// MulBackward0 MulFnBackward
}

// Variable is the leaf an AccumulateGrad node adds into; nil elsewhere.
func ExampleNode_Variable() {
	w := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := w.Mul(3)
	acc := y.GradFn().NextFunctions()[0].Node
	fmt.Println(acc.Name(), acc.Variable() == w, y.GradFn().Variable() == nil)
	// Output:
	// AccumulateGrad true true
}

// Function gives back the custom Function value a node runs, fields
// included; built-in ops have none.
func ExampleNode_Function() {
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	f := agx.Apply(ScaleShift{Shift: 0.5}, x, x).GradFn().Function()
	fmt.Printf("%T %v\n", f, f.(ScaleShift).Shift)
	fmt.Println(x.Exp().GradFn().Function() == nil)
	// Output:
	// agx_test.ScaleShift 0.5
	// true
}

// SinCos has two differentiable outputs, so its node has two, and each
// output knows its place (OutputNr).
var SinCos = agx.Func{
	FuncName: "SinCos",
	Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
		ctx.SaveForBackward(in[0])
		return agx.Outputs(in[0].Sin(), in[0].Cos())
	},
	Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
		x := ctx.SavedTensors()[0]
		return agx.Outputs(g[0].Mul(x.Cos()).Sub(g[1].Mul(x.Sin())))
	},
}

func ExampleNode_NumOutputs() {
	x := agx.FromSlice([]float64{0, 1}).SetRequiresGrad(true)
	out := agx.ApplyN(SinCos, x)
	fmt.Println(out[0].GradFn().NumOutputs(), x.Exp().GradFn().NumOutputs())
	// Output:
	// 2 1
}

func ExampleNode_OutputShape() {
	x := agx.Ones(agx.Float64, 2, 3).SetRequiresGrad(true)
	fmt.Println(x.Sum().GradFn().OutputShape(0), x.T().GradFn().OutputShape(0))
	// Output:
	// [] [3 2]
}

// SavedValues shows what a node keeps for backward: Exp saves its output.
func ExampleNode_SavedValues() {
	x := agx.FromSlice([]float64{0, 1}).SetRequiresGrad(true)
	y := agx.Apply(Exp{}, x)
	fmt.Println(y.GradFn().SavedValues())
	// Output:
	// [tensor([1.0000, 2.7183], dtype=float64)]
}

// A node hook sees the gradients a node computed for its inputs and may
// replace them: here it clips them to [-1, 1].
func ExampleNode_RegisterHook() {
	x := agx.FromSlice([]float64{0.5, 3}).SetRequiresGrad(true)
	y := x.Pow(2)
	y.GradFn().RegisterHook(func(gradInputs, gradOutputs []*agx.Tensor) []*agx.Tensor {
		fmt.Println("in", gradInputs[0], "out", gradOutputs[0])
		return agx.Outputs(gradInputs[0].Clamp(-1, 1))
	})
	y.Sum().Backward()
	fmt.Println(x.Grad())
	// Output:
	// in tensor([1., 6.], dtype=float64) out tensor([1., 1.], dtype=float64)
	// tensor([1., 1.], dtype=float64)
}

// A pre-hook sees (and may replace) the gradient arriving at a node
// before the node runs.
func ExampleNode_RegisterPreHook() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := x.Mul(3)
	y.GradFn().RegisterPreHook(func(gradOutputs []*agx.Tensor) []*agx.Tensor {
		return agx.Outputs(gradOutputs[0].Mul(0.5))
	})
	y.Sum().Backward()
	fmt.Println(x.Grad())
	// Output:
	// tensor([1.5000, 1.5000], dtype=float64)
}

// Remove ends a hook: the second backward pass runs without it.
func ExampleHookHandle_Remove() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := x.Mul(3).Sum()
	h := y.GradFn().RegisterPreHook(func(g []*agx.Tensor) []*agx.Tensor {
		fmt.Println("hook ran")
		return nil // keep the gradient
	})
	y.Backward(agx.RetainGraph())
	h.Remove()
	y.Backward()
	fmt.Println(x.Grad())
	// Output:
	// hook ran
	// tensor([6., 6.], dtype=float64)
}

// DoubleInPlace doubles its input in place and says so with MarkDirty.
type DoubleInPlace struct{}

func (DoubleInPlace) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	in[0].MulInPlace(2)
	ctx.MarkDirty(in[0])
	return agx.Outputs(in[0])
}

func (DoubleInPlace) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(2))
}

// Apply returns the modified input itself, now the output of the Function.
// (As in PyTorch, a leaf that requires grad may not be modified in place, so
// the Function gets a copy.)
func ExampleCtx_MarkDirty() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	a := x.Clone()
	y := agx.Apply(DoubleInPlace{}, a)
	y.Mul(y).Sum().Backward() // d/dx (2x)² = 8x
	fmt.Println(y == a, a)
	fmt.Println(x.Grad())
	// Output:
	// true tensor([2., 4.], dtype=float64, grad_fn=<DoubleInPlaceBackward>)
	// tensor([ 8., 16.], dtype=float64)
}

// TwoMultiples returns 2x and 3x. With SetMaterializeGrads(false), Backward
// gets nil, not zeros, for an output that received no gradient, and can skip
// its share of the work.
type TwoMultiples struct{}

func (TwoMultiples) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SetMaterializeGrads(false)
	return agx.Outputs(in[0].Mul(2), in[0].Mul(3))
}

func (TwoMultiples) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	fmt.Println("gradient of 3x:", g[1])
	gx := g[0].Mul(2)
	if g[1] != nil {
		gx = gx.Add(g[1].Mul(3))
	}
	return agx.Outputs(gx)
}

func ExampleCtx_SetMaterializeGrads() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	out := agx.ApplyN(TwoMultiples{}, x)
	out[0].Sum().Backward() // only 2x is used
	fmt.Println(x.Grad())
	// Output:
	// gradient of 3x: <nil>
	// tensor([2., 2.], dtype=float64)
}
