package cudafn

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/gpu"
	"github.com/goagx/agx/tensor"
)

// Attention is fused scaled dot-product attention, softmax(q·kᵀ·Scale)·v with
// an optional causal mask, as an agx Function whose forward and backward are
// the FlashAttention-style kernels of gpu/kernels/attention.cu: the score
// matrix is never stored; the forward saves only the row log-sum-exp.
// Inputs q [..., Lq, D], k and v [..., Lk, D] (D <= 64, Float32 or Float64);
// the output comes back on q's backend.
type Attention struct {
	Scale   float64
	Causal  bool
	Backend *gpu.Backend
}

// Name implements agx.Named.
func (Attention) Name() string { return "FlashAttention" }

// Forward runs the fused forward kernel.
func (a Attention) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	home := in[0].Data().Backend()
	o, lse := a.Backend.Attention(in[0].Data(), in[1].Data(), in[2].Data(), a.Scale, a.Causal)
	out := agx.New(o.ToBackend(home))
	ctx.SaveForBackward(in[0], in[1], in[2], out, agx.New(lse.ToBackend(home)))
	return agx.Outputs(out)
}

// Backward runs the two backward passes and returns dq, dk, dv.
func (a Attention) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	home := s[0].Data().Backend()
	dq, dk, dv := a.Backend.AttentionBackward(s[0].Data(), s[1].Data(), s[2].Data(), s[3].Data(), s[4].Data(),
		g[0].Data(), a.Scale, a.Causal)
	back := func(t *tensor.Tensor) *agx.Tensor { return agx.New(t.ToBackend(home)) }
	return agx.Outputs(back(dq), back(dk), back(dv))
}
