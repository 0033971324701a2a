package functions

import "github.com/goagx/agx/agx"

// TwoInTwoOutFunction takes two tensors x and y (broadcast together) and
// returns two outputs, u = x² + y² and v = x·y.
//
// Gradients, with gu and gv the gradients of the two outputs:
//
//	∂L/∂x = 2x·gu + y·gv
//	∂L/∂y = 2y·gu + x·gv
//
// After backward of both outputs with gradients of ones, x.Grad() = 2x + y and
// y.Grad() = 2y + x. It saves x and y.
//
// example E2
type TwoInTwoOutFunction struct{}

// Forward returns (x² + y², x·y).
func (TwoInTwoOutFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x, y := in[0], in[1]
	ctx.SaveForBackward(x, y)
	return agx.Outputs(x.Mul(x).Add(y.Mul(y)), x.Mul(y))
}

// Backward returns (2x·gu + y·gv, 2y·gu + x·gv).
func (TwoInTwoOutFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, y := s[0], s[1]
	gu, gv := g[0], g[1]
	var gx, gy *agx.Tensor
	if ctx.NeedsInputGrad(0) {
		gx = x.Mul(2).Mul(gu).Add(y.Mul(gv))
	}
	if ctx.NeedsInputGrad(1) {
		gy = y.Mul(2).Mul(gu).Add(x.Mul(gv))
	}
	return agx.Outputs(gx, gy)
}

// TwoInTwoOut applies TwoInTwoOutFunction and returns its two outputs.
func TwoInTwoOut(x, y *agx.Tensor) (sumSquares, product *agx.Tensor) {
	out := agx.ApplyN(TwoInTwoOutFunction{}, x, y)
	return out[0], out[1]
}
