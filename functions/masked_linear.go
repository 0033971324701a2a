package functions

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// MaskedLinearFunction computes y = x·(W⊙M)ᵀ for x [..., in], a weight W
// [out, in] and a Bool mask M [out, in] (true keeps a weight, false prunes it).
//
// Gradients, with W' = W⊙M:
//
//	∂L/∂x = g·W'
//	∂L/∂W = (gᵀ·x)⊙M
//	mask: none (nil; a Bool tensor is not differentiable)
//
// Backward computes only the gradients that ctx.NeedsInputGrad asks for. It
// saves x, W and M and rebuilds W' in Backward with agx ops (rather than
// saving the W' made in Forward) so that second derivatives are right.
//
// example A5
type MaskedLinearFunction struct{}

// Forward returns x·(W⊙M)ᵀ.
func (MaskedLinearFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x, w, mask := in[0], in[1], in[2]
	if mask.DType() != agx.Bool {
		tensor.Panicf("MaskedLinear", tensor.ErrDType, "mask must be a Bool tensor, got %v", mask.DType())
	}
	ctx.SaveForBackward(x, w, mask)
	return agx.Outputs(x.MatMul(maskedLinearWeight(w, mask).T()))
}

func maskedLinearWeight(w, mask *agx.Tensor) *agx.Tensor { return w.Mul(mask.To(w.DType())) }

// Backward returns (g·W', (gᵀ·x)⊙M, nil).
func (MaskedLinearFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, w, mask := s[0], s[1], s[2]
	var gx, gw *agx.Tensor
	if ctx.NeedsInputGrad(0) {
		gx = g[0].MatMul(maskedLinearWeight(w, mask))
	}
	if ctx.NeedsInputGrad(1) {
		g2 := g[0].Reshape(-1, g[0].Size(-1))
		x2 := x.Reshape(-1, x.Size(-1))
		gw = g2.T().MatMul(x2).Mul(mask.To(x.DType()))
	}
	return agx.Outputs(gx, gw, nil)
}

// MaskedLinear applies MaskedLinearFunction: x·(weight⊙mask)ᵀ.
func MaskedLinear(x, weight, mask *agx.Tensor) *agx.Tensor {
	return agx.Apply(MaskedLinearFunction{}, x, weight, mask)
}
