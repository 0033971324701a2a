package functions

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// example C4
func TestScaledSigmoidOut(t *testing.T) {
	t.Run("table", func(t *testing.T) {
		x := bcLeafOf([]float64{0, math.Log(3)}, 2)
		y := ScaledSigmoidOut(x, 2)
		bcValues(t, "y = 2σ(x)", y, 1, 1.5)
		y.Sum().Backward()
		// 2·σ·(1-σ): σ(0) = 1/2 → 0.5; σ(log 3) = 3/4 → 0.375.
		bcValues(t, "x.grad", x.Grad(), 0.5, 0.375)
	})
	bcCheck(t, ScaledSigmoidOutFunction{Scale: 2}, []*agx.Tensor{bcLeaf(1, tensor.Float64, 4, 8)})
	bcCheck(t, ScaledSigmoidOutFunction{Scale: -0.5}, []*agx.Tensor{bcLeaf(2, tensor.Float64, 5)})
	for _, dt := range bcDTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			bcCompare(t, func(in ...*agx.Tensor) *agx.Tensor { return ScaledSigmoidOut(in[0], 2) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Sigmoid().Mul(2) }, []*agx.Tensor{bcLeaf(3, dt, 4, 8)}, bcTol(dt))
		})
	}
	t.Run("misuse/scale 0", func(t *testing.T) {
		bcPanics(t, tensor.ErrArg, func() { ScaledSigmoidOut(bcLeaf(4, tensor.Float64, 3), 0) })
	})
}

func ExampleScaledSigmoidOut() {
	x := agx.FromSlice([]float32{0}, 1).SetRequiresGrad(true)
	y := ScaledSigmoidOut(x, 2)
	y.Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([1.], grad_fn=<ScaledSigmoidOutBackward>)
	// tensor([0.5000])
}
