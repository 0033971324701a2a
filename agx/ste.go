package agx

import "math"

// Straight-through estimators: a forward that is flat almost everywhere
// (rounding, sign, thresholding, quantisation) has a zero gradient, which stops
// learning. A straight-through estimator (STE) keeps the hard forward but
// passes the gradient through as if the op were the identity (or a clipped
// identity). These helpers are built from StraightThrough, so their double
// backward works too.

// StraightThrough returns a tensor whose value is hard and whose gradient is
// soft's: hard.Detach() + soft - soft.Detach(). It is the "hard forward, soft
// backward" combinator (used by hard Gumbel-softmax).
func StraightThrough(hard, soft *Tensor) *Tensor {
	need("StraightThrough", "hard", 1, hard)
	need("StraightThrough", "soft", 2, soft)
	return soft.Sub(soft.Detach()).Add(hard.Detach())
}

// RoundSTE rounds (half to even) in the forward pass; the gradient passes
// through unchanged.
func RoundSTE(x *Tensor) *Tensor {
	need("RoundSTE", "input", 1, x)
	return StraightThrough(x.Detach().Round(), x)
}

// SignSTE returns sign(x); the gradient passes through unchanged.
func SignSTE(x *Tensor) *Tensor {
	need("SignSTE", "input", 1, x)
	return StraightThrough(x.Detach().Sign(), x)
}

// SignClippedSTE returns sign(x); the gradient passes through only where
// |x| ≤ 1 (the clipped STE of binarised networks), and is 0 elsewhere.
func SignClippedSTE(x *Tensor) *Tensor {
	need("SignClippedSTE", "input", 1, x)
	return StraightThrough(x.Detach().Sign(), x.Clamp(-1, 1))
}

// BinarizeSTE returns 1 where x > 0 and 0 elsewhere; the gradient passes
// through unchanged.
func BinarizeSTE(x *Tensor) *Tensor {
	need("BinarizeSTE", "input", 1, x)
	return StraightThrough(x.Detach().Gt(0).To(x.DType()), x)
}

// QuantizeSTE fake-quantises x: q = clamp(round(x/scale + zeroPoint), qmin, qmax),
// returned dequantised as (q - zeroPoint)·scale. The gradient passes through
// where x/scale + zeroPoint lies within [qmin, qmax] and is 0 where it was
// clamped.
func QuantizeSTE(x *Tensor, scale, zeroPoint, qmin, qmax float64) *Tensor {
	need("QuantizeSTE", "input", 1, x)
	v := x.Detach().Div(scale).Add(zeroPoint)
	q := v.Round().Clamp(qmin, qmax).Sub(zeroPoint).Mul(scale)
	inRange := v.Ge(qmin).LogicalAnd(v.Le(qmax))
	soft := Where(inRange, x, x.Detach())
	return StraightThrough(q, soft)
}

// ClipGradientSTE is the identity in the forward pass and clamps the gradient
// to [-limit, limit] in the backward pass.
func ClipGradientSTE(x *Tensor, limit float64) *Tensor {
	need("ClipGradientSTE", "input", 1, x)
	return Apply(clipGrad{limit: math.Abs(limit)}, x)
}

type clipGrad struct{ limit float64 }

func (clipGrad) Name() string { return "ClipGradient" }

func (c clipGrad) Forward(ctx *Ctx, in ...*Tensor) []*Tensor { return Outputs(in[0].Clone()) }

func (c clipGrad) Backward(ctx *Ctx, g ...*Tensor) []*Tensor {
	return Outputs(g[0].Clamp(-c.limit, c.limit))
}

// Jvp implements Jvper: the forward value is the identity, and so is its
// tangent (the clipping acts on gradients only).
func (c clipGrad) Jvp(ctx *Ctx, t ...*Tensor) []*Tensor { return Outputs(t[0]) }
