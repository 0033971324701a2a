package functions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C11
func TestClippedReLU(t *testing.T) {
	for _, tc := range []struct {
		name       string
		clip       float64
		x, y, grad []float64
	}{
		{"source clip 6", 6, []float64{-1, 2, 5, 8}, []float64{0, 2, 5, 6}, []float64{0, 1, 1, 0}},
		{"default clip", 0, []float64{-1, 2, 5, 8}, []float64{0, 2, 5, 6}, []float64{0, 1, 1, 0}},
		{"boundaries count as inside", 1, []float64{0, 1, 1.5}, []float64{0, 1, 1}, []float64{1, 1, 0}},
	} {
		t.Run("table/"+tc.name, func(t *testing.T) {
			x := fntest.LeafOf(tc.x, len(tc.x))
			y := ClippedReLU(x, tc.clip)
			fntest.Elements(t, "y", y, tc.y...)
			y.Sum().Backward()
			fntest.Elements(t, "x.grad", x.Grad(), tc.grad...)
		})
	}
	x := agx.New(tensor.NewGenerator(1).Randn(tensor.Float64, 3, 5).Mul(4)).SetRequiresGrad(true)
	fntest.GradChecks(t, ClippedReLUFunction{Clip: 6}, []*agx.Tensor{x})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			x := agx.New(tensor.NewGenerator(2).Randn(dt, 4, 6).Mul(4)).SetRequiresGrad(true)
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return ClippedReLU(in[0], 6) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Clamp(0, 6) }, []*agx.Tensor{x}, fntest.Tol(dt))
		})
	}
}

func ExampleClippedReLU() {
	x := agx.FromSlice([]float32{-1, 2, 5, 8}, 4).SetRequiresGrad(true)
	y := ClippedReLU(x, 6)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([0., 2., 5., 6.], grad_fn=<ClippedReLUBackward>)
	// tensor([0., 1., 1., 0.])
}
