package functions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C15
func TestFusedAddReLU(t *testing.T) {
	t.Run("table", func(t *testing.T) {
		x := fntest.LeafOf([]float64{-2, 1, 3, 0.5}, 4)
		y := fntest.LeafOf([]float64{1, -3, 1, -0.5}, 4)
		z := FusedAddReLU(x, y)
		fntest.Elements(t, "z", z, 0, 0, 4, 0)
		z.Mul(agx.FromSlice([]float64{1, 2, 3, 4}, 4)).Sum().Backward()
		fntest.Elements(t, "x.grad", x.Grad(), 0, 0, 3, 0)
		fntest.Elements(t, "y.grad", y.Grad(), 0, 0, 3, 0)
	})
	t.Run("one node, mask saved once", func(t *testing.T) {
		z := FusedAddReLU(fntest.Leaf(1, tensor.Float64, 3), fntest.Leaf(2, tensor.Float64, 3))
		if n := z.GradFn(); n.Name() != "FusedAddReLUBackward" || len(n.NextFunctions()) != 2 {
			t.Fatalf("node %v with %d edges", n, len(n.NextFunctions()))
		}
	})
	fntest.GradChecks(t, FusedAddReLUFunction{}, []*agx.Tensor{fntest.Leaf(3, tensor.Float64, 3, 4), fntest.Leaf(4, tensor.Float64, 4)})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return FusedAddReLU(in[0], in[1]) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Add(in[1]).Relu() },
				[]*agx.Tensor{fntest.Leaf(5, dt, 8, 16), fntest.Leaf(6, dt, 16)}, fntest.Tol(dt))
		})
	}
}

func ExampleFusedAddReLU() {
	x := agx.FromSlice([]float32{-2, 1, 3}, 3).SetRequiresGrad(true)
	y := agx.FromSlice([]float32{1, -3, 1}, 3).SetRequiresGrad(true)
	z := FusedAddReLU(x, y)
	z.Sum().Backward()
	fmt.Println(z)
	fmt.Println(x.Grad(), y.Grad())
	// Output:
	// tensor([0., 0., 4.], grad_fn=<FusedAddReLUBackward>)
	// tensor([0., 0., 1.]) tensor([0., 0., 1.])
}
