package functions

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// example C24 (exercise: batch normalisation without parameters)

// BatchNormFunction normalises x of shape [N, ...] over the batch dim 0 with
// the batch's own statistics (training mode, no affine parameters, no running
// statistics), as torch.nn.functional.batch_norm(training=True) does:
//
//	μ = mean₀(x),  σ² = mean₀((x - μ)²)   (biased variance)
//	rstd = 1/√(σ² + ε),  x̂ = (x - μ)·rstd
//
// Backward, per feature, with sums over the batch:
//
//	∂L/∂x = (1/N)·rstd·(N·g - Σg - x̂·Σ(g·x̂))
//
// Forward saves x, the output x̂ and rstd. The backward is written with agx
// ops; when it is itself being differentiated (agx.CreateGraph) it recomputes
// rstd from x, so that the second derivative follows x through rstd as well as
// through x̂, and GradGradCheck passes. Eps 0 means 1e-5 (PyTorch's default);
// a negative Eps panics. Float32 and Float64; x needs at least one dim.
type BatchNormFunction struct{ Eps float64 }

// Name implements agx.Named.
func (BatchNormFunction) Name() string { return "BatchNorm" }

func (f BatchNormFunction) eps() float64 {
	if f.Eps == 0 {
		return 1e-5
	}
	return f.Eps
}

// Forward implements agx.Function.
func (f BatchNormFunction) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	if f.Eps < 0 {
		tensor.Panicf("BatchNorm", tensor.ErrArg, "eps must be non-negative, got %g", f.Eps)
	}
	if x.Dim() == 0 {
		tensor.PanicHint("BatchNorm", tensor.ErrShape, "pass a tensor of shape [N, ...]", "expected at least 1 dim, got a scalar")
	}
	xd := x.Data()
	mu := xd.MeanKeep(0)
	xc := xd.Sub(mu)
	rstd := xc.Mul(xc).MeanKeep(0).AddInPlace(f.eps())
	rstd = rstd.Rsqrt()
	y := agx.New(xc.MulInPlace(rstd))
	ctx.SaveForBackward(x, y, agx.New(rstd))
	return agx.Outputs(y)
}

// Backward implements agx.Function.
func (f BatchNormFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, y, rstd := s[0], s[1], s[2]
	gy := g[0]
	n := float64(x.Size(0))
	if gy.RequiresGrad() || x.RequiresGrad() || y.RequiresGrad() {
		rstd = x.VarKeep(false, 0).Add(f.eps()).Rsqrt()
		dx := gy.Mul(n).Sub(gy.SumKeep(0)).Sub(y.Mul(gy.Mul(y).SumKeep(0)))
		return agx.Outputs(dx.Mul(rstd.Div(n)))
	}
	// First-order pass: the same formula on plain tensors, in place where the
	// intermediates are private.
	gd, yd := gy.Data(), y.Data()
	sg := gd.SumKeep(0)
	sgy := gd.Mul(yd).SumKeep(0)
	dx := yd.Mul(sgy)
	dx = tensor.BinaryTo(dx, tensor.OpSub, gd.Mul(n).SubInPlace(sg), dx)
	return agx.Outputs(agx.New(dx.MulInPlace(rstd.Data().Div(n))))
}

// BatchNorm applies BatchNormFunction with eps (0 means 1e-5).
func BatchNorm(x *agx.Tensor, eps float64) *agx.Tensor {
	return agx.Apply(BatchNormFunction{Eps: eps}, x)
}
