package functions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C5
func TestSavePatterns(t *testing.T) {
	for _, tc := range []struct {
		name      string
		alpha     float64
		relu      bool
		y, gx, gy []float64
	}{
		{"linear", 2, false, []float64{-1, 1, 5}, []float64{2, 2, 2}, []float64{1, 1, 1}},
		{"relu", 2, true, []float64{0, 1, 5}, []float64{0, 2, 2}, []float64{0, 1, 1}},
	} {
		t.Run("table/"+tc.name, func(t *testing.T) {
			x := fntest.LeafOf([]float64{-1, 0, 2}, 3)
			y := fntest.LeafOf([]float64{1, 1, 1}, 3)
			z := SavePatterns(x, y, tc.alpha, tc.relu)
			fntest.Elements(t, "z", z, tc.y...)
			z.Sum().Backward()
			fntest.Elements(t, "x.grad", x.Grad(), tc.gx...)
			fntest.Elements(t, "y.grad", y.Grad(), tc.gy...)
		})
	}
	for _, relu := range []bool{false, true} {
		f := SavePatternsFunction{Alpha: 0.7, UseReLU: relu}
		t.Run(fmt.Sprintf("relu=%v", relu), func(t *testing.T) {
			fntest.GradChecks(t, f, []*agx.Tensor{fntest.Leaf(1, tensor.Float64, 3, 4), fntest.Leaf(2, tensor.Float64, 3, 4)})
			for _, dt := range fntest.DTypes {
				t.Run("composite/"+dt.String(), func(t *testing.T) {
					ref := func(in ...*agx.Tensor) *agx.Tensor {
						z := in[0].Mul(0.7).Add(in[1])
						if relu {
							z = z.Relu()
						}
						return z
					}
					fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return agx.Apply(f, in...) }, ref,
						[]*agx.Tensor{fntest.Leaf(3, dt, 3, 4), fntest.Leaf(4, dt, 4)}, fntest.Tol(dt))
				})
			}
		})
	}
	t.Run("needs-input-grad", func(t *testing.T) {
		x := agx.FromSlice([]float64{1, 2}, 2)
		y := fntest.LeafOf([]float64{3, 4}, 2)
		SavePatterns(x, y, 3, false).Sum().Backward()
		if x.Grad() != nil {
			t.Fatalf("x.grad = %v, want none", x.Grad())
		}
		fntest.Elements(t, "y.grad", y.Grad(), 1, 1)
	})
}

func ExampleSavePatterns() {
	x := agx.FromSlice([]float32{-1, 0, 2}, 3).SetRequiresGrad(true)
	y := agx.FromSlice([]float32{1, 1, 1}, 3).SetRequiresGrad(true)
	z := SavePatterns(x, y, 2, true)
	z.Sum().Backward()
	fmt.Println(z)
	fmt.Println(x.Grad(), y.Grad())
	// Output:
	// tensor([0., 1., 5.], grad_fn=<SavePatternsBackward>)
	// tensor([0., 2., 2.]) tensor([0., 1., 1.])
}
