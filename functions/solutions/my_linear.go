package solutions

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// example B2

// MyLinearFunction is a fully connected layer with a hand-written backward:
//
//	y = x·Wᵀ + b      x: [N, in], W: [out, in], b: [out] (or nil), y: [N, out]
//
// Backward, for an upstream gradient g of shape [N, out]:
//
//	∂L/∂x = g·W       [N, in]
//	∂L/∂W = gᵀ·x      [out, in]
//	∂L/∂b = Σₙ gₙ     [out] (summed over the batch)
//
// Each gradient is computed only when its input needs one
// (Ctx.NeedsInputGrad). Forward saves x and W (each is needed for the other's
// gradient); b is not needed. The backward is written with agx ops, so second
// derivatives work. Float32 and Float64; it panics with agx's shape errors when
// the inner dimensions differ.
type MyLinearFunction struct{}

// Forward implements agx.Function. The inputs are x, W and b (b may be nil).
func (MyLinearFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x, w := in[0], in[1]
	if x.Dim() != 2 || w.Dim() != 2 {
		tensor.PanicHint("MyLinear", tensor.ErrShape, "x is [N, in] and W is [out, in]",
			"expected 2-D x and W, got %v and %v", x.Shape(), w.Shape())
	}
	ctx.SaveForBackward(x, w)
	ctx.Set("inputs", len(in))
	y := x.MatMul(w.T())
	if len(in) > 2 && in[2] != nil {
		y = y.Add(in[2])
	}
	return agx.Outputs(y)
}

// Backward implements agx.Function.
func (MyLinearFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, w := s[0], s[1]
	grads := make([]*agx.Tensor, agx.CtxValue[int](ctx, "inputs"))
	if ctx.NeedsInputGrad(0) {
		grads[0] = g[0].MatMul(w)
	}
	if ctx.NeedsInputGrad(1) {
		grads[1] = g[0].T().MatMul(x)
	}
	if len(grads) > 2 && ctx.NeedsInputGrad(2) {
		grads[2] = g[0].Sum(0)
	}
	return grads
}

// MyLinear applies MyLinearFunction: x·Wᵀ + b (pass nil for no bias).
func MyLinear(x, w, b *agx.Tensor) *agx.Tensor {
	return agx.Apply(MyLinearFunction{}, x, w, b)
}
