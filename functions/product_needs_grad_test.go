package functions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C14
func TestProductNeedsGrad(t *testing.T) {
	for _, tc := range []struct {
		name       string
		reqX, reqY bool
		want       [2]int
	}{
		{"both", true, true, [2]int{1, 1}},
		{"x only", true, false, [2]int{1, 0}},
		{"y only", false, true, [2]int{0, 1}},
	} {
		t.Run("counting/"+tc.name, func(t *testing.T) {
			x := agx.FromSlice([]float64{2, 3}, 2).SetRequiresGrad(tc.reqX)
			y := agx.FromSlice([]float64{5, 7}, 2).SetRequiresGrad(tc.reqY)
			var count [2]int
			z := agx.Apply(ProductNeedsGradFunction{OnGrad: func(i int) { count[i]++ }}, x, y)
			fntest.Elements(t, "z", z, 10, 21)
			z.Sum().Backward()
			if count != tc.want {
				t.Fatalf("gradients computed %v, want %v", count, tc.want)
			}
			if tc.reqX {
				fntest.Elements(t, "x.grad", x.Grad(), 5, 7)
			}
			if tc.reqY {
				fntest.Elements(t, "y.grad", y.Grad(), 2, 3)
			}
		})
	}
	fntest.GradChecks(t, ProductNeedsGradFunction{}, []*agx.Tensor{fntest.Leaf(1, tensor.Float64, 3, 4), fntest.Leaf(2, tensor.Float64, 4)})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return ProductNeedsGrad(in[0], in[1]) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].Mul(in[1]) },
				[]*agx.Tensor{fntest.Leaf(3, dt, 3, 4), fntest.Leaf(4, dt, 3, 1)}, fntest.Tol(dt))
		})
	}
}

func ExampleProductNeedsGrad() {
	x := agx.FromSlice([]float32{2, 3}, 2).SetRequiresGrad(true)
	y := agx.FromSlice([]float32{5, 7}, 2) // needs no gradient
	computed := 0
	z := agx.Apply(ProductNeedsGradFunction{OnGrad: func(int) { computed++ }}, x, y)
	z.Sum().Backward()
	fmt.Println(x.Grad(), computed)
	// Output:
	// tensor([5., 7.]) 1
}
