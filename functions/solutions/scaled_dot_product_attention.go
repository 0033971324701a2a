package solutions

import (
	"math"
	"slices"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/gradpromise"
	"github.com/goagx/agx/tensor"
)

// example C25 (challenge: attention backward)

// ScaledDotProductAttentionFunction is softmax attention with a hand-written
// backward through the softmax Jacobian. For Q [..., Sq, D], K [..., Sk, D],
// V [..., Sk, Dv] (leading dims broadcast, e.g. [B, H, S, D]) and an optional
// Bool mask broadcastable to [..., Sq, Sk] (true = attend, false = masked out):
//
//	S = Q·Kᵀ·scale,  P = softmax(S) over the last dim (masked entries 0),
//	O = P·V
//
// Backward, for an upstream gradient G = ∂L/∂O:
//
//	dV = Pᵀ·G,  dP = G·Vᵀ,  dS = P ⊙ (dP - Σ_k(dP ⊙ P)),
//	dQ = dS·K·scale,  dK = dSᵀ·Q·scale
//
// Scale 0 means 1/√D. A row whose mask is false everywhere is defined, never
// NaN: its attention weights are all 0, so its output row is 0 and it sends
// no gradient to Q, K or V. Forward saves Q, K, V, P and the mask; Backward
// uses agx ops, and when it is itself differentiated (agx.CreateGraph) it
// recomputes P from Q and K so that second derivatives are right. Inputs are
// Q, K, V and the mask (nil for none); the mask gets no gradient. Float32 and
// Float64; shapes that do not line up panic with MatMul's and MaskedFill's
// errors.
type ScaledDotProductAttentionFunction struct{ Scale float64 }

func (f ScaledDotProductAttentionFunction) scale(q *agx.Tensor) float64 {
	if f.Scale != 0 {
		return f.Scale
	}
	return 1 / math.Sqrt(float64(q.Size(-1)))
}

// attnMaskedScore stands in for -∞ at masked scores: finite, so that a fully
// masked row gives a uniform softmax (zeroed afterwards) instead of NaN.
const attnMaskedScore = -math.MaxFloat32

// attentionWeights computes P with agx ops (recorded when Q or K require grad).
func attentionWeights(q, k, mask *agx.Tensor, scale float64) *agx.Tensor {
	s := q.MatMul(k.MT()).Mul(scale)
	if mask == nil {
		return s.Softmax(-1)
	}
	off := mask.LogicalNot()
	return s.MaskedFill(off, attnMaskedScore).Softmax(-1).MaskedFill(off, 0)
}

// Forward implements agx.Function.
func (f ScaledDotProductAttentionFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	if len(in) < 3 {
		tensor.PanicHint("ScaledDotProductAttention", tensor.ErrArg, "pass Q, K, V and optionally a mask",
			"expected 3 or 4 inputs, got %d", len(in))
	}
	q, k, v := in[0], in[1], in[2]
	var mask *agx.Tensor
	if len(in) > 3 && in[3] != nil {
		mask = in[3]
		if mask.DType() != tensor.Bool {
			tensor.PanicHint("ScaledDotProductAttention", tensor.ErrDType, "build the mask with a comparison, true where attention is allowed",
				"mask must be Bool, got %v", mask.DType())
		}
	}
	scale := f.scale(q)
	// Plain tensor ops, in place where the intermediate is private.
	s := tensor.MatMul(q.Data(), k.Data().MT())
	// (On the CPU these whole-tensor ops are vectorised; they beat a fused
	// row-by-row softmax in scalar Go by 6-9 % of the workload.)
	s.MulInPlace(scale)
	var off *tensor.Tensor
	if mask != nil {
		off = mask.Data().LogicalNot()
		s = s.MaskedFill(off, attnMaskedScore)
	}
	p := attnSoftmaxInPlace(s)
	if mask != nil {
		p = p.MaskedFill(off, 0)
	}
	pt := agx.New(p)
	ctx.SaveForBackward(q, k, v, pt, mask)
	ctx.Set("inputs", len(in))
	return agx.Outputs(agx.New(tensor.MatMul(p, v.Data())))
}

