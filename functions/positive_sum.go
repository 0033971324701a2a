package functions

import "github.com/goagx/agx/agx"

// PositiveSumFunction computes the scalar y = Σᵢ max(xᵢ, 0): the sum of the
// positive entries of x.
//
// Gradient: ∂y/∂xᵢ = 1[xᵢ > 0]. Backward receives a scalar g and must return a
// gradient of x's shape, g·1[x > 0]: g is broadcast to x's shape explicitly.
// It saves x.
//
// This is the corrected form of the source's example, whose Forward zeroes
// the negative entries of a copy under a no-grad scope (agx needs none: inside
// Forward nothing records) and whose Backward returns the scalar g as the
// gradient of a vector input. PyTorch rejects that ("invalid gradient at
// index 0 - got [] but expected shape compatible with [5]") and so does agx,
// with the same words; a scalar cannot be summed down to a vector's shape.
// Besides the shape, all-ones would be the wrong gradient where x < 0.
//
// example E3
type PositiveSumFunction struct{}

// Forward returns Σ max(x, 0) and saves x.
func (PositiveSumFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(x.Relu().Sum())
}

// Backward returns g·1[x > 0] in x's shape.
func (PositiveSumFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Expand(x.Shape()...).Mul(x.Gt(0).To(x.DType())))
}

// PositiveSum applies PositiveSumFunction.
func PositiveSum(x *agx.Tensor) *agx.Tensor { return agx.Apply(PositiveSumFunction{}, x) }
