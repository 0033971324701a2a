package functions

import "github.com/goagx/agx/agx"

// example C9

// DoubleBackwardSquareFunction is y = x² whose backward, ∂L/∂x = g·2x, is
// written with agx ops on the saved input. Under agx.CreateGraph those ops
// record a graph, so the gradient can be differentiated again:
//
//	dy/dx = 2x,  d²y/dx² = 2
//
// At x = 3: dy/dx = 6 and d²y/dx² = 2.
type DoubleBackwardSquareFunction struct{}

// Forward implements agx.Function.
func (DoubleBackwardSquareFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

// Backward implements agx.Function.
func (DoubleBackwardSquareFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(x).Mul(2))
}

// DoubleBackwardSquare applies DoubleBackwardSquareFunction: x².
func DoubleBackwardSquare(x *agx.Tensor) *agx.Tensor {
	return agx.Apply(DoubleBackwardSquareFunction{}, x)
}
