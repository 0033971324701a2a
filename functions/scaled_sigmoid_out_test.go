package functions

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C4
func TestScaledSigmoidOut(t *testing.T) {
	t.Run("table", func(t *testing.T) {
		x := fntest.LeafOf([]float64{0, math.Log(3)}, 2)
		y := ScaledSigmoidOut(x, 2)
		fntest.Elements(t, "y = 2σ(x)", y, 1, 1.5)
		y.Sum().Backward()
		// 2·σ·(1-σ): σ(0) = 1/2 → 0.5; σ(log 3) = 3/4 → 0.375.
		fntest.Elements(t, "x.grad", x.Grad(), 0.5, 0.375)
	})
	fntest.GradChecks(t, ScaledSigmoidOutFunction{Scale: 2}, []*agx.Tensor{fntest.Leaf(1, tensor.Float64, 4, 8)})
	fntest.GradChecks(t, ScaledSigmoidOutFunction{Scale: -0.5}, []*agx.Tensor{fntest.Leaf(2, tensor.Float64, 5)})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return ScaledSigmoidOut(in[0], 2) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Sigmoid().Mul(2) }, []*agx.Tensor{fntest.Leaf(3, dt, 4, 8)}, fntest.Tol(dt))
		})
	}
	t.Run("misuse/scale 0", func(t *testing.T) {
		fntest.PanicsIs(t, tensor.ErrArg, func() { ScaledSigmoidOut(fntest.Leaf(4, tensor.Float64, 3), 0) })
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
