package functions

import (
	"errors"
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C10
func TestOnceSquare(t *testing.T) {
	t.Run("first backward", func(t *testing.T) {
		x := fntest.LeafOf([]float64{3, -1}, 2)
		y := OnceSquare(x)
		fntest.Elements(t, "y", y, 9, 1)
		y.Sum().Backward()
		fntest.Elements(t, "x.grad", x.Grad(), 6, -2)
	})
	t.Run("second derivative fails", func(t *testing.T) {
		x := fntest.LeafOf([]float64{3}, 1)
		g := agx.Grad1(OnceSquare(x).Sum(), x, agx.CreateGraph())
		fntest.Elements(t, "dy/dx", g, 6)
		err := agx.Try(func() { g.Sum().Backward() })
		if !errors.Is(err, agx.ErrOnceDifferentiable) {
			t.Fatalf("got %v, want ErrOnceDifferentiable", err)
		}
	})
	in := []*agx.Tensor{fntest.Leaf(1, tensor.Float64, 3, 4)}
	t.Run("gradcheck", func(t *testing.T) {
		if err := agx.GradCheck(OnceSquareFunction{}, in); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("gradgradcheck fails", func(t *testing.T) {
		err := agx.GradGradCheck(OnceSquareFunction{}, in)
		if !errors.Is(err, agx.ErrOnceDifferentiable) {
			t.Fatalf("GradGradCheck = %v, want an error wrapping ErrOnceDifferentiable", err)
		}
	})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return OnceSquare(in[0]) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Mul(in[0]) }, []*agx.Tensor{fntest.Leaf(2, dt, 3, 4)}, fntest.Tol(dt))
		})
	}
}

func ExampleOnceSquare() {
	x := agx.FromSlice([]float32{3}, 1).SetRequiresGrad(true)
	dy := agx.Grad1(OnceSquare(x).Sum(), x, agx.CreateGraph())
	fmt.Println(dy.Item())
	err := agx.Try(func() { dy.Sum().Backward() })
	fmt.Println(errors.Is(err, agx.ErrOnceDifferentiable))
	// Output:
	// 6
	// true
}
