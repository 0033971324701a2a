package solutions

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// bcAttentionRef is attention composed from agx built-ins (-∞ at masked scores).
func bcAttentionRef(q, k, v, mask *agx.Tensor, scale float64) *agx.Tensor {
	s := q.MatMul(k.MT()).Mul(scale)
	if mask != nil {
		s = s.MaskedFill(mask.LogicalNot(), math.Inf(-1))
	}
	return s.Softmax(-1).MatMul(v)
}

// bcCausal is the lower-triangular Bool mask [n, n] (true = attend).
func bcCausal(n int) *agx.Tensor {
	i := tensor.Arange(tensor.Float64, 0, float64(n), 1)
	return agx.New(i.Unsqueeze(1).Ge(i.Unsqueeze(0)))
}

// example C25
func TestScaledDotProductAttention(t *testing.T) {
	t.Run("table/uniform weights average V", func(t *testing.T) {
		q := agx.Zeros(tensor.Float64, 2, 3)
		k := agx.Zeros(tensor.Float64, 4, 3)
		v := agx.FromSlice([]float64{1, 2, 3, 4, 5, 6, 7, 8}, 4, 2)
		fntest.Elements(t, "O", ScaledDotProductAttention(q, k, v, nil), 4, 5, 4, 5)
	})
	t.Run("table/causal", func(t *testing.T) {
		q := agx.Zeros(tensor.Float64, 3, 2)
		v := agx.FromSlice([]float64{3, 6, 9}, 3, 1)
		fntest.Elements(t, "O", ScaledDotProductAttention(q, agx.Zeros(tensor.Float64, 3, 2), v, bcCausal(3)), 3, 4.5, 6)
	})
	masks := []struct {
		name string
		mask func() *agx.Tensor
	}{
		{"no mask", func() *agx.Tensor { return nil }},
		{"causal", func() *agx.Tensor { return bcCausal(4) }},
		{"per batch", func() *agx.Tensor {
			return agx.New(tensor.NewGenerator(8).Rand(tensor.Float64, 2, 1, 4, 4).Gt(0.3).LogicalOr(tensor.Eye(tensor.Float64, 4).Gt(0)))
		}},
	}
	for _, m := range masks {
		for _, dt := range fntest.DTypes {
			t.Run(fmt.Sprintf("composite/%s/%v", m.name, dt), func(t *testing.T) {
				in := []*agx.Tensor{fntest.Leaf(1, dt, 2, 3, 4, 5), fntest.Leaf(2, dt, 2, 3, 4, 5), fntest.Leaf(3, dt, 2, 3, 4, 6), m.mask()}
				scale := 1 / math.Sqrt(5)
				fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return ScaledDotProductAttention(in[0], in[1], in[2], in[3]) },
					func(in ...*agx.Tensor) *agx.Tensor { return bcAttentionRef(in[0], in[1], in[2], in[3], scale) }, in, 10*fntest.Tol(dt))
			})
		}
		t.Run("checks/"+m.name, func(t *testing.T) {
			fntest.GradChecks(t, ScaledDotProductAttentionFunction{}, []*agx.Tensor{fntest.Leaf(4, tensor.Float64, 2, 1, 4, 3),
				fntest.Leaf(5, tensor.Float64, 2, 1, 4, 3), fntest.Leaf(6, tensor.Float64, 2, 1, 4, 2), m.mask()})
		})
	}
	t.Run("custom scale", func(t *testing.T) {
		in := []*agx.Tensor{fntest.Leaf(7, tensor.Float64, 3, 4), fntest.Leaf(8, tensor.Float64, 5, 4), fntest.Leaf(9, tensor.Float64, 5, 2)}
		fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor {
			return agx.Apply(ScaledDotProductAttentionFunction{Scale: 0.9}, in...)
		}, func(in ...*agx.Tensor) *agx.Tensor { return bcAttentionRef(in[0], in[1], in[2], nil, 0.9) }, in, 1e-12)
	})
	t.Run("broadcast K and V", func(t *testing.T) {
		in := []*agx.Tensor{fntest.Leaf(19, tensor.Float64, 2, 3, 4, 5), fntest.Leaf(20, tensor.Float64, 1, 1, 6, 5), fntest.Leaf(21, tensor.Float64, 1, 1, 6, 2)}
		fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return ScaledDotProductAttention(in[0], in[1], in[2], nil) },
			func(in ...*agx.Tensor) *agx.Tensor { return bcAttentionRef(in[0], in[1], in[2], nil, 1/math.Sqrt(5)) }, in, 1e-12)
	})
	t.Run("fully masked row", func(t *testing.T) {
		// Row 1 of the query may attend to nothing.
		mask := agx.FromSlice([]float64{1, 1, 0, 0, 0, 0, 1, 0, 1}, 3, 3).Gt(0)
		q, k, v := fntest.Leaf(10, tensor.Float64, 2, 3, 4), fntest.Leaf(11, tensor.Float64, 2, 3, 4), fntest.Leaf(12, tensor.Float64, 2, 3, 2)
		o := ScaledDotProductAttention(q, k, v, mask)
		o.Mul(agx.New(tensor.NewGenerator(13).Randn(tensor.Float64, 2, 3, 2))).Sum().Backward()
		fntest.CloseData(t, "output row", o.Data().Select(1, 1), tensor.Zeros(tensor.Float64, 2, 2), 0, 0)
		fntest.CloseData(t, "Q.grad row", q.Grad().Data().Select(1, 1), tensor.Zeros(tensor.Float64, 2, 4), 0, 0)
		for i, g := range []*agx.Tensor{q.Grad(), k.Grad(), v.Grad()} {
			for _, x := range g.Float64s() {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("grad %d: %v", i, g)
				}
			}
		}
		// The other rows match the composite (which is NaN only on row 1).
		ref := bcAttentionRef(q.Detach(), k.Detach(), v.Detach(), mask, 0.5)
		fntest.CloseData(t, "row 0", o.Data().Select(1, 0), ref.Data().Select(1, 0), 1e-12, 1e-12)
		fntest.CloseData(t, "row 2", o.Data().Select(1, 2), ref.Data().Select(1, 2), 1e-12, 1e-12)
		fntest.GradChecks(t, ScaledDotProductAttentionFunction{}, []*agx.Tensor{q, k, v, mask})
	})
	t.Run("needs-input-grad", func(t *testing.T) {
		q := agx.New(tensor.NewGenerator(14).Randn(tensor.Float64, 3, 4))
		k := agx.New(tensor.NewGenerator(15).Randn(tensor.Float64, 3, 4))
		v := fntest.Leaf(16, tensor.Float64, 3, 2)
		ScaledDotProductAttention(q, k, v, nil).Sum().Backward()
		if q.Grad() != nil || k.Grad() != nil || v.Grad() == nil {
			t.Fatal("only V should get a gradient")
		}
	})
	t.Run("misuse", func(t *testing.T) {
		q := fntest.Leaf(17, tensor.Float64, 3, 4)
		fntest.PanicsIs(t, tensor.ErrDType, func() { ScaledDotProductAttention(q, q, q, agx.Ones(tensor.Float64, 3, 3)) })
		fntest.PanicsIs(t, tensor.ErrArg, func() { agx.Apply(ScaledDotProductAttentionFunction{}, q, q) })
		fntest.PanicsIs(t, tensor.ErrShape, func() { ScaledDotProductAttention(q, fntest.Leaf(18, tensor.Float64, 3, 5), q, nil) })
	})
}

