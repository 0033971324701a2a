package agx_test

import (
	"errors"
	"fmt"

	"github.com/goagx/agx/agx"
)

// Backward fills the Grad of every leaf that requires grad.
func ExampleTensor_Backward() {
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	x.Mul(x).Sum().Backward()
	fmt.Println(x.Grad())
	// Output:
	// tensor([2., 4., 6.], dtype=float64)
}

// A non-scalar output needs the gradient of its elements (Gradient).
func ExampleGradient() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	x.Mul(3).Backward(agx.Gradient(agx.FromSlice([]float64{1, 10})))
	fmt.Println(x.Grad())
	// Output:
	// tensor([ 3., 30.], dtype=float64)
}

// Gradients accumulate over passes until ZeroGrad; RetainGraph keeps the
// saved tensors for a second pass.
func ExampleTensor_ZeroGrad() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := x.Mul(x).Sum()
	y.Backward(agx.RetainGraph())
	y.Backward()
	fmt.Println(x.Grad())
	x.ZeroGrad()
	fmt.Println(x.Grad())
	// Output:
	// tensor([4., 8.], dtype=float64)
	// <nil>
}

// Grad returns the gradients instead of accumulating them into Grad().
func ExampleGrad() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	w := agx.FromSlice([]float64{3, 4}).SetRequiresGrad(true)
	g := agx.Grad([]*agx.Tensor{x.Mul(w).Sum()}, []*agx.Tensor{x, w})
	fmt.Println(g[0], g[1], x.Grad())
	// Output:
	// tensor([3., 4.], dtype=float64) tensor([1., 2.], dtype=float64) <nil>
}

// With CreateGraph the gradient is itself differentiable: second derivatives.
func ExampleGrad1() {
	x := agx.Scalar(2.0).SetRequiresGrad(true)
	y := x.Pow(3)
	dy := agx.Grad1(y, x, agx.CreateGraph())
	d2y := agx.Grad1(dy, x)
	fmt.Println(dy.Item(), d2y.Item())
	// Output:
	// 12 12
}

// AllowUnused returns nil for an input the output does not depend on,
// where Grad would otherwise stop with an error.
func ExampleAllowUnused() {
	x := agx.Scalar(1.0).SetRequiresGrad(true)
	unused := agx.Scalar(1.0).SetRequiresGrad(true)
	g := agx.Grad([]*agx.Tensor{x.Mul(2)}, []*agx.Tensor{x, unused}, agx.AllowUnused())
	fmt.Println(g[0].Item(), g[1] == nil)
	// Output:
	// 2 true
}

func ExampleGradOutputs() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	g := agx.Grad([]*agx.Tensor{x.Mul(2)}, []*agx.Tensor{x}, agx.GradOutputs(agx.FromSlice([]float64{1, -1})))
	fmt.Println(g[0])
	// Output:
	// tensor([ 2., -2.], dtype=float64)
}

func ExampleTensor_RetainGrad() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	h := x.Mul(2).RetainGrad()
	h.Mul(h).Sum().Backward()
	fmt.Println(h.Grad(), x.Grad())
	// Output:
	// tensor([4., 8.], dtype=float64) tensor([ 8., 16.], dtype=float64)
}

// GradFn names the node that made a tensor; leaves have none.
func ExampleTensor_GradFn() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := x.Exp().Sum()
	fmt.Println(y.GradFn().Name(), x.GradFn() == nil)
	// Output:
	// SumBackward0 true
}

// NoGrad runs code without recording a graph, as torch.no_grad.
func ExampleNoGrad() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	var y *agx.Tensor
	agx.NoGrad(func() {
		y = x.Mul(2)
		fmt.Println(agx.IsGradEnabled())
	})
	fmt.Println(y.RequiresGrad(), agx.IsGradEnabled())
	// Output:
	// false
	// false true
}

