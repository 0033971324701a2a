package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestStraightThroughRound(t *testing.T) {
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.StraightThroughRound(in[0]) })
	fntest.RunCases(t, apply, []fntest.Case{
		// halves round to even, as torch.round
		{Name: "halves", In: [][]float64{{0.4, 0.5, 1.5, 2.5, -1.7}}, Want: [][]float64{{0, 0, 2, 2, -2}},
			Grad: [][]float64{{1, 1, 1, 1, 1}}},
	})
}

func ExampleStraightThroughRound() {
	x := agx.FromSlice([]float32{0.4, 1.6, -2.2}).SetRequiresGrad(true)
	y := functions.StraightThroughRound(x)
	y.Mul(agx.FromSlice([]float32{1, 2, 3})).Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([ 0.,  2., -2.], grad_fn=<StraightThroughRoundBackward>)
	// tensor([1., 2., 3.])
}