func ExampleScaledDotProductAttention() {
	q := agx.FromSlice([]float32{1, 0, 0, 1}, 2, 2).SetRequiresGrad(true)
	k := agx.FromSlice([]float32{1, 0, 0, 1}, 2, 2).SetRequiresGrad(true)
	v := agx.FromSlice([]float32{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
	mask := agx.FromSlice([]float32{1, 0, 1, 1}, 2, 2).Gt(0) // causal: row 0 sees only key 0
	o := ScaledDotProductAttention(q, k, v, mask)
	o.Sum().Backward()
	fmt.Println(o)
	fmt.Println(v.Grad())
	// Output:
	// tensor([[1.0000, 2.0000],
	//         [2.3395, 3.3395]], grad_fn=<ScaledDotProductAttentionBackward>)
	// tensor([[1.3302, 1.3302],
	//         [0.6698, 0.6698]])
}

// TestScaledDotProductAttentionRows compares the first-order backward, whose
// softmax Jacobian runs in place row by row, with the composite for rows of
// one key, short rows and rows longer than one pairwise block, under a
// random mask, with Q passed as a transposed view.
func TestScaledDotProductAttentionRows(t *testing.T) {
	for _, dt := range fntest.DTypes {
		for _, sk := range []int{1, 3, 300, 1100} {
			t.Run(fmt.Sprintf("%v/keys=%d", dt, sk), func(t *testing.T) {
				mask := agx.New(tensor.NewGenerator(8).Rand(tensor.Float64, 2, 1, 5, sk).Gt(0.3))
				q := fntest.Leaf(4, dt, 2, 3, 8, 5).MT()
				in := []*agx.Tensor{q, fntest.Leaf(2, dt, 2, 3, sk, 8), fntest.Leaf(3, dt, 2, 3, sk, 4), mask}
				scale := 1 / math.Sqrt(8)
				fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return ScaledDotProductAttention(in[0], in[1], in[2], in[3]) },
					func(in ...*agx.Tensor) *agx.Tensor {
						off := in[3].LogicalNot()
						s := in[0].MatMul(in[1].MT()).Mul(scale).MaskedFill(off, -1e30)
						return s.Softmax(-1).MaskedFill(off, 0).MatMul(in[2])
					}, in, 10*fntest.Tol(dt))
			})
		}
	}
}
