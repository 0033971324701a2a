package agx_test

import (
	"fmt"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Forward mode: a dual tensor carries a tangent through every op, so one
// forward pass gives the directional derivative J·v.
func ExampleMakeDual() {
	x := agx.FromSlice([]float64{1, 2})
	v := agx.FromSlice([]float64{1, 0}) // direction: the first element
	y := agx.MakeDual(x, v).Pow(2).Mul(3)
	fmt.Println(y.IsDual(), y.Tangent())
	// Output:
	// true tensor([6., 0.], dtype=float64)
}

func ExampleUnpackDual() {
	d := agx.MakeDual(agx.Scalar(0.0), agx.Scalar(1.0)).Sin()
	primal, tangent := agx.UnpackDual(d)
	fmt.Println(primal.Item(), tangent.Item())
	// Output:
	// 0 1
}

// A Function joins forward mode by implementing Jvp (Jvper): here the
// tangent of exp(x) is exp(x)·dx, from the saved output.
type ExpJvp struct{ Exp }

func (ExpJvp) Jvp(ctx *agx.Ctx, tangents ...*agx.Tensor) []*agx.Tensor {
	y := ctx.SavedTensors()[0]
	return agx.Outputs(tangents[0].Mul(y))
}

func ExampleJvper() {
	d := agx.Apply(ExpJvp{}, agx.MakeDual(agx.Scalar(0.0), agx.Scalar(2.0)))
	fmt.Println(d.Item(), d.Tangent().Item())
	// Output:
	// 1 2
}

// The functional API differentiates a Go function, as
// torch.autograd.functional does.
func ExampleVJP() {
	f := func(x *agx.Tensor) *agx.Tensor { return x.Mul(x) }
	x := agx.FromSlice([]float64{1, 2, 3})
	out, vjp := agx.VJP(f, []*agx.Tensor{x}, []*agx.Tensor{agx.OnesLike(x)})
	fmt.Println(out[0], vjp[0])
	// Output:
	// tensor([1., 4., 9.], dtype=float64) tensor([2., 4., 6.], dtype=float64)
}

func ExampleJVP() {
	f := func(x *agx.Tensor) *agx.Tensor { return x.Mul(x) }
	x := agx.FromSlice([]float64{1, 2, 3})
	_, jvp := agx.JVP(f, []*agx.Tensor{x}, []*agx.Tensor{agx.FromSlice([]float64{1, 0, 1})})
	fmt.Println(jvp[0])
	// Output:
	// tensor([2., 0., 6.], dtype=float64)
}

// Jacobian[i][j] is d output i / d input j, shaped output-shape ++ input-shape.
func ExampleJacobian() {
	f := func(a, b *agx.Tensor) *agx.Tensor { return a.Mul(b) }
	a := agx.FromSlice([]float64{1, 2})
	b := agx.FromSlice([]float64{3, 4})
	J := agx.Jacobian(f, []*agx.Tensor{a, b})
	fmt.Println(J[0][0])
	fmt.Println(J[0][1])
	// Output:
	// tensor([[3., 0.],
	//         [0., 4.]], dtype=float64)
	// tensor([[1., 0.],
	//         [0., 2.]], dtype=float64)
}

// The forward strategy builds the Jacobian column by column with MakeDual.
func ExampleJacobianStrategy() {
	f := func(x *agx.Tensor) *agx.Tensor { return x.Exp() }
	x := agx.FromSlice([]float64{0, 0})
	J := agx.Jacobian(f, []*agx.Tensor{x}, agx.JacobianStrategy(agx.ForwardMode))
	fmt.Println(J[0][0])
	// Output:
	// tensor([[1., 0.],
	//         [0., 1.]], dtype=float64)
}

func ExampleHessian() {
	f := func(x *agx.Tensor) *agx.Tensor { return x.Pow(3).Sum() }
	H := agx.Hessian(f, []*agx.Tensor{agx.FromSlice([]float64{1, 2})})
	fmt.Println(H[0][0])
	// Output:
	// tensor([[ 6.,  0.],
	//         [ 0., 12.]], dtype=float64)
}

// HVP is H·v without building H; VHP is v·H (the same for a symmetric H).
func ExampleHVP() {
	f := func(x *agx.Tensor) *agx.Tensor { return x.Pow(3).Sum() }
	x := agx.FromSlice([]float64{1, 2})
	v := agx.FromSlice([]float64{1, 1})
	out, hvp := agx.HVP(f, []*agx.Tensor{x}, []*agx.Tensor{v})
	_, vhp := agx.VHP(f, []*agx.Tensor{x}, []*agx.Tensor{v})
	fmt.Println(out.Item(), hvp[0], vhp[0])
	// Output:
	// 9 tensor([ 6., 12.], dtype=float64) tensor([ 6., 12.], dtype=float64)
}

// Strict refuses an input the result does not depend on.
func ExampleStrict() {
	f := func(a, b *agx.Tensor) *agx.Tensor { return a.Mul(2) }
	in := []*agx.Tensor{agx.Scalar(1.0), agx.Scalar(1.0)}
	fmt.Println(agx.Jacobian(f, in)[0][1].Item())
	fmt.Println(agx.Try(func() { agx.Jacobian(f, in, agx.Strict()) }) != nil)
	// Output:
	// 0
	// true
}

// Checkpoint keeps only a segment's inputs for backward and recomputes its
// activations when backward needs them: the same gradients, less memory.
func ExampleCheckpoint() {
	block := func(in ...*agx.Tensor) *agx.Tensor { return in[0].Tanh().Mul(in[0]).Exp() }
	x := agx.FromSlice([]float64{0.5, -1}).SetRequiresGrad(true)
	agx.Checkpoint(block, x).Sum().Backward()
	withCheckpoint := x.Grad()
	x.ZeroGrad()
	block(x).Sum().Backward()
	fmt.Println(agx.MaxAbsDiff(withCheckpoint, x.Grad()))
	// Output:
	// 0
}

// CheckpointWith replays the random draws of the forward call (PreserveRNG,
// on by default), so a dropout-like segment recomputes the same mask.
func ExampleCheckpointWith() {
	agx.ManualSeed(3)
	noisy := func(in ...*agx.Tensor) []*agx.Tensor {
		mask := agx.Rand(agx.Float64, in[0].Shape()...).Gt(0.5).To(agx.Float64)
		return agx.Outputs(in[0].Mul(in[0]).Mul(mask))
	}
	x := agx.FromSlice([]float64{1, 2, 3, 4}).SetRequiresGrad(true)
	y := agx.CheckpointWith(noisy, []*agx.Tensor{x}, agx.PreserveRNG(true))[0]
	y.Sum().Backward()
	mask := y.Detach().Ne(0).To(agx.Float64)
	fmt.Println(agx.MaxAbsDiff(x.Grad(), x.Detach().Mul(2).Mul(mask)))
	// Output:
	// 0
}

// IsDual tells whether a tensor carries a tangent: results computed from a
// dual tensor do; plain tensors do not.
func ExampleTensor_IsDual() {
	x := agx.FromSlice([]float64{1, 2})
	d := agx.MakeDual(x, agx.OnesLike(x))
	fmt.Println(x.IsDual(), d.IsDual(), d.Exp().IsDual(), d.Detach().Add(1).IsDual())
	// Output:
	// false true true false
}

// Tangent is the directional derivative carried along: for y = sin(x) in
// direction v, y's tangent is cos(x)·v. A plain tensor has none.
func ExampleTensor_Tangent() {
	x := agx.FromSlice([]float64{0, 1})
	v := agx.FromSlice([]float64{1, 2})
	y := agx.MakeDual(x, v).Sin()
	fmt.Println(y.Tangent())
	fmt.Println(x.Tangent())
	// Output:
	// tensor([1.0000, 1.0806], dtype=float64)
	// <nil>
}

// VHP is vᵀ·H for a scalar f: here f = a²·b, whose Hessian at (a, b) =
// (1, 2) is [[2b, 2a], [2a, 0]] = [[4, 2], [2, 0]]; v picks its first row.
func ExampleVHP() {
	f := func(a, b *agx.Tensor) *agx.Tensor { return a.Pow(2).Mul(b).Sum() }
	a, b := agx.Scalar(1.0), agx.Scalar(2.0)
	v := []*agx.Tensor{agx.Scalar(1.0), agx.Scalar(0.0)}
	out, vhp := agx.VHP(f, []*agx.Tensor{a, b}, v)
	fmt.Println(out.Item(), vhp[0].Item(), vhp[1].Item())
	// Output:
	// 2 4 2
}

// Without PreserveRNG the recomputation draws new random numbers: a
// dropout-like segment then recomputes another mask, and the gradient no
// longer matches the forward's output. Turn it off only for segments that
// draw nothing.
func ExamplePreserveRNG() {
	noisy := func(in ...*agx.Tensor) []*agx.Tensor {
		mask := agx.Rand(agx.Float64, in[0].Shape()...).Gt(0.5).To(agx.Float64)
		return agx.Outputs(in[0].Mul(mask))
	}
	for _, preserve := range []bool{true, false} {
		agx.ManualSeed(5)
		x := agx.Ones(agx.Float64, 16).SetRequiresGrad(true)
		y := agx.CheckpointWith(noisy, []*agx.Tensor{x}, agx.PreserveRNG(preserve))[0]
		y.Sum().Backward()
		mask := y.Detach() // x is ones, so y is the forward's mask
		fmt.Println(preserve, agx.MaxAbsDiff(x.Grad(), mask) == 0)
	}
	// Output:
	// true true
	// false false
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
