package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestReLUViaClamp(t *testing.T) {
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ReLUViaClamp(in[0]) })
	fntest.RunCases(t, apply, []fntest.Case{
		// the gradient at 0 is 0, as torch.relu's
		{Name: "signs", In: [][]float64{{-1, 0, 2, -0.5, 3.5}}, Want: [][]float64{{0, 0, 2, 0, 3.5}}, Grad: [][]float64{{0, 0, 1, 0, 1}}},
	})
}

func ExampleReLUViaClamp() {
	myReLU := functions.ReLUViaClamp // example D1: an alias, like my_relu = MyFunction.apply
	x := agx.FromSlice([]float64{-1.5, 0.25, 2, -0.5, 1}).SetRequiresGrad(true)
	y := myReLU(x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([0.0000, 0.2500, 2.0000, 0.0000, 1.0000], dtype=float64,
	//        grad_fn=<ReLUViaClampBackward>)
	// tensor([0., 1., 1., 0., 1.], dtype=float64)
}
