package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
)

func TestPositiveSum(t *testing.T) {
	apply := srcOne(func(in ...*agx.Tensor) *agx.Tensor { return functions.PositiveSum(in[0]) })
	srcRunCases(t, apply, []srcCase{
		{name: "E3", in: [][]float64{{-2, -1, 0, 1, 2}}, want: [][]float64{{3}}, grad: [][]float64{{0, 0, 0, 1, 1}}},
		{name: "2d", in: [][]float64{{1, -1, 2.5, 0.5}}, shape: [][]int{{2, 2}}, want: [][]float64{{4}}, grad: [][]float64{{1, 0, 1, 1}}},
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
	srcPanics(t, func() { y.Backward(agx.Gradient(agx.Scalar(1.0))) },
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
