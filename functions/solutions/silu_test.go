package solutions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C24 (Swish/SiLU)
func TestSiLU(t *testing.T) {
	t.Run("table", func(t *testing.T) {
		x := fntest.LeafOf([]float64{0, 1, -2}, 3)
		y := SiLU(x)
		fntest.Elements(t, "y", y, 0, 0.7310585786300049, -0.2384058440442351)
		y.Sum().Backward()
		fntest.Elements(t, "x.grad", x.Grad(), 0.5, 0.9276705118714869, -0.09078424878489547)
	})
	t.Run("saves input and output", func(t *testing.T) {
		y := SiLU(fntest.Leaf(1, tensor.Float64, 3))
		if got := y.GradFn().Name(); got != "SiLUBackward" {
			t.Fatalf("node %s", got)
		}
	})
	fntest.GradChecks(t, SiLUFunction{}, []*agx.Tensor{fntest.Leaf(2, tensor.Float64, 4, 5)})
	for _, dt := range fntest.DTypes {
		t.Run("builtin/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return SiLU(in[0]) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].SiLU() }, []*agx.Tensor{fntest.Leaf(3, dt, 8, 16)}, fntest.Tol(dt))
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return SiLU(in[0]) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Mul(in[0].Sigmoid()) }, []*agx.Tensor{fntest.Leaf(4, dt, 8, 16)}, fntest.Tol(dt))
		})
	}
}

func ExampleSiLU() {
	x := agx.FromSlice([]float32{-2, 0, 1}, 3).SetRequiresGrad(true)
	y := SiLU(x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([-0.2384,  0.0000,  0.7311], grad_fn=<SiLUBackward>)
	// tensor([-0.0908,  0.5000,  0.9277])
}
