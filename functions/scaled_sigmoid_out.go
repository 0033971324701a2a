package functions

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// example C4

// ScaledSigmoidOutFunction computes y = scale·σ(x) and saves only its OUTPUT:
// Backward recovers σ(x) = y/scale, so
//
//	∂L/∂x = g·scale·σ·(1-σ) = g·y·(1 - y/scale)
//
// Scale is a plain float field, not a tensor input, so Backward returns one
// gradient (for x) where PyTorch's version returns (grad_x, None). The backward
// uses agx ops on the saved output, so it is twice differentiable. Scale must be
// non-zero (Forward panics otherwise: σ could not be recovered).
type ScaledSigmoidOutFunction struct{ Scale float64 }

// Forward implements agx.Function.
func (f ScaledSigmoidOutFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	if f.Scale == 0 {
		tensor.PanicHint("ScaledSigmoidOut", tensor.ErrArg, "use a non-zero scale",
			"scale 0 makes σ(x) = y/scale undefined")
	}
	y := in[0].Sigmoid().Mul(f.Scale)
	ctx.SaveForBackward(y)
	return agx.Outputs(y)
}

// Backward implements agx.Function.
func (f ScaledSigmoidOutFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	y := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(y.Mul(y.Div(f.Scale).RSub(1))))
}

// ScaledSigmoidOut applies ScaledSigmoidOutFunction: scale·σ(x).
func ScaledSigmoidOut(x *agx.Tensor, scale float64) *agx.Tensor {
	return agx.Apply(ScaledSigmoidOutFunction{Scale: scale}, x)
}
