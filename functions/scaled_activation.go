package functions

import "github.com/goagx/agx/agx"

// ScaledActivationFunction computes y = Scale·relu(x) when UseReLU is set and
// y = Scale·tanh(x) otherwise. Scale and UseReLU are plain fields: they are not
// differentiable.
//
// Gradient: Scale·1[x > 0] for the relu branch, Scale·(1 - tanh²x) for the
// tanh branch; Backward multiplies it by g. It saves x.
//
// example D4
type ScaledActivationFunction struct {
	Scale   float64
	UseReLU bool
}

// Forward returns Scale·relu(x) or Scale·tanh(x).
func (f ScaledActivationFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	if f.UseReLU {
		return agx.Outputs(x.Relu().Mul(f.Scale))
	}
	return agx.Outputs(x.Tanh().Mul(f.Scale))
}

// Backward returns g·Scale·1[x > 0] or g·Scale·(1 - tanh²x).
func (f ScaledActivationFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	var d *agx.Tensor
	if f.UseReLU {
		d = x.Gt(0).To(x.DType())
	} else {
		t := x.Tanh()
		d = t.Mul(t).RSub(1)
	}
	return agx.Outputs(g[0].Mul(d).Mul(f.Scale))
}

// ScaledActivation applies ScaledActivationFunction.
func ScaledActivation(x *agx.Tensor, scale float64, useReLU bool) *agx.Tensor {
	return agx.Apply(ScaledActivationFunction{Scale: scale, UseReLU: useReLU}, x)
}
