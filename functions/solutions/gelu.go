package solutions

import (
	"math"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/gradpromise"
)

// example C24 (exercise: GELU)

// GELUFunction is the Gaussian error linear unit with a hand-written backward.
// The exact form (Tanh false) is
//
//	y = x·Φ(x) = x·½·(1 + erf(x/√2)),     ∂L/∂x = g·(Φ(x) + x·φ(x))
//
// with φ(x) = e^(-x²/2)/√(2π) the standard normal density. With Tanh set it is
// the tanh approximation (PyTorch's approximate="tanh"):
//
//	u = c·(x + k·x³),  c = √(2/π), k = 0.044715,  y = ½·x·(1 + tanh u)
//	∂L/∂x = g·(½·(1 + tanh u) + ½·x·(1 - tanh² u)·c·(1 + 3k·x²))
//
// Forward saves x; Backward recomputes Φ (or tanh u) with agx ops, so GELU is
// twice differentiable. It matches agx's built-in Tensor.GELU / GELUTanh.
// Float32 and Float64.
type GELUFunction struct{ Tanh bool }

const (
	geluC = 0.7978845608028654 // √(2/π)
	geluK = 0.044715
)

// Forward implements agx.Function.
func (f GELUFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	if f.Tanh {
		u := x.Mul(x).Mul(geluK).Add(1).Mul(x).Mul(geluC)
		return agx.Outputs(x.Mul(0.5).Mul(u.Tanh().Add(1)))
	}
	return agx.Outputs(x.Mul(x.Mul(1 / math.Sqrt2).Erf().Add(1).Mul(0.5)))
}

// KeepsNoGrads makes gradpromise's promise: Backward keeps none of the
// gradients it is given or returns, so the engine may recycle them.
func (GELUFunction) KeepsNoGrads(gradpromise.Token) {}

// Backward implements agx.Function.
func (f GELUFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.derivative(ctx.SavedTensors()[0])))
}

// Jvp is the forward-mode rule: GELU acts element by element, so the
// tangent is the input's tangent times the same derivative Backward
// multiplies the gradient by (a diagonal Jacobian is its own transpose).
func (f GELUFunction) Jvp(ctx *agx.Ctx, t ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(t[0].Mul(f.derivative(ctx.SavedTensors()[0])))
}

// derivative is GELU'(x): Φ(x) + x·φ(x), or the tanh form's derivative.
func (f GELUFunction) derivative(x *agx.Tensor) *agx.Tensor {
	x2 := x.Mul(x)
	if f.Tanh {
		t := x2.Mul(geluK).Add(1).Mul(x).Mul(geluC).Tanh()
		du := x2.Mul(3 * geluK).Add(1).Mul(geluC)
		return t.Add(1).Add(x.Mul(t.Mul(t).RSub(1)).Mul(du)).Mul(0.5)
	}
	cdf := x.Mul(1 / math.Sqrt2).Erf().Add(1).Mul(0.5)
	pdf := x2.Mul(-0.5).Exp().Mul(1 / math.Sqrt(2*math.Pi))
	return cdf.Add(x.Mul(pdf))
}

// GELU applies the exact GELUFunction: x·Φ(x).
func GELU(x *agx.Tensor) *agx.Tensor { return agx.Apply(GELUFunction{}, x) }

// GELUTanh applies GELUFunction with the tanh approximation.
func GELUTanh(x *agx.Tensor) *agx.Tensor { return agx.Apply(GELUFunction{Tanh: true}, x) }
