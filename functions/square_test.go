package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
)

func TestSquare(t *testing.T) {
	// example A1
	srcRunCases(t, srcOne(func(in ...*agx.Tensor) *agx.Tensor { return functions.Square(in[0]) }), []srcCase{
		{name: "A1", in: [][]float64{{2, 3}}, want: [][]float64{{4, 9}}, grad: [][]float64{{4, 6}}},
		{name: "signs", in: [][]float64{{-1.5, 0, 0.5}}, want: [][]float64{{2.25, 0, 0.25}}, grad: [][]float64{{-3, 0, 1}}},
		{name: "2d", in: [][]float64{{1, 2, 3, 4}}, shape: [][]int{{2, 2}}, want: [][]float64{{1, 4, 9, 16}}, grad: [][]float64{{2, 4, 6, 8}}},
	})
}

// The source's gradcheck: randn(4) in float64, eps 1e-6, atol 1e-4.
func TestSquareGradCheckA1(t *testing.T) {
	x := srcRandn(41, agx.Float64, 4).SetRequiresGrad(true)
	if err := agx.GradCheck(functions.SquareFunction{}, []*agx.Tensor{x}, agx.Eps(1e-6), agx.Atol(1e-4)); err != nil {
		t.Fatal(err)
	}
}

func ExampleSquare() {
	x := agx.FromSlice([]float64{2, 3}).SetRequiresGrad(true)
	y := functions.Square(x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())

	agx.ManualSeed(0)
	xc := agx.Randn(agx.Float64, 4).SetRequiresGrad(true)
	err := agx.GradCheck(functions.SquareFunction{}, []*agx.Tensor{xc}, agx.Eps(1e-6), agx.Atol(1e-4))
	fmt.Println("gradcheck passed:", err == nil)
	// Output:
	// tensor([4., 9.], dtype=float64, grad_fn=<SquareBackward>)
	// tensor([4., 6.], dtype=float64)
	// gradcheck passed: true
}
