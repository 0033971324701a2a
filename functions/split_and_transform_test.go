package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestSplitAndTransform(t *testing.T) {
	apply := func(in ...*agx.Tensor) []*agx.Tensor {
		p, n := functions.SplitAndTransform(in[0])
		return agx.Outputs(p, n)
	}
	fntest.RunCases(t, apply, []fntest.Case{
		// example D9
		{Name: "D9", In: [][]float64{{-2, -1, 0, 1, 2}}, Want: [][]float64{{0, 0, 0, 1, 2}, {2, 1, 0, 0, 0}}, Grad: [][]float64{{-1, -1, 0, 1, 1}}},
	})
}

// Each output's gradient reaches x on its own: backward through one output
// only leaves zeros for the other.
func TestSplitAndTransformOneOutput(t *testing.T) {
	x := agx.FromSlice([]float64{-2, -1, 0, 1, 2}).SetRequiresGrad(true)
	_, neg := functions.SplitAndTransform(x)
	neg.Sum().Backward()
	fntest.Values(t, "gradient", x.Grad(), []float64{-1, -1, 0, 0, 0}, 0)
}

func ExampleSplitAndTransform() {
	x := agx.FromSlice([]float32{-2, -1, 0, 1, 2}).SetRequiresGrad(true)
	pos, neg := functions.SplitAndTransform(x)
	pos.Sum().Add(neg.Sum()).Backward()
	fmt.Println(pos)
	fmt.Println(neg)
	fmt.Println(x.Grad())
	// Output:
	// tensor([0., 0., 0., 1., 2.], grad_fn=<SplitAndTransformBackward>)
	// tensor([2., 1., 0., 0., 0.], grad_fn=<SplitAndTransformBackward>)
	// tensor([-1., -1.,  0.,  1.,  1.])
}
