package functions

import (
	"slices"

	"github.com/goagx/agx/agx"
)

// ScaledSigmoidFunction computes y = scale·σ(x) with σ(x) = 1/(1+e^-x) and a
// learnable scale given as a second tensor input (a scalar, or any shape that
// broadcasts against x).
//
// Gradients: ∂y/∂x = scale·σ(x)(1-σ(x)) and ∂y/∂scale = σ(x). For a scalar
// (one-element) scale the scale gradient is Σ g·σ(x) over all elements, in the
// scale's shape; for a broadcast scale the engine sums it down to the scale's
// shape.
//
// It saves x, scale and the σ(x) its Forward computed, and keeps x's shape
// on ctx as a non-tensor value, which Backward uses to sum the x gradient
// back to x's shape when scale broadcast x to a larger one. A first-order
// backward reads the saved σ(x), as the seed does. The σ(x) computed in
// Forward is a constant for autograd, though, so a backward that is itself
// recorded (CreateGraph: GradGradCheck, example A6) recomputes σ(x) from x
// with agx ops, and second derivatives stay right. Backward tells the two
// apart by the saved x: SavedTensors returns it detached unless the pass
// records, so it requires grad only then.
//
// example A2
type ScaledSigmoidFunction struct{}

// Forward returns scale·σ(x).
func (ScaledSigmoidFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x, scale := in[0], in[1]
	sig := x.Sigmoid()
	ctx.SaveForBackward(x, scale, sig)
	ctx.Set("inputShape", x.Shape())
	return agx.Outputs(scale.Mul(sig))
}

// Backward returns (g·scale·σ(1-σ), Σ g·σ). Both start from g·σ, computed
// once: five passes over x's size (four element-wise, one sum), one fewer
// than the seed's backward.
func (ScaledSigmoidFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, scale, sig := s[0], s[1], s[2]
	shape := agx.CtxValue[[]int](ctx, "inputShape")
	if x.RequiresGrad() {
		// This backward is recorded: σ(x) must depend on x.
		sig = x.Sigmoid()
	}
	gsig := g[0].Mul(sig)
	var gx, gs *agx.Tensor
	if ctx.NeedsInputGrad(0) {
		gx = gsig.Mul(sig.RSub(1)).Mul(scale)
		if !slices.Equal(gx.Shape(), shape) {
			// scale broadcast x to a larger shape: sum the gradient back
			// over the dims that broadcasting added or stretched.
			lead := gx.Dim() - len(shape)
			for d := 0; d < lead; d++ {
				gx = gx.Sum(0)
			}
			for d, n := range shape {
				if n == 1 && gx.Size(d) != 1 {
					gx = gx.SumKeep(d)
				}
			}
		}
	}
	if ctx.NeedsInputGrad(1) {
		gs = gsig
		if scale.Numel() == 1 {
			gs = gs.Sum().Reshape(scale.Shape()...)
		}
	}
	return agx.Outputs(gx, gs)
}

// ScaledSigmoid applies ScaledSigmoidFunction: scale·σ(x).
func ScaledSigmoid(x, scale *agx.Tensor) *agx.Tensor {
	return agx.Apply(ScaledSigmoidFunction{}, x, scale)
}
