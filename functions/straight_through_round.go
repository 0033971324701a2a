package functions

import "github.com/goagx/agx/agx"

// StraightThroughRoundFunction rounds x to the nearest integer (halves to
// even, as PyTorch's round does) and passes the gradient through unchanged.
//
// Gradient: the true derivative of rounding is 0 almost everywhere, which
// would stop learning; the straight-through estimator treats the forward pass
// as the identity, so Backward returns g. GradCheck therefore reports a
// mismatch for it by design.
//
// example A4
type StraightThroughRoundFunction struct{}

// Forward returns round(x).
func (StraightThroughRoundFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Round())
}

// Backward returns g unchanged.
func (StraightThroughRoundFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0])
}

// StraightThroughRound applies StraightThroughRoundFunction.
func StraightThroughRound(x *agx.Tensor) *agx.Tensor {
	return agx.Apply(StraightThroughRoundFunction{}, x)
}
