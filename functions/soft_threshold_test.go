package functions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
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
			x := bcLeafOf(tc.x, len(tc.x))
			y := SoftThreshold(x, tc.t)
			bcValues(t, "y", y, tc.y...)
			y.Sum().Backward()
			bcValues(t, "x.grad", x.Grad(), tc.grad...)
		})
	}
	bcCheck(t, SoftThresholdFunction{Threshold: 0.5}, []*agx.Tensor{bcLeaf(1, tensor.Float64, 3, 5)})
	for _, dt := range bcDTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			bcCompare(t, func(in ...*agx.Tensor) *agx.Tensor { return SoftThreshold(in[0], 0.5) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Sign().Mul(in[0].Abs().Sub(0.5).Relu()) },
				[]*agx.Tensor{bcLeaf(2, dt, 4, 6)}, bcTol(dt))
		})
	}
	t.Run("misuse/negative threshold", func(t *testing.T) {
		bcPanics(t, tensor.ErrArg, func() { SoftThreshold(bcLeaf(3, tensor.Float64, 2), -1) })
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
