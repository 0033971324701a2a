package agx

import (
	"math"

	"github.com/goagx/agx/tensor"
)

// BatchNorm is batch normalisation in training mode, as PyTorch's
// F.batch_norm(x, None, None, weight, bias, training=True, eps=eps): x of
// shape [N, C, *] (BatchNorm1d's [N, C] and [N, C, L], BatchNorm2d's
// [N, C, H, W], ...) is normalised per channel c over the batch and every
// dim after C, with the batch's mean μ and biased variance σ²:
//
//	x̂ = (x - μ)·r,  r = 1/√(σ² + eps),  y = weight·x̂ + bias
//
// weight and bias are [C] tensors of x's dtype, or nil (weight 1, bias 0).
// There are no running statistics: evaluation mode is an affine map the
// caller applies with its own mean and variance. eps is used as given
// (PyTorch's default is 1e-5).
//
// Backward, per channel with M = N·(elements after C) and sums over the M
// values: dbias = Σg, dweight = Σg·x̂, and
//
//	dx = (weight·r/M)·(M·g - Σg - x̂·Σg·x̂)
//
// On the CPU, for Float32 and Float64, the forward reads x twice (the
// channel sums and sums of squares, about the mean of the channel's first
// values, in float64; then y) and the backward reads g and x twice (Σg
// and Σg·(x-μ); then dx), writing nothing but the results: PyTorch's
// native kernel does the same work. The backward is differentiable
// (CreateGraph): it is then composed from agx ops, which recompute μ and r
// from x. The forward rule is composed from ops too, and so is the whole op
// on other backends.
//
// Panics with ErrShape for x of fewer than 2 dims, a weight or bias not of
// shape [C], or a single value per channel (M = 1: "Expected more than 1
// value per channel when training"), with ErrDType for other dtypes, and
// with ErrArg for a negative eps.
func BatchNorm(x, weight, bias *Tensor, eps float64) *Tensor {
	need("BatchNorm", "input", 1, x)
	bnCheck(x, weight, bias, eps)
	if x.data.Backend().Name() != "cpu" {
		return bnOps(x, weight, bias, eps)
	}
	out, mean, invstd := tensor.BatchNormForward(x.data, dataOrNil(weight), dataOrNil(bias), eps)
	// bnForward inline: the statistics are kept for the data-only backward
	return bnOp.finish(bnArgs{eps: eps, mean: mean, invstd: invstd}, ins{x, weight, bias}, out)
}

// The native (CPU) BatchNorm op: its rules are declared in batchNormOps and
// written below.

var (
	bnOp         opDef[bnArgs]
	batchNormOps []rules
)

func init() {
	bnOp = opDef[bnArgs]{name: "NativeBatchNormBackward0", arity: 3, prepare: bnPrepare, forward: bnForward, fresh: true,
		save: bnSaves, saves: 2, backward: bnBackward, dataBackward: bnDataBackward, jvp: bnJVP}
	batchNormOps = []rules{bnOp.done()}
}

// bnArgs are the arguments of the native BatchNorm: eps, the batch's mean and
// 1/√(σ² + eps) per channel (from the forward, for the data-only backward)
// and, when it records, which of x, weight and bias need a gradient.
type bnArgs struct {
	eps          float64
	mean, invstd *tensor.Tensor
	req          [3]bool
}

func bnForward(p bnArgs, x ins) *tensor.Tensor {
	out, _, _ := tensor.BatchNormForward(x[0].data, dataOrNil(x[1]), dataOrNil(x[2]), p.eps)
	return out
}

func bnPrepare(p bnArgs, x ins) bnArgs {
	p.req = [3]bool{requires(x[0]), requires(x[1]), requires(x[2])}
	return p
}

// bnSaves keeps x, and the weight for x's gradient.
func bnSaves(x ins) ins { return ins{x[0], saveIf(requires(x[0]), x[1])} }

func bnBackward(p bnArgs, g *Tensor, s []*Tensor) []*Tensor {
	return bnBackwardOps(g, s[0], s[1], p.eps, p.req)
}

// bnDataBackward is the native kernel: two passes over g and x.
func bnDataBackward(p bnArgs, g *Tensor, s []*Tensor) []*Tensor {
	dx, dw, db := tensor.BatchNormBackward(g.data.To(s[0].DType()), s[0].data, dataOrNil(s[1]), p.mean, p.invstd, p.req[0])
	grads := []*Tensor{nil, nil, nil}
	for i, d := range []*tensor.Tensor{dx, dw, db} {
		if p.req[i] {
			grads[i] = wrap(d)
		}
	}
	return grads
}

