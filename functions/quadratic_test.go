package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestQuadratic(t *testing.T) {
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.Quadratic(in[0], in[1], in[2], in[3]) })
	fntest.RunCases(t, apply, []fntest.Case{
		// y = 3·4 + 4·2 + 5 = 25; grads 2ax+b = 16, x² = 4, x = 2, 1
		{Name: "scalars", In: [][]float64{{2}, {3}, {4}, {5}}, Want: [][]float64{{25}}, Grad: [][]float64{{16}, {4}, {2}, {1}}},
		{Name: "vectors", In: [][]float64{{-1, 0.5}, {1, 2}, {0, -1}, {0.5, 0.5}},
			Want: [][]float64{{1.5, 0.5}}, Grad: [][]float64{{-2, 1}, {1, 0.25}, {-1, 0.5}, {1, 1}}},
		// a broadcast c gets the sum of its gradients
		{Name: "broadcast-c", In: [][]float64{{1, 2, 3}, {1, 1, 1}, {0, 0, 0}, {10}}, Shape: [][]int{nil, nil, nil, {}},
			Want: [][]float64{{11, 14, 19}}, Grad: [][]float64{{2, 4, 6}, {1, 4, 9}, {1, 2, 3}, {3}}},
	})
}

func ExampleQuadratic() {
	x := agx.Scalar(2.0).SetRequiresGrad(true)
	a := agx.Scalar(3.0).SetRequiresGrad(true)
	b := agx.Scalar(4.0).SetRequiresGrad(true)
	c := agx.Scalar(5.0).SetRequiresGrad(true)
	y := functions.Quadratic(x, a, b, c)
	y.Backward()
	fmt.Println(y)
	fmt.Println(x.Grad(), a.Grad(), b.Grad(), c.Grad())
	// Output:
	// tensor(25., dtype=float64, grad_fn=<QuadraticBackward>)
	// tensor(16., dtype=float64) tensor(4., dtype=float64) tensor(2., dtype=float64) tensor(1., dtype=float64)
}
