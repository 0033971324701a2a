package solutions

import (
	"math"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/gradpromise"
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
// a negative Eps panics. Float32 and Float64; x needs at least one dim and a
// non-empty batch. A batch of one sample gives zeros (x - μ = 0) where PyTorch
// refuses it.
//
// On the CPU, for contiguous tensors, the first-order forward and backward run
// as fused loops (two passes over the data each, sums in float64) instead of a
// chain of element-wise ops.
//
// This is the course's teaching version (exercise C24), written as a custom
// Function. Models should use the built-in agx.BatchNorm: per channel of
// [N, C, *] inputs with optional weight and bias, as PyTorch's batch_norm, and
// two to three times faster at one thread (vectorised kernels).
type BatchNormFunction struct{ Eps float64 }

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
	if x.Size(0) == 0 {
		tensor.Panicf("BatchNorm", tensor.ErrShape, "empty batch: input of shape %v", x.Shape())
	}
	xd := x.Data()
	var y, rstd *tensor.Tensor
	switch {
	case bnFused(xd) && xd.DType() == tensor.Float32:
		y, rstd = bnForwardCPU[float32](xd, f.eps())
	case bnFused(xd) && xd.DType() == tensor.Float64:
		y, rstd = bnForwardCPU[float64](xd, f.eps())
	default:
		mu := xd.MeanKeep(0)
		xc := xd.Sub(mu)
		rstd = xc.Mul(xc).MeanKeep(0).AddInPlace(f.eps()).Rsqrt()
		y = xc.MulInPlace(rstd)
	}
	yt := agx.New(y)
	ctx.SaveForBackward(x, yt, agx.New(rstd))
	return agx.Outputs(yt)
}

// KeepsNoGrads makes gradpromise's promise: Backward keeps none of the
// gradients it is given or returns, so the engine may recycle them.
func (BatchNormFunction) KeepsNoGrads(gradpromise.Token) {}

// Backward implements agx.Function.
func (f BatchNormFunction) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, y, rstd := s[0], s[1], s[2]
	gy := g[0]
	n := float64(x.Size(0))
	if gy.RequiresGrad() || x.RequiresGrad() || y.RequiresGrad() || gy.IsDual() || x.IsDual() || y.IsDual() {
		// Differentiable (double backward), or computing tangents
		// (forward-over-reverse): agx ops rather than the fused kernel.
		rstd = x.VarKeep(false, 0).Add(f.eps()).Rsqrt()
		dx := gy.Mul(n).Sub(gy.SumKeep(0)).Sub(y.Mul(gy.Mul(y).SumKeep(0)))
		return agx.Outputs(dx.Mul(rstd.Div(n)))
	}
	// First-order pass: the same formula on plain tensors.
	gd, yd, rd := gy.Data(), y.Data(), rstd.Data()
	switch {
	case bnFused(gd, yd) && gd.DType() == tensor.Float32 && yd.DType() == tensor.Float32:
		return agx.Outputs(agx.New(bnBackwardCPU[float32](gd, yd, rd)))
	case bnFused(gd, yd) && gd.DType() == tensor.Float64 && yd.DType() == tensor.Float64:
		return agx.Outputs(agx.New(bnBackwardCPU[float64](gd, yd, rd)))
	}
	// dx = rstd·g - (rstd·Σg/N) - x̂·(rstd·Σ(g·x̂)/N): per-feature factors first.
	b := gd.SumKeep(0).MulInPlace(rd).DivInPlace(n)
	c := gd.Mul(yd).SumKeep(0).MulInPlace(rd).DivInPlace(n)
	dx := gd.Mul(rd).SubInPlace(b)
	return agx.Outputs(agx.New(dx.SubInPlace(yd.Mul(c))))
}

// bnFused reports whether the tensors are contiguous CPU tensors, which the
// fused loops below handle in two passes instead of a chain of ops.
// Jvp is the forward-mode rule. With y = (x - μ)·r and r = 1/√(var + eps),
// the tangent of the centred input is dx - mean(dx), the variance moves by
// 2·mean((x - μ)·(dx - mean(dx))), and together
// dy = r·((dx - mean(dx)) - y·mean(y·(dx - mean(dx)))), means over the batch.
// It is the transpose of Backward's formula: both project out the mean and
// the direction of y.
func (BatchNormFunction) Jvp(ctx *agx.Ctx, t ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	y, rstd := s[1], s[2]
	dxc := t[0].Sub(t[0].MeanKeep(0))
	return agx.Outputs(rstd.Mul(dxc.Sub(y.Mul(y.Mul(dxc).MeanKeep(0)))))
}

