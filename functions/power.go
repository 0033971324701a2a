package functions

import "github.com/goagx/agx/agx"

// PowerFunction computes y = xⁿ element-wise for the integer N (a field, not
// a tensor input, so it has no gradient; the source returns None for it).
//
// Gradient: ∂y/∂x = n·xⁿ⁻¹; Backward returns g·n·xⁿ⁻¹ (zeros for n = 0).
// It saves x. Negative n are allowed where x ≠ 0.
//
// example D3
type PowerFunction struct{ N int }

// Forward returns xⁿ and saves x.
func (p PowerFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(x.Pow(float64(p.N)))
}

// Backward returns g·n·xⁿ⁻¹.
func (p PowerFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	if p.N == 0 {
		return agx.Outputs(g[0].Mul(0))
	}
	return agx.Outputs(g[0].Mul(x.Pow(float64(p.N - 1)).Mul(float64(p.N))))
}

// Power applies PowerFunction: xⁿ.
func Power(x *agx.Tensor, n int) *agx.Tensor { return agx.Apply(PowerFunction{N: n}, x) }
