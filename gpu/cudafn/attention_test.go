//go:build cuda || cudaemu

package cudafn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/gpu/cudafn"
	"github.com/goagx/agx/gpu/gputest"
	"github.com/goagx/agx/tensor"
)

// composite is the same attention from built-in agx ops (scores materialised).
func composite(q, k, v *agx.Tensor, scale float64, causal bool) *agx.Tensor {
	r := q.Dim()
	s := q.MatMul(k.Transpose(r-2, r-1)).Mul(scale)
	if causal {
		lq, lk := q.Size(r-2), k.Size(r-2)
		mask := make([]bool, lq*lk)
		for i := range lq {
			for j := range lk {
				mask[i*lk+j] = j > i
			}
		}
		s = s.MaskedFill(agx.FromSlice(mask, lq, lk), math.Inf(-1))
	}
	return s.Softmax(r - 1).MatMul(v)
}

func TestAttention(t *testing.T) {
	be := gputest.Backend(t)
	cases := []struct {
		b, h, lq, lk, d int
		causal          bool
	}{
		{1, 1, 5, 7, 3, false},
		{2, 2, 33, 40, 8, false}, // more than one tile of queries and keys
		{1, 2, 37, 37, 4, true},
	}
	for _, c := range cases {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
			name := fmt.Sprintf("%v/B%dH%d/Lq%dLk%dD%d/causal=%v", dt, c.b, c.h, c.lq, c.lk, c.d, c.causal)
			t.Run(name, func(t *testing.T) {
				tensor.ManualSeed(7)
				q := agx.Randn(dt, c.b, c.h, c.lq, c.d).SetRequiresGrad(true)
				k := agx.Randn(dt, c.b, c.h, c.lk, c.d).SetRequiresGrad(true)
				v := agx.Randn(dt, c.b, c.h, c.lk, c.d).SetRequiresGrad(true)
				scale := 1 / math.Sqrt(float64(c.d))
				f := cudafn.Attention{Scale: scale, Causal: c.causal, Backend: be}
				y := agx.Apply(f, q, k, v)
				q2, k2, v2 := q.Detach().SetRequiresGrad(true), k.Detach().SetRequiresGrad(true), v.Detach().SetRequiresGrad(true)
				ref := composite(q2, k2, v2, scale, c.causal)
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 2e-5
				}
				closeAll(t, "forward", y.Float64s(), ref.Float64s(), tol)
				w := agx.Randn(dt, y.Shape()...)
				y.Mul(w).Sum().Backward()
				ref.Mul(w).Sum().Backward()
				closeAll(t, "dq", q.Grad().Float64s(), q2.Grad().Float64s(), tol)
				closeAll(t, "dk", k.Grad().Float64s(), k2.Grad().Float64s(), tol)
				closeAll(t, "dv", v.Grad().Float64s(), v2.Grad().Float64s(), tol)
			})
		}
	}
	t.Run("GradCheck/float64/causal", func(t *testing.T) {
		q := agx.Randn(tensor.Float64, 1, 4, 3).SetRequiresGrad(true)
		k := agx.Randn(tensor.Float64, 1, 4, 3).SetRequiresGrad(true)
		v := agx.Randn(tensor.Float64, 1, 4, 3).SetRequiresGrad(true)
		f := cudafn.Attention{Scale: 0.5, Causal: true, Backend: be}
		if err := agx.GradCheck(f, []*agx.Tensor{q, k, v}); err != nil {
			t.Fatal(err)
		}
	})
}

// Empty sizes: no queries, no keys or no batch. With no keys a query attends to
// nothing: the composite (softmax over an empty row, then a product with an
// empty inner dim) gives zeros, the row log-sum-exp is -Inf and dq is zero.
// With no queries dk and dv are zero. Run with AGX_DEBUG_UNINIT=1, a result
// left unwritten shows up as NaN.
func TestAttentionEmpty(t *testing.T) {
	be := gputest.Backend(t)
	cases := []struct {
		batch  []int
		lq, lk int
		causal bool
	}{
		{[]int{1, 2}, 0, 5, false},
		{[]int{1, 2}, 0, 5, true},
		{[]int{1, 2}, 4, 0, false},
		{[]int{1, 2}, 4, 0, true},
		{[]int{2}, 0, 0, false},
		{[]int{0, 2}, 3, 5, false},
		{[]int{2, 0}, 0, 0, true},
	}
	for _, c := range cases {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
			name := fmt.Sprintf("%v/batch%v/Lq%dLk%d/causal=%v", dt, c.batch, c.lq, c.lk, c.causal)
			t.Run(name, func(t *testing.T) {
				tensor.ManualSeed(3)
				shape := func(l int) []int { return append(append([]int(nil), c.batch...), l, 3) }
				q := tensor.Randn(dt, shape(c.lq)...)
				k := tensor.Randn(dt, shape(c.lk)...)
				v := tensor.Randn(dt, shape(c.lk)...)
				o, lse := be.Attention(q, k, v, 0.5, c.causal)
				rows := tensor.NumelOf(c.batch) * c.lq
				closeAll(t, "o", o.Float64s(), make([]float64, rows*3), 0)
				wantLSE := make([]float64, rows)
				for i := range wantLSE {
					wantLSE[i] = math.Inf(-1)
				}
				closeAll(t, "lse", lse.Float64s(), wantLSE, 0)
				dout := tensor.Randn(dt, shape(c.lq)...)
				dq, dk, dv := be.AttentionBackward(q, k, v, o, lse, dout, 0.5, c.causal)
				closeAll(t, "dq", dq.Float64s(), make([]float64, q.Numel()), 0)
				closeAll(t, "dk", dk.Float64s(), make([]float64, k.Numel()), 0)
				closeAll(t, "dv", dv.Float64s(), make([]float64, v.Numel()), 0)

				// The Function against the composite, forward and backward.
				qa, ka, va := agx.New(q).SetRequiresGrad(true), agx.New(k).SetRequiresGrad(true), agx.New(v).SetRequiresGrad(true)
				q2, k2, v2 := qa.Detach().SetRequiresGrad(true), ka.Detach().SetRequiresGrad(true), va.Detach().SetRequiresGrad(true)
				y := agx.Apply(cudafn.Attention{Scale: 0.5, Causal: c.causal, Backend: be}, qa, ka, va)
				ref := composite(q2, k2, v2, 0.5, c.causal)
				closeAll(t, "forward", y.Float64s(), ref.Float64s(), 0)
				y.Sum().Backward()
				ref.Sum().Backward()
				closeAll(t, "Function dq", qa.Grad().Float64s(), q2.Grad().Float64s(), 0)
				closeAll(t, "Function dk", ka.Grad().Float64s(), k2.Grad().Float64s(), 0)
				closeAll(t, "Function dv", va.Grad().Float64s(), v2.Grad().Float64s(), 0)
			})
		}
	}
}
