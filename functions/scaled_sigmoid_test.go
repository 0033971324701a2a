package functions_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestScaledSigmoid(t *testing.T) {
	ln3 := math.Log(3) // σ(ln 3) = 0.75
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ScaledSigmoid(in[0], in[1]) })
	fntest.RunCases(t, apply, []fntest.Case{
		{Name: "scale2", In: [][]float64{{0, ln3}, {2}}, Shape: [][]int{nil, {}},
			Want: [][]float64{{1, 1.5}}, Grad: [][]float64{{0.5, 0.375}, {1.25}}},
		{Name: "scale-per-column", In: [][]float64{{0, 0, ln3, ln3}, {2, -1}}, Shape: [][]int{{2, 2}, nil},
			Want: [][]float64{{1, -0.5, 1.5, -0.75}}, Grad: [][]float64{{0.5, -0.25, 0.375, -0.1875}, {1.25, 1.25}}},
	})
}

// Example A2's shapes: x randn(4,8), a scalar scale 2: x.grad is (4,8) and
// scale.grad is a scalar, Σ σ(x).
func TestScaledSigmoidShapesA2(t *testing.T) {
	for _, dt := range fntest.DTypes {
		t.Run(dt.String(), func(t *testing.T) {
			x := fntest.Randn(42, dt, 4, 8).SetRequiresGrad(true)
			scale := agx.Full(dt, 2).Reshape().SetRequiresGrad(true)
			functions.ScaledSigmoid(x, scale).Sum().Backward()
			if !slices.Equal(x.Grad().Shape(), []int{4, 8}) || len(scale.Grad().Shape()) != 0 {
				t.Fatalf("x.grad %v, scale.grad %v: want [4 8] and []", x.Grad().Shape(), scale.Grad().Shape())
			}
			fntest.Close(t, "scale.grad", scale.Grad(), x.Detach().Sigmoid().Sum(), fntest.Tol(dt))
		})
	}
}

func ExampleScaledSigmoid() {
	x := agx.FromSlice([]float64{0, math.Log(3)}).SetRequiresGrad(true)
	scale := agx.Scalar(2.0).SetRequiresGrad(true)
	y := functions.ScaledSigmoid(x, scale)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	fmt.Println(scale.Grad())
	// Output:
	// tensor([1.0000, 1.5000], dtype=float64, grad_fn=<ScaledSigmoidBackward>)
	// tensor([0.5000, 0.3750], dtype=float64)
	// tensor(1.2500, dtype=float64)
}
