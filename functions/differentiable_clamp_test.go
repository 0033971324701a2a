package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestDifferentiableClamp(t *testing.T) {
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.DifferentiableClamp(in[0], -1, 1) })
	fntest.RunCases(t, apply, []fntest.Case{
		// bounds are inside (gradient 1), as torch.clamp
		{Name: "clamp", In: [][]float64{{-2, 0.5, 3, -1, 1}}, Want: [][]float64{{-1, 0.5, 1, -1, 1}}, Grad: [][]float64{{0, 1, 0, 1, 1}}},
	})
}

// Example D10: the backward is differentiable. For f = Σ clamp(x)³,
// the first derivative is 3c²·mask and the second 6c·mask.
func TestDifferentiableClampDoubleBackward(t *testing.T) {
	for _, dt := range fntest.DTypes {
		t.Run(dt.String(), func(t *testing.T) {
			x := fntest.Vec(dt, []float64{-2, 0.5, 3, -0.25}).SetRequiresGrad(true)
			c := functions.DifferentiableClamp(x, -1, 1)
			g := agx.Grad1(c.Pow(3).Sum(), x, agx.CreateGraph())
			fntest.Values(t, "first derivative", g, []float64{0, 0.75, 0, 0.1875}, fntest.Tol(dt))
			g2 := agx.Grad1(g.Sum(), x)
			fntest.Values(t, "second derivative", g2, []float64{0, 3, 0, -1.5}, fntest.Tol(dt))
		})
	}
}

func TestDifferentiableClampMisuse(t *testing.T) {
	fntest.PanicsWith(t, func() { functions.DifferentiableClamp(agx.FromSlice([]float64{1}), 1, -1) }, "min 1 is greater than max -1")
}

func ExampleDifferentiableClamp() {
	x := agx.FromSlice([]float64{-2, 0.5, 3}).SetRequiresGrad(true)
	y := functions.DifferentiableClamp(x, -1, 1)
	g := agx.Grad1(y.Pow(3).Sum(), x, agx.CreateGraph()) // 3·clamp(x)²·mask
	g2 := agx.Grad1(g.Sum(), x)                          // 6·clamp(x)·mask
	fmt.Println(y)
	fmt.Println(g)
	fmt.Println(g2)
	// Output:
	// tensor([-1.0000,  0.5000,  1.0000], dtype=float64,
	//        grad_fn=<DifferentiableClampBackward>)
	// tensor([0.0000, 0.7500, 0.0000], dtype=float64, grad_fn=<MulBackward0>)
	// tensor([-0., 3., 0.], dtype=float64)
}
