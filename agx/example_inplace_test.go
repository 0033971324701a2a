package agx_test

import (
	"errors"
	"fmt"

	"github.com/goagx/agx/agx"
)

// A hand-written gradient-descent step: the update runs under NoGrad, so
// it is not recorded, and writes the parameter in place.
func ExampleTensor_SubInPlace() {
	w := agx.FromSlice([]float64{1, -2}).SetRequiresGrad(true)
	for range 3 {
		loss := w.Mul(w).Sum() // minimum at w = 0
		loss.Backward()
		agx.NoGrad(func() { w.SubInPlace(w.Grad().Mul(0.25)) })
		w.ZeroGrad()
	}
	fmt.Println(w)
	// Output:
	// tensor([ 0.1250, -0.2500], dtype=float64, requires_grad=True)
}

// MulInPlace scales a gradient before the step (here by 1/batch size).
func ExampleTensor_MulInPlace() {
	g := agx.FromSlice([]float64{4, 8})
	g.MulInPlace(0.25)
	fmt.Println(g)
	// Output:
	// tensor([1., 2.], dtype=float64)
}

func ExampleTensor_DivInPlace() {
	x := agx.FromSlice([]float64{3, 4})
	x.DivInPlace(x.Pow(2).Sum().Sqrt()) // scale to unit length
	fmt.Println(x)
	// Output:
	// tensor([0.6000, 0.8000], dtype=float64)
}

// An in-place op on an intermediate result is differentiable like its
// out-of-place twin: d exp(x)/dx = exp(x).
func ExampleTensor_ExpInPlace() {
	x := agx.FromSlice([]float64{0, 1}).SetRequiresGrad(true)
	y := x.Mul(1)
	y.ExpInPlace()
	y.Sum().Backward()
	fmt.Println(y.GradFn().Name(), x.Grad())
	// Output:
	// ExpBackward0 tensor([1.0000, 2.7183], dtype=float64)
}

// ClampInPlace enforces a constraint on a parameter after a step.
func ExampleTensor_ClampInPlace() {
	p := agx.FromSlice([]float64{-0.2, 0.5, 1.3}).SetRequiresGrad(true)
	agx.NoGrad(func() { p.ClampInPlace(0, 1) }) // keep probabilities in [0, 1]
	fmt.Println(p)
	// Output:
	// tensor([0.0000, 0.5000, 1.0000], dtype=float64, requires_grad=True)
}

func ExampleTensor_FillInPlace() {
	b := agx.Zeros(agx.Float32, 3)
	fmt.Println(b.FillInPlace(0.5))
	// Output:
	// tensor([0.5000, 0.5000, 0.5000])
}

// ZeroInPlace clears a buffer for reuse, as an accumulator between steps.
func ExampleTensor_ZeroInPlace() {
	acc := agx.FromSlice([]float64{1, 2})
	acc.ZeroInPlace().AddInPlace(agx.FromSlice([]float64{5, 5}))
	fmt.Println(acc)
	// Output:
	// tensor([5., 5.], dtype=float64)
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
