package functions

import (
	"errors"
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// example C7, C8
func TestSignSTE(t *testing.T) {
	t.Run("table/source sign(0.7)", func(t *testing.T) {
		x := bcLeafOf([]float64{0.7}, 1)
		y := SignSTE(x)
		bcValues(t, "y", y, 1)
		y.Sum().Backward()
		bcValues(t, "STE grad", x.Grad(), 1)
		// The true derivative of sign is 0: it would block learning.
		x2 := bcLeafOf([]float64{0.7}, 1)
		x2.Sign().Sum().Backward()
		bcValues(t, "true grad", x2.Grad(), 0)
	})
	t.Run("table/values", func(t *testing.T) {
		x := bcLeafOf([]float64{-2, -0.5, 0, 0.5, 3}, 5)
		y := SignSTE(x)
		bcValues(t, "y", y, -1, -1, 0, 1, 1)
		y.Mul(agx.FromSlice([]float64{1, 2, 3, 4, 5}, 5)).Sum().Backward()
		bcValues(t, "x.grad", x.Grad(), 1, 2, 3, 4, 5)
	})
	t.Run("gradcheck reports the STE", func(t *testing.T) {
		err := agx.GradCheck(SignSTEFunction{}, []*agx.Tensor{bcLeafOf([]float64{-0.5, 0.3, 2}, 3)})
		if !errors.Is(err, agx.ErrGradCheck) {
			t.Fatalf("GradCheck = %v, want a Jacobian mismatch (the STE is not the derivative)", err)
		}
	})
	t.Run("gradgradcheck", func(t *testing.T) {
		if err := agx.GradGradCheck(SignSTEFunction{}, []*agx.Tensor{bcLeafOf([]float64{-0.5, 0.3, 2}, 3)}); err != nil {
			t.Fatal(err)
		}
	})
	for _, dt := range bcDTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			bcCompare(t, func(in ...*agx.Tensor) *agx.Tensor { return SignSTE(in[0]) },
				func(in ...*agx.Tensor) *agx.Tensor { return agx.SignSTE(in[0]) }, []*agx.Tensor{bcLeaf(1, dt, 4, 5)}, bcTol(dt))
		})
	}
	_ = tensor.Float64
}

func ExampleSignSTE() {
	x := agx.FromSlice([]float32{0.7}, 1).SetRequiresGrad(true)
	y := SignSTE(x)
	y.Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([1.], grad_fn=<SignSTEBackward>)
	// tensor([1.])
}
