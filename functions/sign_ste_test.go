package functions

import (
	"errors"
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C7, C8
func TestSignSTE(t *testing.T) {
	t.Run("table/source sign(0.7)", func(t *testing.T) {
		x := fntest.LeafOf([]float64{0.7}, 1)
		y := SignSTE(x)
		fntest.Elements(t, "y", y, 1)
		y.Sum().Backward()
		fntest.Elements(t, "STE grad", x.Grad(), 1)
		// The true derivative of sign is 0: it would block learning.
		x2 := fntest.LeafOf([]float64{0.7}, 1)
		x2.Sign().Sum().Backward()
		fntest.Elements(t, "true grad", x2.Grad(), 0)
	})
	t.Run("table/values", func(t *testing.T) {
		x := fntest.LeafOf([]float64{-2, -0.5, 0, 0.5, 3}, 5)
		y := SignSTE(x)
		fntest.Elements(t, "y", y, -1, -1, 0, 1, 1)
		y.Mul(agx.FromSlice([]float64{1, 2, 3, 4, 5}, 5)).Sum().Backward()
		fntest.Elements(t, "x.grad", x.Grad(), 1, 2, 3, 4, 5)
	})
	t.Run("gradcheck reports the STE", func(t *testing.T) {
		err := agx.GradCheck(SignSTEFunction{}, []*agx.Tensor{fntest.LeafOf([]float64{-0.5, 0.3, 2}, 3)})
		if !errors.Is(err, agx.ErrGradCheck) {
			t.Fatalf("GradCheck = %v, want a Jacobian mismatch (the STE is not the derivative)", err)
		}
	})
	t.Run("gradgradcheck", func(t *testing.T) {
		if err := agx.GradGradCheck(SignSTEFunction{}, []*agx.Tensor{fntest.LeafOf([]float64{-0.5, 0.3, 2}, 3)}); err != nil {
			t.Fatal(err)
		}
	})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return SignSTE(in[0]) },
				func(in ...*agx.Tensor) *agx.Tensor { return agx.SignSTE(in[0]) }, []*agx.Tensor{fntest.Leaf(1, dt, 4, 5)}, fntest.Tol(dt))
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
