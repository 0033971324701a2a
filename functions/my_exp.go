package functions

import "github.com/goagx/agx/agx"

// MyExpFunction computes y = eˣ element-wise.
//
// Gradient: ∂y/∂x = eˣ; Backward returns g·eˣ, recomputed from the saved
// input with agx ops (so it is twice differentiable). Calling Backward on the
// output with a gradient of ones leaves eˣ in x.Grad().
//
// example E1
type MyExpFunction struct{}

// Forward returns eˣ and saves x.
func (MyExpFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Exp())
}

// Backward returns g·eˣ.
func (MyExpFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(x.Exp()))
}

// MyExp applies MyExpFunction.
func MyExp(x *agx.Tensor) *agx.Tensor { return agx.Apply(MyExpFunction{}, x) }