// EnableGrad records again inside NoGrad, as torch.enable_grad: here a
// gradient is taken in the middle of an evaluation that records nothing.
func ExampleEnableGrad() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	agx.NoGrad(func() {
		fmt.Println("in NoGrad:", agx.IsGradEnabled())
		agx.EnableGrad(func() {
			y := x.Mul(x).Sum()
			y.Backward()
			fmt.Println("in EnableGrad:", agx.IsGradEnabled(), x.Grad())
		})
		fmt.Println("back in NoGrad:", agx.IsGradEnabled())
	})
	// Output:
	// in NoGrad: false
	// in EnableGrad: true tensor([2., 4.], dtype=float64)
	// back in NoGrad: false
}

// A hook sees (and may replace) a gradient as it flows past; Remove ends it.
func ExampleTensor_RegisterHook() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	h := x.RegisterHook(func(g *agx.Tensor) *agx.Tensor {
		fmt.Println("hook saw", g)
		return g.Mul(10)
	})
	x.Mul(x).Sum().Backward()
	fmt.Println(x.Grad())
	h.Remove()
	x.ZeroGrad()
	x.Mul(x).Sum().Backward()
	fmt.Println(x.Grad())
	// Output:
	// hook saw tensor([2., 4.], dtype=float64)
	// tensor([20., 40.], dtype=float64)
	// tensor([2., 4.], dtype=float64)
}

func ExampleTensor_BorrowGrad() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	x.Sum().Backward()
	x.BorrowGrad(func(g *agx.Tensor) { fmt.Println(g.Sum().Item()) })
	// Output:
	// 2
}

// Anomaly mode names the node whose backward produced a NaN or Inf.
func ExampleDetectAnomaly() {
	x := agx.FromSlice([]float64{0, 1}).SetRequiresGrad(true)
	err := agx.Try(func() {
		agx.DetectAnomaly(func() {
			x.Sqrt().Sum().Backward() // d sqrt(x)/dx is Inf at 0
		})
	})
	fmt.Println(errors.Is(err, agx.ErrAnomaly))
	// Output:
	// true
}

func ExampleSetDetectAnomaly() {
	prev := agx.SetDetectAnomaly(true)
	defer agx.SetDetectAnomaly(prev)
	fmt.Println(prev)
	// Output:
	// false
}

// Try turns agx's panics (bad shapes, graph misuse) into errors that match
// the sentinel errors with errors.Is.
func ExampleTry() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	err := agx.Try(func() { x.Mul(2).Backward() }) // not a scalar, no Gradient
	fmt.Println(errors.Is(err, agx.ErrGraph))
	err = agx.Try(func() {
		agx.MatMul(agx.Ones(agx.Float32, 2, 3), agx.Ones(agx.Float32, 2, 3))
	})
	fmt.Println(err)
	// Output:
	// true
	// agx: MatMul: inner dimensions differ: [2 3] @ [2 3] (3 != 2)
}

// The straight-through estimators: a hard forward, a pass-through backward.
func ExampleRoundSTE() {
	x := agx.FromSlice([]float64{0.4, 1.6}).SetRequiresGrad(true)
	y := agx.RoundSTE(x)
	y.Sum().Backward()
	fmt.Println(y, x.Grad())
	// Output:
	// tensor([0., 2.], dtype=float64, grad_fn=<AddBackward0>) tensor([1., 1.], dtype=float64)
}

func ExampleSignSTE() {
	x := agx.FromSlice([]float64{-0.5, 2}).SetRequiresGrad(true)
	agx.SignSTE(x).Sum().Backward()
	fmt.Println(agx.SignSTE(x), x.Grad())
	// Output:
	// tensor([-1.,  1.], dtype=float64, grad_fn=<AddBackward0>) tensor([1., 1.], dtype=float64)
}

// SignClippedSTE passes the gradient only where |x| <= 1.
func ExampleSignClippedSTE() {
	x := agx.FromSlice([]float64{-0.5, 2}).SetRequiresGrad(true)
	agx.SignClippedSTE(x).Sum().Backward()
	fmt.Println(x.Grad())
	// Output:
	// tensor([1., 0.], dtype=float64)
}

