package functions

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// example C12

// SoftThresholdFunction is the soft-thresholding (shrinkage) operator, the
// proximal operator of t·|x| used by LASSO and ISTA:
//
//	y = sign(x)·max(|x| - t, 0),  ∂L/∂x = g·[|x| > t]
//
// Values within [-t, t] become 0 and receive no gradient; the others move t
// towards 0 and pass the gradient unchanged. Forward saves x. Threshold must be
// ≥ 0 (Forward panics otherwise).
type SoftThresholdFunction struct{ Threshold float64 }

// Forward implements agx.Function.
func (f SoftThresholdFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	if f.Threshold < 0 {
		tensor.Panicf("SoftThreshold", tensor.ErrArg, "threshold must be non-negative, got %g", f.Threshold)
	}
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(x.Sign().Mul(x.Abs().Sub(f.Threshold).Relu()))
}

// Backward implements agx.Function.
func (f SoftThresholdFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(agx.Where(x.Abs().Gt(f.Threshold), g[0], 0.0))
}

// SoftThreshold applies SoftThresholdFunction: sign(x)·max(|x| - t, 0).
func SoftThreshold(x *agx.Tensor, t float64) *agx.Tensor {
	return agx.Apply(SoftThresholdFunction{Threshold: t}, x)
}
