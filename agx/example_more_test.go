package agx_test

import (
	"errors"
	"fmt"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// View reshapes without copying: the view shares the storage of x.
func ExampleTensor_View() {
	x := agx.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	v := x.View(3, 2)
	x.MulInPlace(10) // visible through v
	fmt.Println(v)
	// Output:
	// tensor([[10., 20.],
	//         [30., 40.],
	//         [50., 60.]])
}

// Clone copies the data; the gradient flows back to the original.
func ExampleTensor_Clone() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	c := x.Clone()
	c.Mul(3).Sum().Backward()
	fmt.Println(c.Detach().Add(1), x.Grad())
	// Output:
	// tensor([2., 3.], dtype=float64) tensor([3., 3.], dtype=float64)
}

// A transpose is a strided view, so View refuses it; Contiguous copies it
// into row-major order first.
func ExampleTensor_Contiguous() {
	x := agx.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	t := x.T() // [[1 4] [2 5] [3 6]], not row-major in memory
	fmt.Println(agx.Try(func() { t.View(6) }) != nil)
	fmt.Println(t.Contiguous().View(6))
	// Output:
	// true
	// tensor([1., 4., 2., 5., 3., 6.])
}

// LogSoftmax is x - log Σ exp(x), computed without overflow; its exp sums to 1.
func ExampleTensor_LogSoftmax() {
	x := agx.FromSlice([]float64{1, 2, 3})
	y := x.LogSoftmax(0)
	fmt.Println(y)
	fmt.Printf("%.4f\n", y.Exp().Sum().Item())
	// Output:
	// tensor([-2.4076, -1.4076, -0.4076], dtype=float64)
	// 1.0000
}

// GELU(x) = x·Φ(x); its derivative is Φ(x) + x·φ(x).
func ExampleTensor_GELU() {
	x := agx.FromSlice([]float64{-1, 0, 1}).SetRequiresGrad(true)
	y := x.GELU()
	y.Sum().Backward()
	fmt.Println(y.Detach())
	fmt.Println(x.Grad())
	// Output:
	// tensor([-0.1587,  0.0000,  0.8413], dtype=float64)
	// tensor([-0.0833,  0.5000,  1.0833], dtype=float64)
}

// SiLU(x) = x·σ(x); its derivative is σ(x)·(1 + x·(1-σ(x))).
func ExampleTensor_SiLU() {
	x := agx.FromSlice([]float64{-1, 0, 1}).SetRequiresGrad(true)
	y := x.SiLU()
	y.Sum().Backward()
	fmt.Println(y.Detach())
	fmt.Println(x.Grad())
	// Output:
	// tensor([-0.2689,  0.0000,  0.7311], dtype=float64)
	// tensor([0.0723, 0.5000, 0.9277], dtype=float64)
}

// Scatter writes src at index. The overwritten elements of t get no
// gradient; src gets the gradient of the places it was written to.
func ExampleTensor_Scatter() {
	t := agx.Zeros(agx.Float64, 5).SetRequiresGrad(true)
	src := agx.FromSlice([]float64{10, 20}).SetRequiresGrad(true)
	y := t.Scatter(0, agx.FromSlice([]int64{0, 2}), src)
	y.Mul(agx.FromSlice([]float64{1, 2, 3, 4, 5})).Sum().Backward()
	fmt.Println(y.Detach())
	fmt.Println(t.Grad(), src.Grad())
	// Output:
	// tensor([10.,  0., 20.,  0.,  0.], dtype=float64)
	// tensor([0., 2., 0., 4., 5.], dtype=float64) tensor([1., 3.], dtype=float64)
}

// Amax shares the gradient evenly among tied maxima (Max over all elements
// and MaxDim give it to one of them).
func ExampleTensor_Amax() {
	x := agx.FromSlice([]float64{1, 3, 3, 2}, 2, 2).SetRequiresGrad(true)
	m := x.Amax()
	m.Backward()
	fmt.Println(m.Item(), x.Amax(1).Detach())
	fmt.Println(x.Grad())
	// Output:
	// 3 tensor([3., 3.], dtype=float64)
	// tensor([[0.0000, 0.5000],
	//         [0.5000, 0.0000]], dtype=float64)
}

