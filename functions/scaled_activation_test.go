package functions_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestScaledActivation(t *testing.T) {
	relu := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ScaledActivation(in[0], 2, true) })
	fntest.RunCases(t, relu, []fntest.Case{
		{Name: "relu", In: [][]float64{{-1, 2, 0}}, Want: [][]float64{{0, 4, 0}}, Grad: [][]float64{{0, 2, 0}}},
	})
	tanh := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ScaledActivation(in[0], 3, false) })
	fntest.RunCases(t, tanh, []fntest.Case{
		// tanh(atanh 0.5) = 0.5: y = 1.5, grad 3·(1 - 0.25) = 2.25
		{Name: "tanh", In: [][]float64{{0, math.Atanh(0.5), -math.Atanh(0.5)}}, Want: [][]float64{{0, 1.5, -1.5}}, Grad: [][]float64{{3, 2.25, 2.25}}},
	})
}

func ExampleScaledActivation() {
	x := agx.FromSlice([]float64{-1, 0.5, 2}).SetRequiresGrad(true)
	y := functions.ScaledActivation(x, 2, true)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())

	x.ZeroGrad()
	functions.ScaledActivation(x, 2, false).Sum().Backward()
	fmt.Println(x.Grad())
	// Output:
	// tensor([0., 1., 4.], dtype=float64, grad_fn=<ScaledActivationBackward>)
	// tensor([0., 2., 2.], dtype=float64)
	// tensor([0.8399, 1.5729, 0.1413], dtype=float64)
}
