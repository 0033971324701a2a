package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
)

func TestPower(t *testing.T) {
	for _, tc := range []struct {
		n int
		c srcCase
	}{
		{3, srcCase{name: "cube", in: [][]float64{{2, 3, -1}}, want: [][]float64{{8, 27, -1}}, grad: [][]float64{{12, 27, 3}}}},
		{1, srcCase{name: "identity", in: [][]float64{{2, -3}}, want: [][]float64{{2, -3}}, grad: [][]float64{{1, 1}}}},
		{0, srcCase{name: "zero", in: [][]float64{{2, -3, 0}}, want: [][]float64{{1, 1, 1}}, grad: [][]float64{{0, 0, 0}}}},
		{-1, srcCase{name: "reciprocal", in: [][]float64{{2, 4}}, want: [][]float64{{0.5, 0.25}}, grad: [][]float64{{-0.25, -0.0625}}}},
	} {
		apply := srcOne(func(in ...*agx.Tensor) *agx.Tensor { return functions.Power(in[0], tc.n) })
		srcRunCases(t, apply, []srcCase{tc.c})
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
