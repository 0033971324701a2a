package functions

import "github.com/goagx/agx/agx"

// SquareFunction computes y = x² element-wise.
//
// Gradient: ∂y/∂x = 2x, so Backward returns g·2x. It saves x; its Backward
// is written with agx ops, so second derivatives (2g) work too.
//
// example A1
type SquareFunction struct{}

// Forward returns x·x and saves x.
func (SquareFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(x.Mul(x))
}

// Backward returns g·2x.
func (SquareFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(x).Mul(2))
}

// Square applies SquareFunction: x² element-wise, for any float dtype.
func Square(x *agx.Tensor) *agx.Tensor { return agx.Apply(SquareFunction{}, x) }
