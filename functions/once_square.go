package functions

import "github.com/goagx/agx/agx"

// example C10

// OnceSquareFunction is y = x² marked once-differentiable by embedding
// agx.Once (PyTorch's @once_differentiable). Its first backward, ∂L/∂x = g·2x,
// works as usual; differentiating that gradient again (a second Backward or
// Grad through a gradient taken with agx.CreateGraph) fails with an error
// wrapping agx.ErrOnceDifferentiable, instead of silently returning a wrong
// second derivative. Use it when a backward is computed by code agx cannot
// differentiate (a kernel, a library call).
type OnceSquareFunction struct{ agx.Once }

// Forward implements agx.Function.
func (OnceSquareFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

// Backward implements agx.Function.
func (OnceSquareFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(x).Mul(2))
}

// OnceSquare applies OnceSquareFunction: x², once-differentiable.
func OnceSquare(x *agx.Tensor) *agx.Tensor { return agx.Apply(OnceSquareFunction{}, x) }
