package functions

import "github.com/goagx/agx/agx"

// example C14

// ProductNeedsGradFunction is the element-wise product z = x·y whose backward
// computes only the gradients that are needed (Ctx.NeedsInputGrad):
//
//	∂L/∂x = g·y  (only if x requires grad),  ∂L/∂y = g·x  (only if y does)
//
// and returns nil for the other. Forward saves x and y; with broadcasting, each
// gradient is summed back to its input's shape by agx. OnGrad, when set, is
// called with the input index each time a gradient is actually computed, to
// observe the saving.
type ProductNeedsGradFunction struct {
	OnGrad func(input int)
}

// Forward implements agx.Function.
func (ProductNeedsGradFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0], in[1])
	return agx.Outputs(in[0].Mul(in[1]))
}

// Backward implements agx.Function.
func (f ProductNeedsGradFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	grads := make([]*agx.Tensor, 2)
	for i := range grads {
		if !ctx.NeedsInputGrad(i) {
			continue
		}
		if f.OnGrad != nil {
			f.OnGrad(i)
		}
		grads[i] = g[0].Mul(s[1-i])
	}
	return grads
}

// ProductNeedsGrad applies ProductNeedsGradFunction: x·y.
func ProductNeedsGrad(x, y *agx.Tensor) *agx.Tensor {
	return agx.Apply(ProductNeedsGradFunction{}, x, y)
}
