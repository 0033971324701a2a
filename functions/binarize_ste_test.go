package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
)

func TestBinarizeSTE(t *testing.T) {
	apply := srcOne(func(in ...*agx.Tensor) *agx.Tensor { return functions.BinarizeSTE(in[0]) })
	srcRunCases(t, apply, []srcCase{
		// example D6
		{name: "D6", in: [][]float64{{-0.5, 0.3, 1.2, -0.1}}, want: [][]float64{{0, 1, 1, 0}}, grad: [][]float64{{1, 1, 1, 1}}},
		{name: "zero-is-off", in: [][]float64{{0, 1e-30}}, want: [][]float64{{0, 1}}, grad: [][]float64{{1, 1}}},
	})
}

func ExampleBinarizeSTE() {
	steBinarize := functions.BinarizeSTE
	x := agx.FromSlice([]float32{-0.5, 0.3, 1.2, -0.1}).SetRequiresGrad(true)
	y := steBinarize(x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([0., 1., 1., 0.], grad_fn=<BinarizeSTEBackward>)
	// tensor([1., 1., 1., 1.])
}
