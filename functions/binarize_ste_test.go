package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestBinarizeSTE(t *testing.T) {
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.BinarizeSTE(in[0]) })
	fntest.RunCases(t, apply, []fntest.Case{
		// example D6
		{Name: "D6", In: [][]float64{{-0.5, 0.3, 1.2, -0.1}}, Want: [][]float64{{0, 1, 1, 0}}, Grad: [][]float64{{1, 1, 1, 1}}},
		{Name: "zero-is-off", In: [][]float64{{0, 1e-30}}, Want: [][]float64{{0, 1}}, Grad: [][]float64{{1, 1}}},
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
