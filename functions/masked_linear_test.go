package functions_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestMaskedLinear(t *testing.T) {
	for _, dt := range fntest.DTypes {
		t.Run(dt.String(), func(t *testing.T) {
			x := fntest.Vec(dt, []float64{1, 2}, 1, 2).SetRequiresGrad(true)
			w := fntest.Vec(dt, []float64{1, 1, 2, 3}, 2, 2).SetRequiresGrad(true)
			mask := agx.FromNested([][]bool{{true, false}, {true, true}})
			y := functions.MaskedLinear(x, w, mask)
			// W⊙M = [[1 0] [2 3]]: y = [1, 8]
			fntest.Values(t, "y", y, []float64{1, 8}, 0)
			y.Sum().Backward()
			fntest.Values(t, "x.grad", x.Grad(), []float64{3, 3}, 0)
			fntest.Values(t, "w.grad", w.Grad(), []float64{1, 0, 1, 2}, 0)
		})
	}
}

// Example A5: x(4,8), w(16,8), mask(16,8): gradients of the right shapes,
// zero for pruned weights, and none for the mask.
func TestMaskedLinearA5(t *testing.T) {
	x := fntest.Randn(50, agx.Float32, 4, 8).SetRequiresGrad(true)
	w := fntest.Randn(51, agx.Float32, 16, 8).SetRequiresGrad(true)
	mask := fntest.Randn(52, agx.Float32, 16, 8).Gt(0)
	functions.MaskedLinear(x, w, mask).Sum().Backward()
	if !slices.Equal(x.Grad().Shape(), []int{4, 8}) || !slices.Equal(w.Grad().Shape(), []int{16, 8}) {
		t.Fatalf("x.grad %v, w.grad %v", x.Grad().Shape(), w.Grad().Shape())
	}
	pruned := w.Grad().MaskedFill(mask, 0).Abs().Sum().Item()
	if pruned != 0 {
		t.Fatalf("pruned weights got gradient %v", pruned)
	}
	if mask.Grad() != nil || mask.RequiresGrad() {
		t.Fatal("the mask must get no gradient")
	}
}

// srcNeedsProbe records what NeedsInputGrad told MaskedLinear's Backward.
type srcNeedsProbe struct {
	functions.MaskedLinearFunction
	seen *[]bool
}

func (p srcNeedsProbe) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	*p.seen = []bool{ctx.NeedsInputGrad(0), ctx.NeedsInputGrad(1), ctx.NeedsInputGrad(2)}
	return p.MaskedLinearFunction.Backward(ctx, g...)
}

func TestMaskedLinearNeedsInputGrad(t *testing.T) {
	for _, tc := range []struct {
		name         string
		xGrad, wGrad bool
	}{{"x-only", true, false}, {"w-only", false, true}, {"both", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			x := fntest.Randn(53, agx.Float64, 2, 3).SetRequiresGrad(tc.xGrad)
			w := fntest.Randn(54, agx.Float64, 4, 3).SetRequiresGrad(tc.wGrad)
			mask := fntest.Randn(55, agx.Float64, 4, 3).Gt(0)
			var seen []bool
			agx.Apply(srcNeedsProbe{seen: &seen}, x, w, mask).Sum().Backward()
			if !slices.Equal(seen, []bool{tc.xGrad, tc.wGrad, false}) {
				t.Fatalf("NeedsInputGrad = %v", seen)
			}
			if (x.Grad() != nil) != tc.xGrad || (w.Grad() != nil) != tc.wGrad {
				t.Fatalf("x.grad %v, w.grad %v", x.Grad(), w.Grad())
			}
		})
	}
}

func TestMaskedLinearMisuse(t *testing.T) {
	x := agx.Ones(agx.Float64, 1, 2)
	fntest.PanicsWith(t, func() { functions.MaskedLinear(x, agx.Ones(agx.Float64, 2, 2), agx.Ones(agx.Float64, 2, 2)) }, "mask must be a Bool tensor")
}

func ExampleMaskedLinear() {
	x := agx.FromNested([][]float64{{1, 2}}).SetRequiresGrad(true)
	w := agx.FromNested([][]float64{{1, 1}, {2, 3}}).SetRequiresGrad(true)
	mask := agx.FromNested([][]bool{{true, false}, {true, true}})
	y := functions.MaskedLinear(x, w, mask)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	fmt.Println(w.Grad())
	// Output:
	// tensor([[1., 8.]], dtype=float64, grad_fn=<MaskedLinearBackward>)
	// tensor([[3., 3.]], dtype=float64)
	// tensor([[1., 0.],
	//         [1., 2.]], dtype=float64)
}
