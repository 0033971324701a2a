package functions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C6
func TestWeightedSum(t *testing.T) {
	t.Run("table/source", func(t *testing.T) {
		x1, x2 := fntest.LeafOf([]float64{1, 2}, 2), fntest.LeafOf([]float64{3, 4}, 2)
		y := WeightedSum(x1, x2, 0.3, 0.7)
		fntest.Elements(t, "y", y, 0.3*1+0.7*3, 0.3*2+0.7*4)
		y.Sum().Backward()
		fntest.Elements(t, "x1.grad", x1.Grad(), 0.3, 0.3)
		fntest.Elements(t, "x2.grad", x2.Grad(), 0.7, 0.7)
	})
	t.Run("table/broadcast", func(t *testing.T) {
		x1, x2 := fntest.LeafOf([]float64{1, 2, 3, 4}, 2, 2), fntest.LeafOf([]float64{1}, 1)
		WeightedSum(x1, x2, 2, -1).Sum().Backward()
		fntest.Elements(t, "x1.grad", x1.Grad(), 2, 2, 2, 2)
		fntest.Elements(t, "x2.grad", x2.Grad(), -4)
	})
	fntest.GradChecks(t, WeightedSumFunction{W1: 0.3, W2: 0.7}, []*agx.Tensor{fntest.Leaf(1, tensor.Float64, 3, 4), fntest.Leaf(2, tensor.Float64, 3, 4)})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return WeightedSum(in[0], in[1], 0.3, 0.7) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Mul(0.3).Add(in[1].Mul(0.7)) },
				[]*agx.Tensor{fntest.Leaf(3, dt, 3, 4), fntest.Leaf(4, dt, 3, 4)}, fntest.Tol(dt))
		})
	}
}

func ExampleWeightedSum() {
	x1 := agx.FromSlice([]float32{1, 2}, 2).SetRequiresGrad(true)
	x2 := agx.FromSlice([]float32{3, 4}, 2).SetRequiresGrad(true)
	WeightedSum(x1, x2, 0.3, 0.7).Sum().Backward()
	fmt.Println(x1.Grad())
	fmt.Println(x2.Grad())
	// Output:
	// tensor([0.3000, 0.3000])
	// tensor([0.7000, 0.7000])
}
