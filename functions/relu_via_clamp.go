package functions

import "github.com/goagx/agx/agx"

// ReLUViaClampFunction computes y = max(x, 0) by clamping x from below at 0.
//
// Gradient: 1 where x > 0 and 0 elsewhere (0 at x = 0, as PyTorch's relu),
// so Backward returns g·1[x > 0]. It saves x.
//
// example D1
type ReLUViaClampFunction struct{}

// Forward returns clamp(x, min=0) and saves x.
func (ReLUViaClampFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(x.ClampMin(0))
}

// Backward returns g where x > 0, else 0.
func (ReLUViaClampFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(x.Gt(0).To(g[0].DType())))
}

// ReLUViaClamp applies ReLUViaClampFunction. Like the source's alias
// (my_relu = MyFunction.apply), a function value works as well:
//
//	myReLU := functions.ReLUViaClamp
func ReLUViaClamp(x *agx.Tensor) *agx.Tensor { return agx.Apply(ReLUViaClampFunction{}, x) }
