package functions

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// DifferentiableClampFunction clamps x to [Min, Max].
//
// Gradient: 1 where Min ≤ x ≤ Max (bounds included, as PyTorch's clamp),
// else 0; Backward returns g·mask. The mask is built from the saved x and the
// product is an agx op, so Backward is itself differentiable: with
// agx.CreateGraph its result depends on g (through the mask) and double
// backward works. Min must not exceed Max.
//
// example D10
type DifferentiableClampFunction struct{ Min, Max float64 }

// Forward returns clamp(x, Min, Max) and saves x.
func (f DifferentiableClampFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	if f.Min > f.Max {
		tensor.Panicf("DifferentiableClamp", tensor.ErrArg, "min %g is greater than max %g", f.Min, f.Max)
	}
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(x.Clamp(f.Min, f.Max))
}

// Backward returns g·1[Min ≤ x ≤ Max].
func (f DifferentiableClampFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	mask := x.Ge(f.Min).LogicalAnd(x.Le(f.Max)).To(x.DType())
	return agx.Outputs(g[0].Mul(mask))
}

// DifferentiableClamp applies DifferentiableClampFunction.
func DifferentiableClamp(x *agx.Tensor, min, max float64) *agx.Tensor {
	return agx.Apply(DifferentiableClampFunction{Min: min, Max: max}, x)
}
