package functions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C12
func TestSoftThreshold(t *testing.T) {
	for _, tc := range []struct {
		name       string
		t          float64
		x, y, grad []float64
	}{
		{"t=1", 1, []float64{-3, -1, -0.5, 0, 0.5, 2}, []float64{-2, 0, 0, 0, 0, 1}, []float64{1, 0, 0, 0, 0, 1}},
		{"t=0 is the identity", 0, []float64{-2, 0.5}, []float64{-2, 0.5}, []float64{1, 1}},
	} {
		t.Run("table/"+tc.name, func(t *testing.T) {
			x := fntest.LeafOf(tc.x, len(tc.x))
			y := SoftThreshold(x, tc.t)
			fntest.Elements(t, "y", y, tc.y...)
			y.Sum().Backward()
			fntest.Elements(t, "x.grad", x.Grad(), tc.grad...)
		})
	}
	fntest.GradChecks(t, SoftThresholdFunction{Threshold: 0.5}, []*agx.Tensor{fntest.Leaf(1, tensor.Float64, 3, 5)})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return SoftThreshold(in[0], 0.5) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Sign().Mul(in[0].Abs().Sub(0.5).Relu()) },
				[]*agx.Tensor{fntest.Leaf(2, dt, 4, 6)}, fntest.Tol(dt))
		})
	}
	t.Run("misuse/negative threshold", func(t *testing.T) {
		fntest.PanicsIs(t, tensor.ErrArg, func() { SoftThreshold(fntest.Leaf(3, tensor.Float64, 2), -1) })
	})
}

func ExampleSoftThreshold() {
	x := agx.FromSlice([]float32{-3, -0.5, 0.5, 2}, 4).SetRequiresGrad(true)
	y := SoftThreshold(x, 1)
	y.Sum().Backward()
	fmt.Println(y) // sign(x)·0 is -0 for negative x, as in PyTorch
	fmt.Println(x.Grad())
	// Output:
	// tensor([-2., -0.,  0.,  1.], grad_fn=<SoftThresholdBackward>)
	// tensor([1., 0., 0., 1.])
}
