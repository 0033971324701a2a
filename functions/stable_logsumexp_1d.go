package functions

import "github.com/goagx/agx/agx"

// StableLogSumExp1DFunction computes the scalar y = log Σᵢ exp(xᵢ) over all
// elements of x, shifted by c = max x for stability: y = c + log Σᵢ exp(xᵢ - c).
//
// Gradient: ∂y/∂xᵢ = exp(xᵢ - c) / Σⱼ exp(xⱼ - c) = softmax(x)ᵢ; Backward
// returns g·softmax(x).
//
// The source keeps the sum of exponentials as an attribute of ctx. agx's
// Ctx.Set refuses tensors ("save tensors with SaveForBackward"), so both the
// shifted exponentials and their sum go through SaveForBackward, which also
// checks them for in-place changes and frees them after backward. The saved
// values are constants to the graph: the Function is once-differentiable.
//
// example D7
type StableLogSumExp1DFunction struct{ agx.Once }

// Forward returns the max-shifted log-sum-exp of all elements.
func (StableLogSumExp1DFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	c := x.Max()
	e := x.Sub(c).Exp()
	s := e.Sum()
	ctx.SaveForBackward(e, s)
	return agx.Outputs(c.Add(s.Log()))
}

// Backward returns g·exp(x-c)/Σ exp(x-c).
func (StableLogSumExp1DFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	saved := ctx.SavedTensors()
	e, s := saved[0], saved[1]
	return agx.Outputs(g[0].Mul(e.Div(s)))
}

// StableLogSumExp1D applies StableLogSumExp1DFunction: a scalar log-sum-exp
// over every element of x.
func StableLogSumExp1D(x *agx.Tensor) *agx.Tensor {
	return agx.Apply(StableLogSumExp1DFunction{}, x)
}