// attnSoftmaxInPlace overwrites the private score tensor s with its softmax
// over the last dim (max-shifted, like Tensor.Softmax) and returns it, which
// saves Softmax's fresh result.
func attnSoftmaxInPlace(s *tensor.Tensor) *tensor.Tensor {
	s.SubInPlace(s.AmaxKeep(-1))
	tensor.UnaryTo(s, tensor.OpExp, s)
	return s.DivInPlace(s.SumKeep(-1))
}

// KeepsNoGrads makes gradpromise's promise: Backward keeps none of the
// gradients it is given or returns, so the engine may recycle them.
func (ScaledDotProductAttentionFunction) KeepsNoGrads(gradpromise.Token) {}

// Backward implements agx.Function.
func (f ScaledDotProductAttentionFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	q, k, v, p, mask := s[0], s[1], s[2], s[3], s[4]
	gr := g[0]
	scale := f.scale(q)
	grads := make([]*agx.Tensor, agx.CtxValue[int](ctx, "inputs"))
	needQ, needK, needV := ctx.NeedsInputGrad(0), ctx.NeedsInputGrad(1), ctx.NeedsInputGrad(2)
	if gr.RequiresGrad() || q.RequiresGrad() || k.RequiresGrad() || v.RequiresGrad() {
		// Differentiable pass (CreateGraph): recompute P from Q and K so that the
		// gradients depend on them.
		p = attentionWeights(q, k, mask, scale)
		if needV {
			grads[2] = p.MT().MatMul(gr)
		}
		if needQ || needK {
			dp := gr.MatMul(v.MT())
			pdp := dp.Mul(p)
			ds := pdp.Sub(p.Mul(pdp.SumKeep(-1)))
			if needQ {
				grads[0] = ds.MatMul(k).Mul(scale)
			}
			if needK {
				grads[1] = ds.MT().MatMul(q).Mul(scale)
			}
		}
		return grads
	}
	// First-order pass: the same formulas on plain tensors, with the softmax
	// Jacobian applied in place. Transposed operands are passed as views: the
	// GEMM packs its operands, and a transposed left or a row-major right
	// operand is the cheapest layout for it to pack.
	gd, pd := gr.Data(), p.Data()
	if needV {
		grads[2] = agx.New(tensor.MatMul(pd.MT(), gd))
	}
	if needQ || needK {
		dp := tensor.MatMul(gd, v.Data().MT())
		var ds *tensor.Tensor
		if softmaxBackwardOK(dp, pd) {
			ds = dp.SoftmaxBackwardInPlace(pd, scale)
		} else {
			rs := dp.Mul(pd).SumKeep(-1)
			ds = dp.SubInPlace(rs).MulInPlace(pd).MulInPlace(scale)
		}
		if needQ {
			grads[0] = agx.New(tensor.MatMul(ds, k.Data()))
		}
		if needK {
			grads[1] = agx.New(tensor.MatMul(ds.MT(), q.Data()))
		}
		// dS (computed in dP's buffer on both paths) is private to this
		// call: hand its buffer back, so that the next step's scores reuse
		// it while it is in cache (tensor.Recycle).
		tensor.Recycle(ds)
	}
	return grads
}

// softmaxBackwardOK reports whether tensor.SoftmaxBackwardInPlace takes dp
// and p: contiguous CPU float tensors of one dtype and shape. It applies
// the softmax Jacobian to each row while the row is in cache, without the
// row sums as a separate tensor.
func softmaxBackwardOK(dp, p *tensor.Tensor) bool {
	for _, t := range []*tensor.Tensor{dp, p} {
		if _, cpu := t.Backend().(tensor.CPU); !cpu || !t.IsContiguous() {
			return false
		}
	}
	return dp.DType().IsFloat() && dp.DType() == p.DType() && slices.Equal(dp.Shape(), p.Shape())
}

// ScaledDotProductAttention applies ScaledDotProductAttentionFunction with the
// default scale 1/√D; mask may be nil.
func ScaledDotProductAttention(q, k, v, mask *agx.Tensor) *agx.Tensor {
	return agx.Apply(ScaledDotProductAttentionFunction{}, q, k, v, mask)
}
