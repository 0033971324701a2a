package solutions_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/functions/solutions"
)

func TestMySigmoid(t *testing.T) {
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return solutions.MySigmoid(in[0]) })
	fntest.RunCases(t, apply, []fntest.Case{
		{Name: "values", In: [][]float64{{0, math.Log(3), -math.Log(3)}}, Want: [][]float64{{0.5, 0.75, 0.25}}, Grad: [][]float64{{0.25, 0.1875, 0.1875}}},
		// no overflow at the extremes
		{Name: "extremes", In: [][]float64{{-800, 800}}, Want: [][]float64{{0, 1}}, Grad: [][]float64{{0, 0}}},
	})
}

// Examples D5 and B1: gradcheck on randn(5), gradgradcheck on randn(3) (f64),
// and agreement with the built-in sigmoid on a (3,4) input.
func TestMySigmoidD5B1(t *testing.T) {
	x5 := fntest.Randn(70, agx.Float64, 5).SetRequiresGrad(true)
	if err := agx.GradCheck(solutions.MySigmoidFunction{}, []*agx.Tensor{x5}, agx.Eps(1e-6), agx.Atol(1e-4)); err != nil {
		t.Fatal(err)
	}
	x3 := fntest.Randn(71, agx.Float64, 3).SetRequiresGrad(true)
	if err := agx.GradGradCheck(solutions.MySigmoidFunction{}, []*agx.Tensor{x3}); err != nil {
		t.Fatal(err)
	}
	x := fntest.Randn(72, agx.Float64, 3, 4).SetRequiresGrad(true)
	ref := x.Detach().SetRequiresGrad(true)
	y, yr := solutions.MySigmoid(x), ref.Sigmoid()
	y.Sum().Backward()
	yr.Sum().Backward()
	if d := y.Sub(yr).Abs().Max().Item(); d > 1e-15 {
		t.Errorf("max forward diff %g", d)
	}
	if d := x.Grad().Sub(ref.Grad()).Abs().Max().Item(); d > 1e-15 {
		t.Errorf("max backward diff %g", d)
	}
}

// The output is what is saved: its node is MySigmoidBackward's own
// output, so the second derivative σ(1-σ)(1-2σ) comes out right.
func TestMySigmoidSecondDerivative(t *testing.T) {
	x := agx.FromSlice([]float64{0, math.Log(3)}).SetRequiresGrad(true)
	g := agx.Grad1(solutions.MySigmoid(x).Sum(), x, agx.CreateGraph())
	g2 := agx.Grad1(g.Sum(), x)
	fntest.Values(t, "second derivative", g2, []float64{0, 0.75 * 0.25 * (1 - 1.5)}, 1e-15)
}

func ExampleMySigmoid() {
	x := agx.FromSlice([]float64{0, math.Log(3)}).SetRequiresGrad(true)
	y := solutions.MySigmoid(x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([0.5000, 0.7500], dtype=float64, grad_fn=<MySigmoidBackward>)
	// tensor([0.2500, 0.1875], dtype=float64)
}