// SetGrad replaces the accumulated gradient; backward adds to it, and nil
// clears it.
func ExampleTensor_SetGrad() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	x.SetGrad(agx.FromSlice([]float64{1, 1}))
	x.Mul(3).Sum().Backward()
	fmt.Println(x.Grad())
	x.SetGrad(nil)
	fmt.Println(x.Grad())
	// Output:
	// tensor([4., 4.], dtype=float64)
	// <nil>
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

// CheckpointN is Checkpoint for a block with several outputs.
func ExampleCheckpointN() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	block := func(in ...*agx.Tensor) []*agx.Tensor {
		return agx.Outputs(in[0].Mul(in[0]), in[0].Mul(3))
	}
	out := agx.CheckpointN(block, x)
	out[0].Add(out[1]).Sum().Backward() // d/dx (x² + 3x) = 2x + 3
	fmt.Println(out[0].Detach(), x.Grad())
	// Output:
	// tensor([1., 4.], dtype=float64) tensor([5., 7.], dtype=float64)
}

// A block that draws from a generator of its own names it with
// CheckpointGenerators, so that the recomputation draws the same mask.
func ExampleCheckpointGenerators() {
	gen := tensor.NewGenerator(7)
	dropout := func(in ...*agx.Tensor) []*agx.Tensor {
		keep := agx.New(gen.Rand(agx.Float64, 6)).Gt(0.5).To(agx.Float64)
		return agx.Outputs(in[0].Mul(keep).Mul(2))
	}
	x := agx.Ones(agx.Float64, 6).SetRequiresGrad(true)
	y := agx.CheckpointWith(dropout, []*agx.Tensor{x}, agx.CheckpointGenerators(gen))[0]
	y.Sum().Backward()
	// The gradient is 2 exactly where the forward kept an element.
	fmt.Println(agx.MaxAbsDiff(x.Grad(), y.Detach()))
	// Output:
	// 0
}

// OuterJacobianStrategy picks how Hessian differentiates the gradient:
// forward over reverse gives the same matrix as reverse over reverse.
func ExampleOuterJacobianStrategy() {
	// f(x) = x₀²·x₁; H = [[2x₁, 2x₀], [2x₀, 0]]
	f := func(x *agx.Tensor) *agx.Tensor { return x.Select(0, 0).Pow(2).Mul(x.Select(0, 1)) }
	x := []*agx.Tensor{agx.FromSlice([]float64{1, 2})}
	fwd := agx.Hessian(f, x, agx.OuterJacobianStrategy(agx.ForwardMode))[0][0]
	rev := agx.Hessian(f, x)[0][0]
	fmt.Println(fwd)
	fmt.Println(agx.MaxAbsDiff(fwd, rev))
	// Output:
	// tensor([[4., 2.],
	//         [2., 0.]], dtype=float64)
	// 0
}

// FastMode checks random projections vᵀJu instead of whole Jacobians: fewer
// passes, and a wrong Backward still fails.
func ExampleFastMode() {
	agx.ManualSeed(1)
	x := agx.Randn(agx.Float64, 100).SetRequiresGrad(true)
	fmt.Println(agx.GradCheck(Exp{}, []*agx.Tensor{x}, agx.FastMode()))
	wrong := agx.Func{FuncName: "WrongExp",
		Fwd: Exp{}.Forward,
		Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0]) },
	}
	err := agx.GradCheck(wrong, []*agx.Tensor{x}, agx.FastMode())
	fmt.Println(errors.Is(err, agx.ErrGradCheck))
	// Output:
	// <nil>
	// true
}

// CheckForwardAD also checks forward mode. Built-in ops have forward rules;
// a Function needs a Jvp method (Exp here has none).
func ExampleCheckForwardAD() {
	agx.ManualSeed(1)
	x := agx.Randn(agx.Float64, 3).SetRequiresGrad(true)
	tanh := func(x *agx.Tensor) *agx.Tensor { return x.Tanh() }
	fmt.Println(agx.GradCheck(tanh, []*agx.Tensor{x}, agx.CheckForwardAD()))
	err := agx.GradCheck(Exp{}, []*agx.Tensor{x}, agx.CheckForwardAD())
	fmt.Println(errors.Is(err, agx.ErrForwardAD))
	// Output:
	// <nil>
	// true
}

