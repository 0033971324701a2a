package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestTwoInTwoOut(t *testing.T) {
	apply := func(in ...*agx.Tensor) []*agx.Tensor {
		u, v := functions.TwoInTwoOut(in[0], in[1])
		return agx.Outputs(u, v)
	}
	fntest.RunCases(t, apply, []fntest.Case{
		// example E2: after both outputs' backward, x.grad = 2x + y, y.grad = 2y + x
		{Name: "E2", In: [][]float64{{1, 2}, {3, 4}}, Want: [][]float64{{10, 20}, {3, 8}}, Grad: [][]float64{{5, 8}, {7, 10}}},
	})
}

// The source calls backward on each output in turn; the gradients accumulate.
func TestTwoInTwoOutSeparateBackward(t *testing.T) {
	x := fntest.Randn(91, agx.Float64, 3).SetRequiresGrad(true)
	y := fntest.Randn(92, agx.Float64, 3).SetRequiresGrad(true)
	u, v := functions.TwoInTwoOut(x, y)
	u.Backward(agx.Gradient(agx.OnesLike(u)), agx.RetainGraph())
	v.Backward(agx.Gradient(agx.OnesLike(v)))
	fntest.Close(t, "x.grad", x.Grad(), x.Detach().Mul(2).Add(y.Detach()), 1e-15)
	fntest.Close(t, "y.grad", y.Grad(), y.Detach().Mul(2).Add(x.Detach()), 1e-15)
}

func ExampleTwoInTwoOut() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := agx.FromSlice([]float64{3, 4}).SetRequiresGrad(true)
	u, v := functions.TwoInTwoOut(x, y)
	u.Backward(agx.Gradient(agx.OnesLike(u)), agx.RetainGraph())
	v.Backward(agx.Gradient(agx.OnesLike(v)))
	fmt.Println(u, v)
	fmt.Println(x.Grad(), y.Grad())
	// Output:
	// tensor([10., 20.], dtype=float64, grad_fn=<TwoInTwoOutBackward>) tensor([3., 8.], dtype=float64, grad_fn=<TwoInTwoOutBackward>)
	// tensor([5., 8.], dtype=float64) tensor([ 7., 10.], dtype=float64)
}
