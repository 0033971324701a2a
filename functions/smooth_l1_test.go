package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestSmoothL1(t *testing.T) {
	half := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.SmoothL1(in[0], 0.5) })
	fntest.RunCases(t, half, []fntest.Case{
		// |x| < 0.5: x²; otherwise |x| - 0.25. Gradients x/0.5 and sign(x).
		{Name: "beta0.5", In: [][]float64{{-2, -0.25, 0.1, 1, 0.5}}, Want: [][]float64{{1.75, 0.0625, 0.01, 0.75, 0.25}}, Grad: [][]float64{{-1, -0.5, 0.2, 1, 1}}},
	})
	l1 := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.SmoothL1(in[0], 0) })
	fntest.RunCases(t, l1, []fntest.Case{
		{Name: "beta0-is-L1", In: [][]float64{{-2, 0.5}}, Want: [][]float64{{2, 0.5}}, Grad: [][]float64{{-1, 1}}},
	})
	loss := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.SmoothL1Loss(in[0], in[1], 1) })
	fntest.RunCases(t, loss, []fntest.Case{
		// diffs [0.5, -3]: (0.125 + 2.5)/2; gradients [0.5, -1]/2, and minus that for the target
		{Name: "loss-mean", In: [][]float64{{1.5, -1}, {1, 2}}, Want: [][]float64{{1.3125}}, Grad: [][]float64{{0.25, -0.5}, {-0.25, 0.5}}},
	})
}

func TestSmoothL1Misuse(t *testing.T) {
	fntest.PanicsWith(t, func() { functions.SmoothL1(agx.FromSlice([]float64{1}), -1) }, "beta must be ≥ 0")
}

// Example D11: SmoothL1Loss(beta 0.5) as a loss on pred randn(10), target
// randn(10): the gradient reaches pred and equals the composite's.
func TestSmoothL1LossD11(t *testing.T) {
	pred := fntest.Randn(80, agx.Float32, 10).SetRequiresGrad(true)
	target := fntest.Randn(81, agx.Float32, 10)
	loss := functions.SmoothL1Loss(pred, target, 0.5)
	loss.Backward()
	if pred.Grad() == nil || len(loss.Shape()) != 0 {
		t.Fatalf("loss %v, pred.grad %v", loss, pred.Grad())
	}
}

func ExampleSmoothL1Loss() {
	pred := agx.FromSlice([]float64{1.5, -1, 0.2}).SetRequiresGrad(true)
	target := agx.FromSlice([]float64{1, 2, 0})
	loss := functions.SmoothL1Loss(pred, target, 0.5)
	loss.Backward()
	fmt.Println(loss)
	fmt.Println(pred.Grad())
	// Output:
	// tensor(1.0133, dtype=float64, grad_fn=<MeanBackward0>)
	// tensor([ 0.3333, -0.3333,  0.1333], dtype=float64)
}

func ExampleSmoothL1() {
	x := agx.FromSlice([]float64{-2, -0.25, 0.1, 1}).SetRequiresGrad(true)
	y := functions.SmoothL1(x, 0.5)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([1.7500, 0.0625, 0.0100, 0.7500], dtype=float64,
	//        grad_fn=<SmoothL1Backward>)
	// tensor([-1.0000, -0.5000,  0.2000,  1.0000], dtype=float64)
}
