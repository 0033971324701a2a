package functions

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// SmoothL1Function is the element-wise smooth L1 (Huber-style) penalty of a
// difference x, with Beta ≥ 0:
//
//	y = 0.5·x²/Beta   where |x| < Beta
//	y = |x| - 0.5·Beta otherwise
//
// Gradient: x/Beta where |x| < Beta, sign(x) otherwise; Backward multiplies
// it by g. With Beta = 0 it is the L1 penalty |x| (gradient sign(x)), as in
// PyTorch's smooth_l1_loss. It saves x.
//
// example D11
type SmoothL1Function struct{ Beta float64 }

// Forward returns the element-wise smooth L1 penalty and saves x.
func (f SmoothL1Function) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	if !(f.Beta >= 0) {
		tensor.Panicf("SmoothL1", tensor.ErrArg, "beta must be ≥ 0, got %g", f.Beta)
	}
	x := in[0]
	ctx.SaveForBackward(x)
	a := x.Abs()
	if f.Beta == 0 {
		return agx.Outputs(a)
	}
	quad := x.Mul(x).Mul(0.5 / f.Beta)
	return agx.Outputs(agx.Where(a.Lt(f.Beta), quad, a.Sub(0.5*f.Beta)))
}

// Backward returns g·(x/Beta where |x| < Beta, else sign(x)).
func (f SmoothL1Function) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	if f.Beta == 0 {
		return agx.Outputs(g[0].Mul(x.Sign()))
	}
	d := agx.Where(x.Abs().Lt(f.Beta), x.Div(f.Beta), x.Sign())
	return agx.Outputs(g[0].Mul(d))
}

// SmoothL1 applies SmoothL1Function element-wise.
func SmoothL1(x *agx.Tensor, beta float64) *agx.Tensor {
	return agx.Apply(SmoothL1Function{Beta: beta}, x)
}

// SmoothL1Loss is the mean smooth L1 penalty of prediction - target (they
// broadcast together), the source's SmoothL1Loss module and PyTorch's
// smooth_l1_loss with reduction "mean".
func SmoothL1Loss(prediction, target *agx.Tensor, beta float64) *agx.Tensor {
	return SmoothL1(prediction.Sub(target), beta).Mean()
}
