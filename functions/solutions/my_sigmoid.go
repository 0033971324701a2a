package solutions

import "github.com/goagx/agx/agx"

// MySigmoidFunction computes y = σ(x) = 1/(1 + e^-x).
//
// Gradient: σ'(x) = σ(x)(1 - σ(x)), which needs only the output, so Forward
// saves y (not x) and Backward returns g·y·(1 - y). A saved output comes back
// with its own graph under agx.CreateGraph, so second derivatives work.
// The forward uses agx's stable sigmoid (no overflow of e^-x for very
// negative x).
//
// examples D5 and B1
type MySigmoidFunction struct{}

// Forward returns σ(x) and saves it.
func (MySigmoidFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	y := in[0].Sigmoid()
	ctx.SaveForBackward(y)
	return agx.Outputs(y)
}

// Backward returns g·y·(1 - y).
func (MySigmoidFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	y := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(y.Mul(y.RSub(1))))
}

// MySigmoid applies MySigmoidFunction.
func MySigmoid(x *agx.Tensor) *agx.Tensor { return agx.Apply(MySigmoidFunction{}, x) }
