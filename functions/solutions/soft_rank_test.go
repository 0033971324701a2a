package solutions

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// bcHardRanks returns argsort(argsort(row)) + 1 for each row of the last dim.
func bcHardRanks(x *tensor.Tensor) *tensor.Tensor {
	n := x.Size(-1)
	vals := x.Float64s()
	out := make([]float64, len(vals))
	for r := 0; r < len(vals); r += n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		row := vals[r : r+n]
		sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] < row[idx[b]] })
		for rank, i := range idx {
			out[r+i] = float64(rank + 1)
		}
	}
	return tensor.FromSlice(out, x.Shape()...)
}

// example C24 (differentiable sorting)
func TestSoftRank(t *testing.T) {
	t.Run("table/small temperature", func(t *testing.T) {
		x := fntest.LeafOf([]float64{3, 1, 2}, 3)
		fntest.Elements(t, "ranks", SoftRank(x, 1e-3), 3, 1, 2)
	})
	t.Run("table/large temperature", func(t *testing.T) {
		x := fntest.LeafOf([]float64{3, 1, 2, 10}, 4)
		fntest.CloseData(t, "ranks", SoftRank(x, 1e9).Data(), tensor.Full(tensor.Float64, 2.5, 4), 0, 1e-6)
	})
	t.Run("approaches hard ranks", func(t *testing.T) {
		x := fntest.Leaf(1, tensor.Float64, 3, 7)
		hard := bcHardRanks(x.Data())
		prev := math.Inf(1)
		for _, tau := range []float64{1, 0.1, 0.01, 1e-3, 1e-4} {
			err := SoftRank(x, tau).Data().Sub(hard).Abs().Max().Item()
			if err > prev {
				t.Errorf("τ=%g: error %g grew from %g", tau, err, prev)
			}
			prev = err
		}
		if prev > 1e-6 {
			t.Fatalf("at τ=1e-4 the soft ranks are %g from the hard ranks", prev)
		}
	})
	t.Run("finite gradients at small temperature", func(t *testing.T) {
		for _, tau := range []float64{1e-2, 1e-4, 1e-8} {
			x := fntest.Leaf(2, tensor.Float64, 2, 6)
			SoftRank(x, tau).Mul(agx.New(tensor.NewGenerator(3).Randn(tensor.Float64, 2, 6))).Sum().Backward()
			for _, v := range x.Grad().Float64s() {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("τ=%g: gradient %v", tau, x.Grad())
				}
			}
		}
	})
	fntest.GradChecks(t, SoftRankFunction{Temperature: 0.5}, []*agx.Tensor{fntest.Leaf(4, tensor.Float64, 2, 5)})
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			ref := func(in ...*agx.Tensor) *agx.Tensor {
				x := in[0]
				return x.Unsqueeze(-1).Sub(x.Unsqueeze(-2)).Div(0.3).Sigmoid().Sum(-1).Add(0.5)
			}
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return SoftRank(in[0], 0.3) }, ref,
				[]*agx.Tensor{fntest.Leaf(5, dt, 2, 3, 8)}, fntest.Tol(dt))
		})
	}
	t.Run("misuse", func(t *testing.T) {
		fntest.PanicsIs(t, tensor.ErrArg, func() { SoftRank(fntest.Leaf(6, tensor.Float64, 3), 0) })
		fntest.PanicsIs(t, tensor.ErrShape, func() { SoftRank(agx.Scalar(1.0), 1) })
	})
}

func ExampleSoftRank() {
	x := agx.FromSlice([]float32{0.3, -1, 2, 0.5}, 4).SetRequiresGrad(true)
	fmt.Println(SoftRank(x, 1e-3).Detach())
	fmt.Println(SoftRank(x, 1).Detach())
	// Output:
	// tensor([2., 1., 4., 3.])
	// tensor([2.3905, 1.4440, 3.6157, 2.5498])
}
