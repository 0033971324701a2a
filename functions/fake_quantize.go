package functions

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// FakeQuantizeFunction simulates affine integer quantisation in floating
// point, as quantisation-aware training does:
//
//	v = x/Scale + ZeroPoint
//	q = clamp(round(v), QMin, QMax)
//	y = (q - ZeroPoint)·Scale
//
// Gradient: a straight-through estimator clipped to the representable range:
// Backward returns g where QMin ≤ v ≤ QMax and 0 where the value was clamped.
// (The source tests x/Scale against the range; with the source's zero point
// of 0 that is the same test, and including ZeroPoint keeps it right for
// other zero points.) Scale must be positive and QMin ≤ QMax.
//
// example A4
type FakeQuantizeFunction struct {
	Scale      float64
	ZeroPoint  float64
	QMin, QMax float64
}

func (f FakeQuantizeFunction) check() {
	if !(f.Scale > 0) {
		tensor.Panicf("FakeQuantize", tensor.ErrArg, "scale must be positive, got %g", f.Scale)
	}
	if f.QMin > f.QMax {
		tensor.Panicf("FakeQuantize", tensor.ErrArg, "qmin %g is greater than qmax %g", f.QMin, f.QMax)
	}
}

func (f FakeQuantizeFunction) levels(x *agx.Tensor) *agx.Tensor {
	return x.Div(f.Scale).Add(f.ZeroPoint)
}

// Forward returns the dequantised value of x and saves x.
func (f FakeQuantizeFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	f.check()
	x := in[0]
	ctx.SaveForBackward(x)
	q := f.levels(x).Round().Clamp(f.QMin, f.QMax)
	return agx.Outputs(q.Sub(f.ZeroPoint).Mul(f.Scale))
}

// Backward returns g where x was inside the quantisation range, else 0.
func (f FakeQuantizeFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	v := f.levels(ctx.SavedTensors()[0].Detach())
	in := v.Ge(f.QMin).LogicalAnd(v.Le(f.QMax))
	return agx.Outputs(agx.Where(in, g[0], 0.0))
}

// FakeQuantize applies FakeQuantizeFunction with the given scale, zero point
// and integer range (for int8: -128, 127).
func FakeQuantize(x *agx.Tensor, scale, zeroPoint, qmin, qmax float64) *agx.Tensor {
	return agx.Apply(FakeQuantizeFunction{Scale: scale, ZeroPoint: zeroPoint, QMin: qmin, QMax: qmax}, x)
}
