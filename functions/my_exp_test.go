package functions_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestMyExp(t *testing.T) {
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.MyExp(in[0]) })
	fntest.RunCases(t, apply, []fntest.Case{
		{Name: "values", In: [][]float64{{0, 1, -1}}, Want: [][]float64{{1, math.E, 1 / math.E}}, Grad: [][]float64{{1, math.E, 1 / math.E}}},
	})
}

// Example E1: backward with a gradient of ones leaves exp(x) in x.grad.
func TestMyExpE1(t *testing.T) {
	x := fntest.Randn(90, agx.Float64, 3).SetRequiresGrad(true)
	y := functions.MyExp(x)
	y.Backward(agx.Gradient(agx.OnesLike(y)))
	fntest.Close(t, "x.grad", x.Grad(), x.Detach().Exp(), 1e-15)
}

func ExampleMyExp() {
	x := agx.FromSlice([]float64{0, 1, 2}).SetRequiresGrad(true)
	y := functions.MyExp(x)
	y.Backward(agx.Gradient(agx.OnesLike(y)))
	fmt.Println(x.Grad())
	// Output:
	// tensor([1.0000, 2.7183, 7.3891], dtype=float64)
}
