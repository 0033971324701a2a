package functions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C1
func TestTemplateSquare(t *testing.T) {
	for _, tc := range []struct {
		name    string
		x       []float64
		y, grad []float64
	}{
		{"source x=[3]", []float64{3}, []float64{9}, []float64{6}},
		{"mixed signs", []float64{-2, 0, 0.5}, []float64{4, 0, 0.25}, []float64{-4, 0, 1}},
	} {
		t.Run("table/"+tc.name, func(t *testing.T) {
			x := fntest.LeafOf(tc.x, len(tc.x))
			y := TemplateSquare(x)
			fntest.Elements(t, "y", y, tc.y...)
			y.Sum().Backward()
			fntest.Elements(t, "x.grad", x.Grad(), tc.grad...)
		})
	}
	t.Run("tag", func(t *testing.T) {
		x := fntest.LeafOf([]float64{3}, 1)
		agx.Apply(TemplateSquareFunction{Tag: 7}, x).Sum().Backward()
		fntest.Elements(t, "x.grad", x.Grad(), 6)
	})
	fntest.GradChecks(t, TemplateSquareFunction{}, []*agx.Tensor{fntest.Leaf(1, tensor.Float64, 4)})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return TemplateSquare(in[0]) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Mul(in[0]) }, []*agx.Tensor{fntest.Leaf(2, dt, 3, 4)}, fntest.Tol(dt))
		})
	}
}

func ExampleTemplateSquare() {
	x := agx.FromSlice([]float32{3}, 1).SetRequiresGrad(true)
	y := TemplateSquare(x)
	y.Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([9.], grad_fn=<TemplateSquareBackward>)
	// tensor([6.])
}
