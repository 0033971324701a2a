package functions_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
)

func TestScaledActivation(t *testing.T) {
	relu := srcOne(func(in ...*agx.Tensor) *agx.Tensor { return functions.ScaledActivation(in[0], 2, true) })
	srcRunCases(t, relu, []srcCase{
		{name: "relu", in: [][]float64{{-1, 2, 0}}, want: [][]float64{{0, 4, 0}}, grad: [][]float64{{0, 2, 0}}},
	})
	tanh := srcOne(func(in ...*agx.Tensor) *agx.Tensor { return functions.ScaledActivation(in[0], 3, false) })
	srcRunCases(t, tanh, []srcCase{
		// tanh(atanh 0.5) = 0.5: y = 1.5, grad 3·(1 - 0.25) = 2.25
		{name: "tanh", in: [][]float64{{0, math.Atanh(0.5), -math.Atanh(0.5)}}, want: [][]float64{{0, 1.5, -1.5}}, grad: [][]float64{{3, 2.25, 2.25}}},
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