func bnFused(ts ...*tensor.Tensor) bool {
	for _, t := range ts {
		if t.Backend().Name() != "cpu" || !t.IsContiguous() || t.Dim() == 0 {
			return false
		}
	}
	return true
}

// bnForwardCPU normalises x [N, F...] over dim 0: per-feature mean, then the
// biased variance of the centred values (two passes, numerically stable), then
// y. Sums are accumulated in float64.
func bnForwardCPU[T float32 | float64](x *tensor.Tensor, eps float64) (y, rstd *tensor.Tensor) {
	shape := x.Shape()
	n := shape[0]
	xs := tensor.Data[T](x)
	f := len(xs) / max(n, 1)
	mean := make([]float64, f)
	for i := 0; i < n; i++ {
		row := xs[i*f : (i+1)*f]
		m := mean[:len(row)]
		for j, v := range row {
			m[j] += float64(v)
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	vr := make([]float64, f)
	for i := 0; i < n; i++ {
		row := xs[i*f : (i+1)*f]
		m, acc := mean[:len(row)], vr[:len(row)]
		for j, v := range row {
			d := float64(v) - m[j]
			acc[j] += d * d
		}
	}
	rs := make([]T, f)
	mu := make([]T, f)
	for j := range vr {
		rs[j] = T(1 / math.Sqrt(vr[j]/float64(n)+eps))
		mu[j] = T(mean[j])
	}
	y = tensor.EmptyUninit(x.DType(), shape...)
	ys := tensor.Data[T](y)
	for i := 0; i < n; i++ {
		row := xs[i*f : (i+1)*f]
		out, m, r := ys[i*f : (i+1)*f][:len(row)], mu[:len(row)], rs[:len(row)]
		for j, v := range row {
			out[j] = (v - m[j]) * r[j]
		}
	}
	rshape := append([]int{1}, shape[1:]...)
	return y, tensor.FromSlice(rs, rshape...)
}

// bnBackwardCPU computes dx = rstd·g - rstd·Σg/N - x̂·rstd·Σ(g·x̂)/N with the
// per-feature sums in one pass and dx in a second.
func bnBackwardCPU[T float32 | float64](g, y, rstd *tensor.Tensor) *tensor.Tensor {
	shape := g.Shape()
	n := shape[0]
	gs, ys := tensor.Data[T](g), tensor.Data[T](y)
	rs := tensor.ToSlice[T](rstd)
	f := len(gs) / max(n, 1)
	sg := make([]float64, f)
	sgy := make([]float64, f)
	for i := 0; i < n; i++ {
		grow := gs[i*f : (i+1)*f]
		yrow, a1, a2 := ys[i*f : (i+1)*f][:len(grow)], sg[:len(grow)], sgy[:len(grow)]
		for j, v := range grow {
			a1[j] += float64(v)
			a2[j] += float64(v) * float64(yrow[j])
		}
	}
	b, c := make([]T, f), make([]T, f)
	for j := range sg {
		r := float64(rs[j])
		b[j] = T(r * sg[j] / float64(n))
		c[j] = T(r * sgy[j] / float64(n))
	}
	dx := tensor.EmptyUninit(g.DType(), shape...)
	ds := tensor.Data[T](dx)
	for i := 0; i < n; i++ {
		grow := gs[i*f : (i+1)*f]
		k := len(grow)
		yrow, out, r, bb, cc := ys[i*f : (i+1)*f][:k], ds[i*f : (i+1)*f][:k], rs[:k], b[:k], c[:k]
		for j, v := range grow {
			out[j] = r[j]*v - bb[j] - yrow[j]*cc[j]
		}
	}
	return dx
}

// BatchNorm applies BatchNormFunction with eps (0 means 1e-5).
func BatchNorm(x *agx.Tensor, eps float64) *agx.Tensor {
	return agx.Apply(BatchNormFunction{Eps: eps}, x)
}
