package solutions

import (
	"github.com/goagx/agx/agx"

	"github.com/goagx/agx/internal/gradpromise"
)

// example C24 (exercise: Swish/SiLU)

// SiLUFunction is Swish/SiLU, y = x·σ(x), saving its output. The derivative
// σ + x·σ·(1-σ) can be rewritten with the output y = x·σ as
//
//	∂L/∂x = g·(y + σ(x)·(1 - y))
//
// which is the formula used: Backward reuses the saved y and recomputes only
// σ(x) from the saved input (σ cannot be recovered from y alone: y/x fails at
// x = 0). Forward saves x and y; Backward uses agx ops, so SiLU is twice
// differentiable (the saved output carries this node's own graph). It matches
// agx's built-in Tensor.SiLU. Float32 and Float64.
type SiLUFunction struct{}

// Forward implements agx.Function.
func (SiLUFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	y := x.Mul(x.Sigmoid())
	ctx.SaveForBackward(x, y)
	return agx.Outputs(y)
}

// KeepsNoGrads makes gradpromise's promise: Backward keeps none of the
// gradients it is given or returns, so the engine may recycle them.
func (SiLUFunction) KeepsNoGrads(gradpromise.Token) {}

// Backward implements agx.Function.
func (SiLUFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, y := s[0], s[1]
	return agx.Outputs(g[0].Mul(y.Add(x.Sigmoid().Mul(y.RSub(1)))))
}

// Jvp is the forward-mode rule: the same element-wise derivative
// y + σ(x)·(1 - y), applied to the input's tangent. It reads the saved x and
// y, as Backward does (agx's Jvp sees what SaveForBackward saved).
func (SiLUFunction) Jvp(ctx *agx.Ctx, t ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, y := s[0], s[1]
	return agx.Outputs(t[0].Mul(y.Add(x.Sigmoid().Mul(y.RSub(1)))))
}

// SiLU applies SiLUFunction: x·σ(x).
func SiLU(x *agx.Tensor) *agx.Tensor { return agx.Apply(SiLUFunction{}, x) }
