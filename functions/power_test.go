package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestPower(t *testing.T) {
	for _, tc := range []struct {
		n int
		c fntest.Case
	}{
		{3, fntest.Case{Name: "cube", In: [][]float64{{2, 3, -1}}, Want: [][]float64{{8, 27, -1}}, Grad: [][]float64{{12, 27, 3}}}},
		{1, fntest.Case{Name: "identity", In: [][]float64{{2, -3}}, Want: [][]float64{{2, -3}}, Grad: [][]float64{{1, 1}}}},
		{0, fntest.Case{Name: "zero", In: [][]float64{{2, -3, 0}}, Want: [][]float64{{1, 1, 1}}, Grad: [][]float64{{0, 0, 0}}}},
		{-1, fntest.Case{Name: "reciprocal", In: [][]float64{{2, 4}}, Want: [][]float64{{0.5, 0.25}}, Grad: [][]float64{{-0.25, -0.0625}}}},
	} {
		apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.Power(in[0], tc.n) })
		fntest.RunCases(t, apply, []fntest.Case{tc.c})
	}
}

func ExamplePower() {
	x := agx.FromSlice([]float64{2, 3}).SetRequiresGrad(true)
	y := functions.Power(x, 3)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([ 8., 27.], dtype=float64, grad_fn=<PowerBackward>)
	// tensor([12., 27.], dtype=float64)
}
