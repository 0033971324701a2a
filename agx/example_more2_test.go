package agx_test

import (
	"errors"
	"fmt"

	"github.com/goagx/agx/agx"
)

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

// Version counts in-place writes. Modifying a tensor that backward needs is
// caught when backward runs.
func ExampleTensor_Version() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	a := x.Mul(1)
	y := a.Mul(a) // saves a for backward
	fmt.Println(a.Version())
	a.AddInPlace(1)
	fmt.Println(a.Version())
	err := agx.Try(func() { y.Sum().Backward() })
	fmt.Println(errors.Is(err, agx.ErrInplace))
	// Output:
	// 0
	// 1
	// true
}

// Narrow is a view of length elements from start; the gradient lands in
// those places only.
func ExampleTensor_Narrow() {
	x := agx.FromSlice([]float64{1, 2, 3, 4, 5}).SetRequiresGrad(true)
	n := x.Narrow(0, 1, 3)
	n.Sum().Backward()
	fmt.Println(n.Detach(), x.Grad())
	// Output:
	// tensor([2., 3., 4.], dtype=float64) tensor([0., 1., 1., 1., 0.], dtype=float64)
}

// LogSumExp does not overflow where exp does: log(e¹⁰⁰⁰ + e¹⁰⁰⁰) = 1000 + log 2.
// Its gradient is the softmax.
func ExampleTensor_LogSumExp() {
	x := agx.FromSlice([]float64{1000, 1000}).SetRequiresGrad(true)
	l := x.LogSumExp()
	l.Backward()
	fmt.Printf("%.4f %v\n", l.Item(), x.Exp().Sum().Log().Item())
	fmt.Println(x.Grad())
	// Output:
	// 1000.6931 +Inf
	// tensor([0.5000, 0.5000], dtype=float64)
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

// Mean over all elements or over dims; each element's gradient is 1/n.
func ExampleTensor_Mean() {
	x := agx.FromSlice([]float64{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
	fmt.Println(x.Mean(1).Detach())
	x.Mean().Backward()
	fmt.Println(x.Grad())
	// Output:
	// tensor([1.5000, 3.5000], dtype=float64)
	// tensor([[0.2500, 0.2500],
	//         [0.2500, 0.2500]], dtype=float64)
}

// ArgMax gives indices (Int64), e.g. the predicted class of each row.
func ExampleTensor_ArgMax() {
	logits := agx.FromSlice([]float32{0.1, 2, -1, 3, 0, 1}, 2, 3)
	fmt.Println(logits.ArgMax(1, false))
	// Output:
	// tensor([1, 0])
}
