package functions

import "github.com/goagx/agx/agx"

// example C15

// FusedAddReLUFunction computes relu(x + y) as one node instead of two:
//
//	z = max(x + y, 0),  ∂L/∂x = ∂L/∂y = g·[x + y > 0]
//
// Forward saves only the Bool mask [x + y > 0] (one byte per element, no
// float intermediate), and Backward computes the masked gradient once and
// returns it for both inputs. With broadcasting, agx sums each gradient back
// to its input's shape.
type FusedAddReLUFunction struct{}

// Forward implements agx.Function.
func (FusedAddReLUFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	z := in[0].Add(in[1])
	mask := z.Gt(0)
	ctx.SaveForBackward(mask)
	return agx.Outputs(z.Relu())
}

// Backward implements agx.Function.
func (FusedAddReLUFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	mask := ctx.SavedTensors()[0]
	grad := agx.Where(mask, g[0], 0.0)
	return agx.Outputs(grad, grad)
}

// FusedAddReLU applies FusedAddReLUFunction: relu(x + y).
func FusedAddReLU(x, y *agx.Tensor) *agx.Tensor { return agx.Apply(FusedAddReLUFunction{}, x, y) }
