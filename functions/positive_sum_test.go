package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestPositiveSum(t *testing.T) {
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.PositiveSum(in[0]) })
	fntest.RunCases(t, apply, []fntest.Case{
		{Name: "E3", In: [][]float64{{-2, -1, 0, 1, 2}}, Want: [][]float64{{3}}, Grad: [][]float64{{0, 0, 0, 1, 1}}},
		{Name: "2d", In: [][]float64{{1, -1, 2.5, 0.5}}, Shape: [][]int{{2, 2}}, Want: [][]float64{{4}}, Grad: [][]float64{{1, 0, 1, 1}}},
	})
}

// srcScalarGradSum is example E3 as the source writes it: Backward hands back
// the scalar upstream gradient as the gradient of a vector input.
type srcScalarGradSum struct{}

func (srcScalarGradSum) Name() string { return "ScalarGradSum" }

func (srcScalarGradSum) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Relu().Sum())
}

func (srcScalarGradSum) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0])
}

// agx rejects the scalar gradient with PyTorch's words.
func TestPositiveSumOriginalFails(t *testing.T) {
	x := agx.FromSlice([]float64{-2, -1, 0, 1, 2}).SetRequiresGrad(true)
	y := agx.Apply(srcScalarGradSum{}, x)
	fntest.PanicsWith(t, func() { y.Backward(agx.Gradient(agx.Scalar(1.0))) },
		"invalid gradient at index 0 - got [] but expected shape compatible with [5]")
}

func ExamplePositiveSum() {
	x := agx.FromSlice([]float64{-2, -1, 0, 1, 2}).SetRequiresGrad(true)
	y := functions.PositiveSum(x)
	y.Backward(agx.Gradient(agx.Scalar(1.0)))
	fmt.Println(y)
	fmt.Println(x.Grad())

	// The source's version returns the scalar gradient itself:
	bad := agx.Apply(srcScalarGradSum{}, x.Detach().SetRequiresGrad(true))
	fmt.Println(agx.Try(func() { bad.Backward() }))
	// Output:
	// tensor(3., dtype=float64, grad_fn=<PositiveSumBackward>)
	// tensor([0., 0., 0., 1., 1.], dtype=float64)
	// agx: ScalarGradSumBackward: Function ScalarGradSumBackward returned an invalid gradient at index 0 - got [] but expected shape compatible with [5] (hint: the gradient must have the input's shape (or one that broadcasting reduces to it))
}
