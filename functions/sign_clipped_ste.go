package functions

import "github.com/goagx/agx/agx"

// example C7

// SignClippedSTEFunction is sign(x) with the clipped straight-through
// estimator of binarised networks: the gradient passes only where the input
// is within [-1, 1],
//
//	∂L/∂x = g·[|x| ≤ 1]
//
// so that weights far from the threshold stop receiving updates. Forward saves
// x. agx.SignClippedSTE builds the same from built-ins.
type SignClippedSTEFunction struct{}

// Forward implements agx.Function.
func (SignClippedSTEFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Sign())
}

// Backward implements agx.Function.
func (SignClippedSTEFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(agx.Where(x.Abs().Le(1), g[0], 0.0))
}

// SignClippedSTE applies SignClippedSTEFunction.
func SignClippedSTE(x *agx.Tensor) *agx.Tensor { return agx.Apply(SignClippedSTEFunction{}, x) }
