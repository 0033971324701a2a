package agx_test

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/goagx/agx/agx"
)

// GradCheck refuses float32 inputs: its finite differences are too coarse
// for the default tolerances. AllowFloat32, with a larger step and looser
// tolerances, checks a float32 Function anyway.
func ExampleAllowFloat32() {
	x := agx.FromSlice([]float32{0.1, 0.5, 1}).SetRequiresGrad(true)
	err := agx.GradCheck(Exp{}, []*agx.Tensor{x})
	var ge *agx.GradCheckError
	fmt.Println(errors.As(err, &ge), ge.Kind)
	fmt.Println(agx.GradCheck(Exp{}, []*agx.Tensor{x},
		agx.AllowFloat32(), agx.Eps(1e-3), agx.Atol(1e-2), agx.Rtol(1e-2)))
	// Output:
	// true dtype
	// <nil>
}

// forgetsG's Backward returns exp(x) without multiplying by the incoming
// gradient. For a one-element output the Jacobian still matches (the
// gradient is 1); the grad-scaling check, on by default, catches it. With
// that check off, the undefined-grad check (a zero gradient must give
// zeros) still does.
var forgetsG = agx.Func{
	FuncName: "ForgetsG",
	Fwd:      Exp{}.Forward,
	Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
		return agx.Outputs(ctx.SavedTensors()[0].Clone())
	},
}

func ExampleCheckGradScaling() {
	x := []*agx.Tensor{agx.Scalar(0.5).SetRequiresGrad(true)}
	var ge *agx.GradCheckError
	errors.As(agx.GradCheck(forgetsG, x), &ge)
	fmt.Println(ge.Kind)
	errors.As(agx.GradCheck(forgetsG, x, agx.CheckGradScaling(false)), &ge)
	fmt.Println(ge.Kind)
	fmt.Println(agx.GradCheck(forgetsG, x, agx.CheckGradScaling(false), agx.CheckUndefinedGrad(false)))
	// Output:
	// grad-scaling
	// undefined-grad
	// <nil>
}

// GradCheck draws its random vectors from a generator of its own, seeded
// by CheckSeed: the default generator, and so the next Randn, is left as
// it was.
func ExampleCheckSeed() {
	agx.ManualSeed(1)
	want := agx.Randn(agx.Float64, 2)

	agx.ManualSeed(1)
	x := agx.FromSlice([]float64{0.1, 0.2}).SetRequiresGrad(true)
	fmt.Println(agx.GradCheck(Exp{}, []*agx.Tensor{x}, agx.CheckSeed(42)))
	fmt.Println(agx.MaxAbsDiff(agx.Randn(agx.Float64, 2), want))
	// Output:
	// <nil>
	// 0
}

// GradGradOutputs fixes the output gradient that GradGradCheck
// differentiates the Backward through, instead of a random one.
func ExampleGradGradOutputs() {
	x := agx.FromSlice([]float64{0.1, 0.2}).SetRequiresGrad(true)
	g := agx.FromSlice([]float64{1, -2})
	fmt.Println(agx.GradGradCheck(Exp{}, []*agx.Tensor{x}, agx.GradGradOutputs(g)))
	// Output:
	// <nil>
}

// detachedExp's Backward detaches the saved output: its first derivative
// is right, so GradCheck passes, but the second derivative through it is
// lost, and GradGradCheck says so.
var detachedExp = agx.Func{
	FuncName: "DetachedExp",
	Fwd:      Exp{}.Forward,
	Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
		return agx.Outputs(g[0].Mul(ctx.SavedTensors()[0].Detach()))
	},
}

func ExampleMustGradGradCheck() {
	x := agx.FromSlice([]float64{0.1, 0.2}).SetRequiresGrad(true)
	agx.MustGradCheck(detachedExp, []*agx.Tensor{x})
	err := agx.Try(func() { agx.MustGradGradCheck(detachedExp, []*agx.Tensor{x}) })
	fmt.Println(errors.Is(err, agx.ErrGradCheck))
	// Output:
	// true
}

// Is lets errors.Is match any GradCheck failure with ErrGradCheck; Kind
// and the fields tell which check failed and where.
func ExampleGradCheckError_Is() {
	x := agx.FromSlice([]float64{0.1, 0.2}).SetRequiresGrad(true)
	err := agx.GradCheck(forgetsG, []*agx.Tensor{x})
	var ge *agx.GradCheckError
	errors.As(err, &ge)
	fmt.Println(errors.Is(err, agx.ErrGradCheck), ge.Kind, ge.Input, ge.Element)
	// Output:
	// true jacobian 0 1
}

// outOfRange's Backward has a bug that panics (an index out of range).
var outOfRange = agx.Func{
	FuncName: "OutOfRange",
	Fwd:      Exp{}.Forward,
	Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
		return agx.Outputs(g[0].Mul(ctx.SavedTensors()[1]))
	},
}

// A GradCheck stopped by a panic in Backward unwraps to that panic, so
// errors.As finds the FunctionPanicError and the runtime error inside it.
func ExampleGradCheckError_Unwrap() {
	x := agx.FromSlice([]float64{0.1, 0.2}).SetRequiresGrad(true)
	err := agx.GradCheck(outOfRange, []*agx.Tensor{x})
	var fe *agx.FunctionPanicError
	fmt.Println(errors.As(err, &fe), fe.Node)
	// Output:
	// true OutOfRangeBackward
}

// A Backward's own panic becomes a FunctionPanicError naming the node;
// Unwrap keeps the original error for errors.As.
func ExampleFunctionPanicError_Unwrap() {
	x := agx.FromSlice([]float64{0.1, 0.2}).SetRequiresGrad(true)
	err := agx.Try(func() { agx.Apply(outOfRange, x).Sum().Backward() })
	var fe *agx.FunctionPanicError
	var re runtime.Error
	fmt.Println(errors.Is(err, agx.ErrFunctionPanic), errors.As(err, &fe), fe.Node)
	fmt.Println(errors.As(err, &re))
	// Output:
	// true true OutOfRangeBackward
	// true
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