// Eps is the finite-difference step. For x³ at 1, a step of 0.01 gives
// (1.01³ - 0.99³)/0.02 = 3.0001 against the exact 3: off by 1e-4, more than
// Atol (1e-5) when Rtol is 0. The default step, 1e-6, is off by far less.
func ExampleEps() {
	cube := func(x *agx.Tensor) *agx.Tensor { return x.Pow(3) }
	x := []*agx.Tensor{agx.Scalar(1.0).SetRequiresGrad(true)}
	fmt.Println(agx.GradCheck(cube, x, agx.Rtol(0)))
	var ge *agx.GradCheckError
	if errors.As(agx.GradCheck(cube, x, agx.Eps(1e-2), agx.Rtol(0)), &ge) {
		fmt.Printf("%s: numerical %.4f, analytical %.4f\n", ge.Kind, ge.Numerical, ge.Analytical)
	}
	// Output:
	// <nil>
	// jacobian: numerical 3.0001, analytical 3.0000
}

// An element passes when |analytical - numerical| ≤ Atol + Rtol·|numerical|.
// Atol alone (Rtol 0) must cover the 1e-4 error of the step 0.01 (see ExampleEps).
func ExampleAtol() {
	cube := func(x *agx.Tensor) *agx.Tensor { return x.Pow(3) }
	x := []*agx.Tensor{agx.Scalar(1.0).SetRequiresGrad(true)}
	fmt.Println(agx.GradCheck(cube, x, agx.Eps(1e-2), agx.Rtol(0), agx.Atol(1e-3)))
	// Output:
	// <nil>
}

// Rtol scales with the numerical value: 1e-4 ≤ 1e-5 + 1e-3·3 passes,
// 1e-4 > 1e-5 + 1e-5·3 fails.
func ExampleRtol() {
	cube := func(x *agx.Tensor) *agx.Tensor { return x.Pow(3) }
	x := []*agx.Tensor{agx.Scalar(1.0).SetRequiresGrad(true)}
	fmt.Println(agx.GradCheck(cube, x, agx.Eps(1e-2), agx.Rtol(1e-3)))
	fmt.Println(agx.GradCheck(cube, x, agx.Eps(1e-2), agx.Rtol(1e-5)) != nil)
	// Output:
	// <nil>
	// true
}

// NoisyDouble's Backward differs a little from one call to the next, as a
// backward with atomic additions on a GPU can.
type NoisyDouble struct{ calls *int }

func (NoisyDouble) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Mul(2))
}

func (f NoisyDouble) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	*f.calls++
	return agx.Outputs(g[0].Mul(2 + 1e-9*float64(*f.calls)))
}

// GradCheck runs backward twice and wants the same result unless NondetTol
// allows a difference.
func ExampleNondetTol() {
	x := []*agx.Tensor{agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)}
	f := NoisyDouble{calls: new(int)}
	var ge *agx.GradCheckError
	fmt.Println(errors.As(agx.GradCheck(f, x), &ge) && ge.Kind == "nondeterministic")
	fmt.Println(agx.GradCheck(f, x, agx.NondetTol(1e-6)))
	// Output:
	// true
	// <nil>
}

// SquareNoMaterialize asks for nil gradients but its Backward forgets to
// handle them.
type SquareNoMaterialize struct{}

func (SquareNoMaterialize) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SetMaterializeGrads(false)
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

func (SquareNoMaterialize) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(ctx.SavedTensors()[0]).Mul(2)) // panics when g[0] is nil
}

// GradCheck calls Backward with nil output gradients too, unless
// CheckUndefinedGrad(false) turns that check off.
func ExampleCheckUndefinedGrad() {
	x := []*agx.Tensor{agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)}
	var ge *agx.GradCheckError
	fmt.Println(errors.As(agx.GradCheck(SquareNoMaterialize{}, x), &ge), ge.Kind)
	fmt.Println(agx.GradCheck(SquareNoMaterialize{}, x, agx.CheckUndefinedGrad(false)))
	// Output:
	// true undefined-grad
	// <nil>
}
