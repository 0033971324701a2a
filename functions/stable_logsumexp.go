package functions

import "github.com/goagx/agx/agx"

// StableLogSumExpFunction computes y = log Σⱼ exp(xⱼ) over the last dim,
// without overflow: with m = maxⱼ xⱼ, y = m + log Σⱼ exp(xⱼ - m). The output
// has x's shape without its last dim.
//
// Gradient: ∂y/∂xⱼ = exp(xⱼ - y) = softmax(x)ⱼ, so Backward returns
// softmax(x)·g (g broadcast along the last dim). Forward saves the softmax it
// has already computed, which makes Backward one multiplication; the saved
// softmax is a constant to the graph, so the Function is once-differentiable
// (it embeds agx.Once).
//
// example A3
type StableLogSumExpFunction struct{ agx.Once }

// Forward returns the max-shifted log-sum-exp over the last dim.
func (StableLogSumExpFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	m := x.AmaxKeep(-1)
	e := x.Sub(m).Exp()
	s := e.SumKeep(-1)
	ctx.SaveForBackward(e.Div(s))
	return agx.Outputs(m.Add(s.Log()).Squeeze(-1))
}

// Backward returns softmax(x)·g.
func (StableLogSumExpFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	p := ctx.SavedTensors()[0]
	return agx.Outputs(p.Mul(g[0].Unsqueeze(-1)))
}

// StableLogSumExp applies StableLogSumExpFunction: log-sum-exp over the last dim.
func StableLogSumExp(x *agx.Tensor) *agx.Tensor { return agx.Apply(StableLogSumExpFunction{}, x) }