// bnJVP is dy = w·r·(dxc - x̂·mean(x̂·dxc)) + dw·x̂ + db, dxc = dx - mean(dx).
func bnJVP(p bnArgs, x ins, _ *Tensor) *Tensor {
	dims, cshape := bnDims(x[0])
	xhat, invstd := bnNormalize(x[0], p.eps)
	var t *Tensor
	if tx := x[0].tangentOf(); tx != nil {
		dxc := tx.Sub(tx.MeanKeep(dims...))
		t = bnScale(dxc.Sub(xhat.Mul(xhat.Mul(dxc).MeanKeep(dims...))).Mul(invstd), x[1], cshape)
	}
	if tw := x[1].tangentOf(); tw != nil {
		t = addTangents(t, xhat.Mul(tw.Reshape(cshape...)))
	}
	if tb := x[2].tangentOf(); tb != nil {
		t = addTangents(t, tb.Reshape(cshape...))
	}
	return t
}

func bnCheck(x, weight, bias *Tensor, eps float64) {
	if x.Dim() < 2 {
		tensor.PanicHint("BatchNorm", tensor.ErrShape, "pass x of shape [N, C, *]", "expected at least 2 dims, got input of shape %v", x.Shape())
	}
	if dt := x.DType(); dt != Float32 && dt != Float64 {
		tensor.Panicf("BatchNorm", tensor.ErrDType, "expected Float32 or Float64 input, got %v", dt)
	}
	c := x.Size(1)
	for _, p := range []struct {
		name string
		t    *Tensor
	}{{"weight", weight}, {"bias", bias}} {
		if p.t == nil {
			continue
		}
		if p.t.Dim() != 1 || p.t.Size(0) != c {
			tensor.PanicHint("BatchNorm", tensor.ErrShape, "weight and bias hold one value per channel (dim 1 of x)",
				"%s of shape %v for input of shape %v, want [%d]", p.name, p.t.Shape(), x.Shape(), c)
		}
		if p.t.DType() != x.DType() {
			tensor.Panicf("BatchNorm", tensor.ErrDType, "%s has dtype %v, input %v", p.name, p.t.DType(), x.DType())
		}
	}
	if m := x.Numel() / max(c, 1); m <= 1 || c == 0 {
		tensor.Panicf("BatchNorm", tensor.ErrShape, "Expected more than 1 value per channel when training, got input size %v", x.Shape())
	}
	if eps < 0 || math.IsNaN(eps) {
		tensor.Panicf("BatchNorm", tensor.ErrArg, "eps must be non-negative, got %g", eps)
	}
}

// bnDims returns the dims BatchNorm reduces over (all but 1) and the shape
// [1, C, 1, ...] that broadcasts a per-channel [C] tensor against x.
func bnDims(x *Tensor) (dims, cshape []int) {
	cshape = make([]int, x.Dim())
	for d := range cshape {
		cshape[d] = 1
		if d != 1 {
			dims = append(dims, d)
		}
	}
	cshape[1] = x.Size(1)
	return dims, cshape
}

// bnNormalize returns x̂ and r (kept dims) composed from ops.
func bnNormalize(x *Tensor, eps float64) (xhat, invstd *Tensor) {
	dims, _ := bnDims(x)
	invstd = x.VarKeep(false, dims...).Add(eps).Rsqrt()
	return x.Sub(x.MeanKeep(dims...)).Mul(invstd), invstd
}

// bnScale multiplies t by the per-channel weight (nil: 1).
func bnScale(t, weight *Tensor, cshape []int) *Tensor {
	if weight == nil {
		return t
	}
	return t.Mul(weight.Reshape(cshape...))
}

// bnOps is BatchNorm composed from ops.
func bnOps(x, weight, bias *Tensor, eps float64) *Tensor {
	_, cshape := bnDims(x)
	xhat, _ := bnNormalize(x, eps)
	y := bnScale(xhat, weight, cshape)
	if bias != nil {
		y = y.Add(bias.Reshape(cshape...))
	}
	return y
}

// bnBackwardOps is the backward composed from ops, differentiable.
func bnBackwardOps(g, x, weight *Tensor, eps float64, req [3]bool) []*Tensor {
	dims, cshape := bnDims(x)
	m := float64(x.Numel() / x.Size(1))
	xhat, invstd := bnNormalize(x, eps)
	grads := make([]*Tensor, 3)
	if req[0] {
		gh := bnScale(g, weight, cshape)
		dx := gh.Mul(m).Sub(gh.SumKeep(dims...)).Sub(xhat.Mul(gh.Mul(xhat).SumKeep(dims...)))
		grads[0] = dx.Mul(invstd.Div(m))
	}
	if req[1] {
		grads[1] = g.Mul(xhat).Sum(dims...)
	}
	if req[2] {
		grads[2] = g.Sum(dims...)
	}
	return grads
}

// dataOrNil returns t's data, nil for nil.
func dataOrNil(t *Tensor) *tensor.Tensor {
	if t == nil {
		return nil
	}
	return t.data
}
