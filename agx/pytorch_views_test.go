package agx_test

// In-place writes through views, with values from PyTorch 1.13 (CopySlices).

import (
	"testing"

	"github.com/goagx/agx/agx"
)

func TestPortInPlaceViews(t *testing.T) {
	for _, tc := range []struct {
		name   string
		run    func() []*agx.Tensor
		labels []string
		want   [][]float64
	}{
		{"narrow_of_non_leaf", func() []*agx.Tensor {
			a := ptLeaf(1, 2)
			b := a.Mul(1.0)
			b.Narrow(0, 0, 1).MulInPlace(10.0)
			b.Sum().Backward()
			return []*agx.Tensor{b, a.Grad()}
		}, []string{"b", "a.grad"}, [][]float64{{10, 2}, {10, 1}}},
		{"view_of_constant_buffer", func() []*agx.Tensor {
			buf, w := agx.Zeros(agx.Float64, 4), ptLeaf(2, 3)
			buf.Narrow(0, 1, 2).AddInPlace(w)
			buf.Mul(ptVec(1, 10, 100, 1000)).Sum().Backward()
			return []*agx.Tensor{buf, w.Grad()}
		}, []string{"buf", "w.grad"}, [][]float64{{0, 2, 3, 0}, {10, 100}}},
		{"other_view_made_before_the_write", func() []*agx.Tensor {
			a := ptLeaf(1, 2, 3, 4)
			b := a.Mul(1.0)
			r := b.Reshape(2, 2)
			b.Narrow(0, 0, 2).MulInPlace(3.0)
			r.Mul(r).Sum().Backward()
			return []*agx.Tensor{r, a.Grad()}
		}, []string{"r", "a.grad"}, [][]float64{{3, 6, 3, 4}, {18, 36, 6, 8}}},
		{"select_row_times_param", func() []*agx.Tensor {
			a := agx.FromSlice([]float64{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
			w := ptLeaf(5, 6)
			b := a.Mul(a)
			b.Select(0, 1).MulInPlace(w)
			b.Sum().Backward()
			return []*agx.Tensor{a.Grad(), w.Grad()}
		}, []string{"a.grad", "w.grad"}, [][]float64{{2, 4, 30, 48}, {9, 16}}},
		{"narrow_of_transpose", func() []*agx.Tensor {
			a := agx.FromSlice([]float64{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
			b := a.Mul(1.0)
			b.T().Narrow(0, 0, 1).MulInPlace(10.0)
			b.Mul(b).Sum().Backward()
			return []*agx.Tensor{a.Grad()}
		}, []string{"a.grad"}, [][]float64{{200, 4, 600, 8}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.run()
			for i := range got {
				ptClose(t, tc.labels[i], got[i], tc.want[i]...)
			}
		})
	}
	t.Run("view_of_leaf_requiring_grad", func(t *testing.T) {
		a := ptLeaf(1, 2)
		ptPanics(t, func() { a.Narrow(0, 0, 1).AddInPlace(1.0) }, agx.ErrGraph,
			"a view of a leaf Variable that requires grad is being used in an in-place operation")
	})
	t.Run("view_of_leaf_under_no_grad", func(t *testing.T) {
		a := ptLeaf(1, 2)
		agx.NoGrad(func() { a.Narrow(0, 1, 1).MulInPlace(5.0) })
		ptClose(t, "a", a, 1, 10)
	})
	t.Run("expanded_view", func(t *testing.T) {
		b := ptLeaf(1, 2).Mul(1.0)
		e := b.Unsqueeze(0).Expand(3, 2)
		ptPanics(t, func() { e.AddInPlace(agx.Ones(agx.Float64, 3, 2).SetRequiresGrad(true)) }, agx.ErrGraph,
			"more than one element of the written-to tensor refers to a single memory location")
	})
	t.Run("gradcheck_and_gradgradcheck", func(t *testing.T) {
		f := func(a, w *agx.Tensor) *agx.Tensor {
			b := a.Mul(a)
			b.Narrow(0, 1, 2).MulInPlace(w)
			return b
		}
		in := []*agx.Tensor{ptRandn(4), ptRandn(2)}
		if err := agx.GradCheck(f, in); err != nil {
			t.Fatal(err)
		}
		if err := agx.GradGradCheck(f, in); err != nil {
			t.Fatal(err)
		}
	})
}
