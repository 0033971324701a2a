package functions

import "github.com/goagx/agx/agx"

// example C1

// TemplateSquareFunction is the textbook's template Function: y = x², with the
// gradient ∂L/∂x = g·2x. Besides saving x with SaveForBackward it keeps a
// non-tensor value on ctx (Tag, 42 by default) with Ctx.Set and reads it back in
// Backward with agx.CtxValue: scalars, shapes and flags go on ctx, tensors go
// through SaveForBackward (Ctx.Set refuses them). The backward is written with
// agx ops, so it is twice differentiable.
//
// x = [3] gives y = [9] and x.grad = [6].
type TemplateSquareFunction struct {
	// Tag is the non-tensor value carried from Forward to Backward (0 means 42).
	Tag int
}

// Forward implements agx.Function.
func (f TemplateSquareFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	tag := f.Tag
	if tag == 0 {
		tag = 42
	}
	ctx.SaveForBackward(in[0])
	ctx.Set("tag", tag)
	return agx.Outputs(in[0].Mul(in[0]))
}

// Backward implements agx.Function. It panics if the ctx value is missing,
// which would mean Forward and Backward disagree.
func (TemplateSquareFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	_ = agx.CtxValue[int](ctx, "tag")
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(x).Mul(2))
}

// TemplateSquare applies TemplateSquareFunction: x².
func TemplateSquare(x *agx.Tensor) *agx.Tensor { return agx.Apply(TemplateSquareFunction{}, x) }
