package functions

import (
	"errors"
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
)

// example C7
func TestSignClippedSTE(t *testing.T) {
	t.Run("table", func(t *testing.T) {
		x := fntest.LeafOf([]float64{-2, -1, -0.5, 0, 0.7, 1, 1.5}, 7)
		y := SignClippedSTE(x)
		fntest.Elements(t, "y", y, -1, -1, -1, 0, 1, 1, 1)
		y.Sum().Backward()
		fntest.Elements(t, "x.grad", x.Grad(), 0, 1, 1, 1, 1, 1, 0)
	})
	t.Run("gradcheck reports the STE", func(t *testing.T) {
		err := agx.GradCheck(SignClippedSTEFunction{}, []*agx.Tensor{fntest.LeafOf([]float64{-0.5, 0.3, 2}, 3)})
		if !errors.Is(err, agx.ErrGradCheck) {
			t.Fatalf("GradCheck = %v, want a Jacobian mismatch", err)
		}
	})
	t.Run("gradgradcheck", func(t *testing.T) {
		if err := agx.GradGradCheck(SignClippedSTEFunction{}, []*agx.Tensor{fntest.LeafOf([]float64{-0.5, 0.3, 2}, 3)}); err != nil {
			t.Fatal(err)
		}
	})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return SignClippedSTE(in[0]) },
				func(in ...*agx.Tensor) *agx.Tensor { return agx.SignClippedSTE(in[0]) }, []*agx.Tensor{fntest.Leaf(1, dt, 4, 5)}, fntest.Tol(dt))
		})
	}
}

func ExampleSignClippedSTE() {
	x := agx.FromSlice([]float32{-2, -0.5, 0.7, 1.5}, 4).SetRequiresGrad(true)
	y := SignClippedSTE(x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([-1., -1.,  1.,  1.], grad_fn=<SignClippedSTEBackward>)
	// tensor([0., 1., 1., 0.])
}
