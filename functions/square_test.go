package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestSquare(t *testing.T) {
	// example A1
	fntest.RunCases(t, fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.Square(in[0]) }), []fntest.Case{
		{Name: "A1", In: [][]float64{{2, 3}}, Want: [][]float64{{4, 9}}, Grad: [][]float64{{4, 6}}},
		{Name: "signs", In: [][]float64{{-1.5, 0, 0.5}}, Want: [][]float64{{2.25, 0, 0.25}}, Grad: [][]float64{{-3, 0, 1}}},
		{Name: "2d", In: [][]float64{{1, 2, 3, 4}}, Shape: [][]int{{2, 2}}, Want: [][]float64{{1, 4, 9, 16}}, Grad: [][]float64{{2, 4, 6, 8}}},
	})
}

// The source's gradcheck: randn(4) in float64, eps 1e-6, atol 1e-4.
func TestSquareGradCheckA1(t *testing.T) {
	x := fntest.Randn(41, agx.Float64, 4).SetRequiresGrad(true)
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
