package functions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C9
func TestDoubleBackwardSquare(t *testing.T) {
	for _, tc := range []struct {
		name       string
		x, dy, d2y float64
	}{
		{"source x=3", 3, 6, 2},
		{"x=-1.5", -1.5, -3, 2},
	} {
		t.Run("table/"+tc.name, func(t *testing.T) {
			x := fntest.LeafOf([]float64{tc.x}, 1)
			y := DoubleBackwardSquare(x)
			g := agx.Grad1(y.Sum(), x, agx.CreateGraph())
			fntest.Elements(t, "dy/dx", g, tc.dy)
			g2 := agx.Grad1(g.Sum(), x)
			fntest.Elements(t, "d²y/dx²", g2, tc.d2y)
		})
	}
	fntest.GradChecks(t, DoubleBackwardSquareFunction{}, []*agx.Tensor{fntest.Leaf(1, tensor.Float64, 3, 4)})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return DoubleBackwardSquare(in[0]) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Pow(2) }, []*agx.Tensor{fntest.Leaf(2, dt, 3, 4)}, fntest.Tol(dt))
		})
	}
}

func ExampleDoubleBackwardSquare() {
	x := agx.FromSlice([]float32{3}, 1).SetRequiresGrad(true)
	y := DoubleBackwardSquare(x)
	dy := agx.Grad1(y.Sum(), x, agx.CreateGraph())
	d2y := agx.Grad1(dy.Sum(), x)
	fmt.Println(dy.Item(), d2y.Item())
	// Output:
	// 6 2
}
