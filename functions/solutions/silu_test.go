package solutions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// example C24 (Swish/SiLU)
func TestSiLU(t *testing.T) {
	t.Run("table", func(t *testing.T) {
		x := bcLeafOf([]float64{0, 1, -2}, 3)
		y := SiLU(x)
		bcValues(t, "y", y, 0, 0.7310585786300049, -0.2384058440442351)
		y.Sum().Backward()
		bcValues(t, "x.grad", x.Grad(), 0.5, 0.9276705118714869, -0.09078424878489547)
	})
	t.Run("saves input and output", func(t *testing.T) {
		y := SiLU(bcLeaf(1, tensor.Float64, 3))
		if got := y.GradFn().Name(); got != "SiLUBackward" {
			t.Fatalf("node %s", got)
		}
	})
	bcCheck(t, SiLUFunction{}, []*agx.Tensor{bcLeaf(2, tensor.Float64, 4, 5)})
	for _, dt := range bcDTypes {
		t.Run("builtin/"+dt.String(), func(t *testing.T) {
			bcCompare(t, func(in ...*agx.Tensor) *agx.Tensor { return SiLU(in[0]) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].SiLU() }, []*agx.Tensor{bcLeaf(3, dt, 8, 16)}, bcTol(dt))
			bcCompare(t, func(in ...*agx.Tensor) *agx.Tensor { return SiLU(in[0]) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Mul(in[0].Sigmoid()) }, []*agx.Tensor{bcLeaf(4, dt, 8, 16)}, bcTol(dt))
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