func ExampleBinarizeSTE() {
	x := agx.FromSlice([]float64{-0.5, 0.3}).SetRequiresGrad(true)
	fmt.Println(agx.BinarizeSTE(x))
	// Output:
	// tensor([0., 1.], dtype=float64, grad_fn=<AddBackward0>)
}

// QuantizeSTE fake-quantises to int8 steps of 0.5; the out-of-range element
// gets no gradient.
func ExampleQuantizeSTE() {
	x := agx.FromSlice([]float64{0.3, 1.2, 100}).SetRequiresGrad(true)
	y := agx.QuantizeSTE(x, 0.5, 0, -128, 127)
	y.Sum().Backward()
	fmt.Println(y, x.Grad())
	// Output:
	// tensor([ 0.5000,  1.0000, 63.5000], dtype=float64, grad_fn=<AddBackward0>) tensor([1., 1., 0.], dtype=float64)
}

func ExampleClipGradientSTE() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	agx.ClipGradientSTE(x, 0.5).Mul(agx.FromSlice([]float64{0.1, 5})).Sum().Backward()
	fmt.Println(x.Grad())
	// Output:
	// tensor([0.1000, 0.5000], dtype=float64)
}

// StraightThrough has hard's value and soft's gradient.
func ExampleStraightThrough() {
	x := agx.FromSlice([]float64{0.2, 0.9}).SetRequiresGrad(true)
	soft := x.Softmax(0)
	hard := agx.OneHot(soft.ArgMax(0, false), 2).To(agx.Float64)
	y := agx.StraightThrough(hard, soft)
	y.Mul(agx.FromSlice([]float64{1, 0})).Sum().Backward()
	fmt.Println(y, x.Grad().Abs().Sum().Item() > 0)
	// Output:
	// tensor([0., 1.], dtype=float64, grad_fn=<AddBackward0>) true
}

// GraphDOT renders the backward graph as Graphviz text (agx/nb draws it).
func ExampleGraphDOT() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	dot := agx.GraphDOT(x.Exp().Sum())
	fmt.Println(len(dot) > 0, dot[:7])
	// Output:
	// true digraph
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

// Grad accumulates: a second backward pass adds to it (ZeroGrad resets it).
func ExampleTensor_Grad() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	fmt.Println(x.Grad()) // nothing computed yet
	x.Mul(x).Sum().Backward()
	fmt.Println(x.Grad()) // 2x
	x.Mul(3).Sum().Backward()
	fmt.Println(x.Grad()) // 2x + 3
	// Output:
	// <nil>
	// tensor([2., 4.], dtype=float64)
	// tensor([5., 7.], dtype=float64)
}

// A backward pass frees what the graph saved; RetainGraph keeps it for a
// second pass.
func ExampleRetainGraph() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := x.Mul(x).Sum()
	y.Backward(agx.RetainGraph())
	y.Backward() // allowed: the first pass kept the saved tensors
	fmt.Println(x.Grad())
	z := x.Mul(x).Sum()
	z.Backward()
	fmt.Println(errors.Is(agx.Try(func() { z.Backward() }), agx.ErrGraph))
	// Output:
	// tensor([4., 8.], dtype=float64)
	// true
}

// CreateGraph records the backward pass, so that a gradient can be
// differentiated again: for y = x³, dy/dx = 3x² and d²y/dx² = 6x.
func ExampleCreateGraph() {
	x := agx.Scalar(2.0).SetRequiresGrad(true)
	dy := agx.Grad([]*agx.Tensor{x.Pow(3)}, []*agx.Tensor{x}, agx.CreateGraph())[0]
	d2y := agx.Grad([]*agx.Tensor{dy}, []*agx.Tensor{x})[0]
	fmt.Println(dy.Item(), d2y.Item())
	// Output:
	// 12 12
}

// Leaves are the tensors the user made; results of recorded ops are not.
func ExampleTensor_IsLeaf() {
	w := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := w.Mul(2)
	c := agx.FromSlice([]float64{3}).Mul(2) // no grad wanted: nothing recorded
	fmt.Println(w.IsLeaf(), y.IsLeaf(), c.IsLeaf())
	// Output:
	// true false true
}
