package functions

import "github.com/goagx/agx/agx"

// example C11

// ClippedReLUFunction is min(max(x, 0), Clip) (ReLU6 for Clip = 6):
//
//	y = clamp(x, 0, clip),  ∂L/∂x = g·[0 ≤ x ≤ clip]
//
// The boundaries count as inside, as PyTorch's clamp does. Forward saves x.
// x = [-1, 2, 5, 8] with Clip 6 gives y = [0, 2, 5, 6] and x.grad = [0, 1, 1, 0].
// A Clip of 0 means 6.
type ClippedReLUFunction struct{ Clip float64 }

func (f ClippedReLUFunction) clip() float64 {
	if f.Clip == 0 {
		return 6
	}
	return f.Clip
}

// Forward implements agx.Function.
func (f ClippedReLUFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Clamp(0, f.clip()))
}

// Backward implements agx.Function.
func (f ClippedReLUFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	inside := x.Ge(0).LogicalAnd(x.Le(f.clip()))
	return agx.Outputs(agx.Where(inside, g[0], 0.0))
}

// ClippedReLU applies ClippedReLUFunction: clamp(x, 0, clip).
func ClippedReLU(x *agx.Tensor, clip float64) *agx.Tensor {
	return agx.Apply(ClippedReLUFunction{Clip: clip}, x)
}
