package solutions

import (
	"math"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// example C24 (exercise: differentiable sorting)

// SoftRankFunction computes differentiable ranks along the last dim. Hard
// ranks (1 for the smallest element, ties aside) count how many elements lie
// below each one; the soft version replaces the step function by a sigmoid of
// temperature τ:
//
//	rank_i = 1 + Σ_{j≠i} σ((x_i - x_j)/τ) = ½ + Σ_j σ((x_i - x_j)/τ)
//
// (the j = i term is σ(0) = ½). As τ → 0 the ranks tend to the hard ranks
// (argsort(argsort(x)) + 1) for distinct values; a large τ pulls every rank
// towards the middle, (n+1)/2. With s_ij = σ((x_i - x_j)/τ) and
// d_ij = s_ij·(1 - s_ij)/τ, the gradient is
//
//	∂L/∂x_k = g_k·Σ_j d_kj - Σ_i g_i·d_ik
//
// It costs O(n²) time and memory per row. Forward saves x; Backward recomputes
// s with agx ops, so SoftRank is twice differentiable. Gradients stay finite
// for small τ (saturated sigmoids give d = 0). Temperature must be positive
// (Forward panics otherwise). Float32 and Float64, any leading batch dims.
type SoftRankFunction struct{ Temperature float64 }

func softRankPairs(x *agx.Tensor, tau float64) *agx.Tensor {
	return x.Unsqueeze(-1).Sub(x.Unsqueeze(-2)).Div(tau).Sigmoid()
}

// Forward implements agx.Function.
func (f SoftRankFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	if !(f.Temperature > 0) || math.IsInf(f.Temperature, 1) {
		tensor.Panicf("SoftRank", tensor.ErrArg, "temperature must be positive and finite, got %g", f.Temperature)
	}
	x := in[0]
	if x.Dim() == 0 {
		tensor.PanicHint("SoftRank", tensor.ErrShape, "pass a tensor with at least one dim", "cannot rank a scalar")
	}
	ctx.SaveForBackward(x)
	return agx.Outputs(softRankPairs(x, f.Temperature).Sum(-1).Add(0.5))
}

// Backward implements agx.Function.
func (f SoftRankFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	s := softRankPairs(x, f.Temperature)
	d := s.Mul(s.RSub(1)).Div(f.Temperature)
	gk := g[0].Mul(d.Sum(-1))
	return agx.Outputs(gk.Sub(g[0].Unsqueeze(-1).Mul(d).Sum(-2)))
}

// Jvp is the forward-mode rule. Rank i moves with the differences x_i - x_j:
// dr_i = Σ_j d_ij·(dx_i - dx_j) with d_ij = σ'((x_i - x_j)/τ)/τ. Backward
// contracts the same matrix d with the gradient from the other side (Jᵀg
// sums over i where Jv sums over j).
func (f SoftRankFunction) Jvp(ctx *agx.Ctx, t ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	s := softRankPairs(x, f.Temperature)
	d := s.Mul(s.RSub(1)).Div(f.Temperature)
	v := t[0]
	return agx.Outputs(v.Mul(d.Sum(-1)).Sub(d.Mul(v.Unsqueeze(-2)).Sum(-1)))
}

// SoftRank applies SoftRankFunction with temperature τ along the last dim.
func SoftRank(x *agx.Tensor, temperature float64) *agx.Tensor {
	return agx.Apply(SoftRankFunction{Temperature: temperature}, x)
}
