package functions

import "github.com/goagx/agx/agx"

// QuadraticFunction computes y = a·x² + b·x + c with four tensor inputs
// (x, a, b, c), broadcast together.
//
// Gradients: ∂y/∂x = 2a·x + b, ∂y/∂a = x², ∂y/∂b = x, ∂y/∂c = 1; each is
// multiplied by g and, for broadcast inputs, summed down to the input's
// shape by the engine. It saves x, a and b.
//
// example D2
type QuadraticFunction struct{}

// Forward returns a·x² + b·x + c.
func (QuadraticFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x, a, b, c := in[0], in[1], in[2], in[3]
	ctx.SaveForBackward(x, a, b)
	return agx.Outputs(a.Mul(x.Mul(x)).Add(b.Mul(x)).Add(c))
}

// Backward returns (g·(2ax+b), g·x², g·x, g).
func (QuadraticFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, a, b := s[0], s[1], s[2]
	gy := g[0]
	var gx, ga, gb, gc *agx.Tensor
	if ctx.NeedsInputGrad(0) {
		gx = gy.Mul(a.Mul(x).Mul(2).Add(b))
	}
	if ctx.NeedsInputGrad(1) {
		ga = gy.Mul(x.Mul(x))
	}
	if ctx.NeedsInputGrad(2) {
		gb = gy.Mul(x)
	}
	if ctx.NeedsInputGrad(3) {
		gc = gy
	}
	return agx.Outputs(gx, ga, gb, gc)
}

// Quadratic applies QuadraticFunction: a·x² + b·x + c.
func Quadratic(x, a, b, c *agx.Tensor) *agx.Tensor {
	return agx.Apply(QuadraticFunction{}, x, a, b, c)
}
