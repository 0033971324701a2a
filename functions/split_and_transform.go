package functions

import "github.com/goagx/agx/agx"

// SplitAndTransformFunction splits x into two outputs, its positive part
// pos = relu(x) and its negative part neg = relu(-x) (so x = pos - neg).
//
// Gradient: Backward receives one gradient per output, gPos and gNeg, and
// returns gPos·1[x > 0] - gNeg·1[x < 0] (0 at x = 0). It saves x.
//
// example D9
type SplitAndTransformFunction struct{}

// Forward returns (relu(x), relu(-x)).
func (SplitAndTransformFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(x.Relu(), x.Neg().Relu())
}

// Backward returns gPos·1[x > 0] - gNeg·1[x < 0].
func (SplitAndTransformFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	pos := x.Gt(0).To(x.DType())
	neg := x.Lt(0).To(x.DType())
	return agx.Outputs(g[0].Mul(pos).Sub(g[1].Mul(neg)))
}

// SplitAndTransform applies SplitAndTransformFunction and returns its two
// outputs.
func SplitAndTransform(x *agx.Tensor) (pos, neg *agx.Tensor) {
	out := agx.ApplyN(SplitAndTransformFunction{}, x)
	return out[0], out[1]
}
