package functions

import "github.com/goagx/agx/agx"

// example C5

// SavePatternsFunction shows what goes where on ctx: the tensors x and y are
// inputs, Alpha and UseReLU are plain fields (PyTorch's ctx.alpha and
// ctx.use_relu). It computes
//
//	z = alpha·x + y,  then relu(z) when UseReLU
//
// with gradients ∂L/∂x = g·alpha·m and ∂L/∂y = g·m, where m = 1 without ReLU and
// m = [z > 0] with it, each computed only when Ctx.NeedsInputGrad says so. The
// textbook's backward ignores the ReLU (it returns g·alpha and g even when the
// ReLU clipped z); this version applies the mask, which is what GradCheck
// agrees with. Forward saves its output (its sign is the mask) only when UseReLU.
type SavePatternsFunction struct {
	Alpha   float64
	UseReLU bool
}

// Forward implements agx.Function. Inputs: x, y (broadcastable).
func (f SavePatternsFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	z := in[0].Mul(f.Alpha).Add(in[1])
	if f.UseReLU {
		z = z.Relu()
		ctx.SaveForBackward(z)
	}
	return agx.Outputs(z)
}

// Backward implements agx.Function.
func (f SavePatternsFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	gz := g[0]
	if f.UseReLU {
		z := ctx.SavedTensors()[0]
		gz = agx.Where(z.Gt(0), gz, 0.0)
	}
	var gx, gy *agx.Tensor
	if ctx.NeedsInputGrad(0) {
		gx = gz.Mul(f.Alpha)
	}
	if ctx.NeedsInputGrad(1) {
		gy = gz
	}
	return agx.Outputs(gx, gy)
}

// SavePatterns applies SavePatternsFunction: alpha·x + y, optionally through ReLU.
func SavePatterns(x, y *agx.Tensor, alpha float64, useReLU bool) *agx.Tensor {
	return agx.Apply(SavePatternsFunction{Alpha: alpha, UseReLU: useReLU}, x, y)
}
