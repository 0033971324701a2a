package functions

import (
	"math"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// example C13

// GumbelSoftmaxFunction draws a differentiable sample from the categorical
// distribution with the given logits (over the last dim), by the Gumbel-softmax
// relaxation:
//
//	u ~ U(0, 1),  n = -log(-log(u + 1e-10) + 1e-10)      (Gumbel(0, 1) noise)
//	y_soft = softmax((logits + n) / τ)
//
// With Hard set, the forward value is the one-hot vector of argmax y_soft,
// written as y_hard - y_soft + y_soft (the value equals the one-hot up to one
// rounding, as in PyTorch's F.gumbel_softmax), while the gradient is that of
// y_soft (straight-through):
//
//	∂L/∂logits = y_soft ⊙ (g - Σ(g ⊙ y_soft)) / τ
//
// The textbook's version returns g unchanged, which ignores the softmax; this
// one goes through its Jacobian. The noise is drawn from Generator (the
// default generator when nil), so a seeded generator makes samples
// reproducible. Forward saves the logits and the noise; Backward recomputes
// y_soft with agx ops, so the soft variant is twice differentiable. Temperature
// must be positive (Forward panics otherwise).
type GumbelSoftmaxFunction struct {
	Temperature float64
	Hard        bool
	Generator   *tensor.Generator
}

// Forward implements agx.Function.
func (f GumbelSoftmaxFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	if !(f.Temperature > 0) || math.IsInf(f.Temperature, 1) {
		tensor.Panicf("GumbelSoftmax", tensor.ErrArg, "temperature must be positive and finite, got %g", f.Temperature)
	}
	logits := in[0]
	gen := f.Generator
	if gen == nil {
		gen = tensor.DefaultGenerator()
	}
	u := gen.Rand(logits.DType(), logits.Shape()...)
	noise := agx.New(u.Add(1e-10).Log().Neg().Add(1e-10).Log().Neg())
	ctx.SaveForBackward(logits, noise)
	ySoft := logits.Add(noise).Div(f.Temperature).Softmax(-1)
	if !f.Hard {
		return agx.Outputs(ySoft)
	}
	idx := ySoft.ArgMax(-1, true)
	yHard := agx.ZerosLike(ySoft).Scatter(-1, idx, agx.Ones(ySoft.DType(), idx.Shape()...))
	return agx.Outputs(yHard.Sub(ySoft).Add(ySoft))
}

// Backward implements agx.Function.
func (f GumbelSoftmaxFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	ySoft := s[0].Add(s[1]).Div(f.Temperature).Softmax(-1)
	gy := g[0].Mul(ySoft)
	return agx.Outputs(gy.Sub(ySoft.Mul(gy.SumKeep(-1))).Div(f.Temperature))
}

// GumbelSoftmax applies GumbelSoftmaxFunction to logits with temperature τ;
// hard selects the straight-through one-hot forward; gen may be nil.
func GumbelSoftmax(logits *agx.Tensor, temperature float64, hard bool, gen *tensor.Generator) *agx.Tensor {
	return agx.Apply(GumbelSoftmaxFunction{Temperature: temperature, Hard: hard, Generator: gen}, logits)
}
