package functions

import "github.com/goagx/agx/agx"

// example C7, C8

// SignSTEFunction is sign(x) with a straight-through estimator: the forward
// is the hard sign (-1, 0 or 1) and the backward pretends it was the identity,
//
//	∂L/∂x = g
//
// The true derivative of sign is 0 almost everywhere, which would stop
// learning; the STE passes the gradient on unchanged (sign(0.7) = 1, and
// x.grad = 1 where the true derivative is 0). Because it is deliberately not the
// derivative, GradCheck reports a mismatch for it. agx.SignSTE builds the same
// thing from built-ins.
type SignSTEFunction struct{}

// Forward implements agx.Function.
func (SignSTEFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Sign())
}

// Backward implements agx.Function.
func (SignSTEFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0])
}

// SignSTE applies SignSTEFunction.
func SignSTE(x *agx.Tensor) *agx.Tensor { return agx.Apply(SignSTEFunction{}, x) }
