package functions

import "github.com/goagx/agx/agx"

// example C6

// WeightedSumFunction computes y = w1·x1 + w2·x2 with plain float weights
// (fields, not tensors: they take no part in the graph). Gradients:
//
//	∂L/∂x1 = g·w1,  ∂L/∂x2 = g·w2
//
// Nothing needs saving. x1 = [1, 2], x2 = [3, 4], w1 = 0.3, w2 = 0.7 and
// L = Σy give x1.grad = [0.3, 0.3] and x2.grad = [0.7, 0.7]. x1 and x2
// broadcast; each gradient is summed back to its input's shape by agx.
type WeightedSumFunction struct{ W1, W2 float64 }

// Forward implements agx.Function.
func (f WeightedSumFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Mul(f.W1).Add(in[1].Mul(f.W2)))
}

// Backward implements agx.Function.
func (f WeightedSumFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	var g1, g2 *agx.Tensor
	if ctx.NeedsInputGrad(0) {
		g1 = g[0].Mul(f.W1)
	}
	if ctx.NeedsInputGrad(1) {
		g2 = g[0].Mul(f.W2)
	}
	return agx.Outputs(g1, g2)
}

// WeightedSum applies WeightedSumFunction: w1·x1 + w2·x2.
func WeightedSum(x1, x2 *agx.Tensor, w1, w2 float64) *agx.Tensor {
	return agx.Apply(WeightedSumFunction{W1: w1, W2: w2}, x1, x2)
}
