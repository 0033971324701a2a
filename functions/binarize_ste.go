package functions

import "github.com/goagx/agx/agx"

// BinarizeSTEFunction maps x to 1 where x > 0 and to 0 elsewhere, in x's
// dtype.
//
// Gradient: straight-through: the step has derivative 0 almost everywhere,
// so Backward passes g unchanged, as if the forward pass were the identity.
// GradCheck reports a mismatch for it by design. Nothing is saved.
//
// example D6
type BinarizeSTEFunction struct{}

// Forward returns 1[x > 0].
func (BinarizeSTEFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	return agx.Outputs(x.Gt(0).To(x.DType()))
}

// Backward returns g unchanged.
func (BinarizeSTEFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0])
}

// BinarizeSTE applies BinarizeSTEFunction.
func BinarizeSTE(x *agx.Tensor) *agx.Tensor { return agx.Apply(BinarizeSTEFunction{}, x) }
