package functions

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// ClipGradientFunction is the identity in the forward pass (it returns a
// copy of x) and clamps the incoming gradient to [-Clip, Clip] in the
// backward pass: Backward returns clamp(g, -Clip, Clip). Clip must be ≥ 0.
//
// Because the clamp depends on the size of g, the gradient is not linear in
// g and is not the derivative of the forward pass where |g| > Clip; GradCheck
// reports that, by design.
//
// example D8
type ClipGradientFunction struct{ Clip float64 }

// Forward returns a copy of x.
func (f ClipGradientFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	if !(f.Clip >= 0) {
		tensor.Panicf("ClipGradient", tensor.ErrArg, "clip value must be ≥ 0, got %g", f.Clip)
	}
	return agx.Outputs(in[0].Clone())
}

// Backward returns clamp(g, -Clip, Clip).
func (f ClipGradientFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Clamp(-f.Clip, f.Clip))
}

// ClipGradient applies ClipGradientFunction with the given clip value.
func ClipGradient(x *agx.Tensor, clip float64) *agx.Tensor {
	return agx.Apply(ClipGradientFunction{Clip: clip}, x)
}
