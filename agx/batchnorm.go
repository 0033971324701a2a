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
// channel sums and sums of squares, about the channel's first value, in
// float64; then y) and the backward reads g and x twice (Σg and Σg·(x-μ);
// then dx), writing nothing but the results: PyTorch's native kernel does the
// same work. The backward is differentiable (CreateGraph): it is then
// composed from agx ops, which recompute μ and r from x. The forward rule is
// composed from ops too, and so is the whole op on other backends.
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
	xd := x.data.Contiguous()
	var out *tensor.Tensor
	var mean, invstd []float64
	if xd.DType() == Float32 {
		out, mean, invstd = bnForward[float32](xd, dataOf[float32](weight), dataOf[float32](bias), eps)
	} else {
		out, mean, invstd = bnForward[float64](xd, dataOf[float64](weight), dataOf[float64](bias), eps)
	}
	req := [3]bool{needsGrad(x), needsGrad(weight), needsGrad(bias)}
	r := record("NativeBatchNormBackward0", out, []*Tensor{x, weight, bias}, []*Tensor{x, saveIf(req[0], weight)},
		func(g *Tensor, s []*Tensor) []*Tensor {
			if needsGrad(g, s[0], s[1]) || isDual(g, s[0], s[1]) {
				return bnBackwardOps(g, s[0], s[1], eps, req)
			}
			gd := g.data.To(s[0].DType()).Contiguous()
			if gd.DType() == Float32 {
				return bnBackward[float32](gd, s[0].data.Contiguous(), dataOf[float32](s[1]), mean, invstd, req)
			}
			return bnBackward[float64](gd, s[0].data.Contiguous(), dataOf[float64](s[1]), mean, invstd, req)
		})
	if isDual(x, weight, bias) {
		// dy = w·r·(dxc - x̂·mean(x̂·dxc)) + dw·x̂ + db, dxc = dx - mean(dx)
		jvp(r, func() *Tensor {
			dims, cshape := bnDims(x)
			xhat, invstd := bnNormalize(x, eps)
			var t *Tensor
			if tx := x.tangentOf(); tx != nil {
				dxc := tx.Sub(tx.MeanKeep(dims...))
				t = bnScale(dxc.Sub(xhat.Mul(xhat.Mul(dxc).MeanKeep(dims...))).Mul(invstd), weight, cshape)
			}
			if tw := weight.tangentOf(); tw != nil {
				t = addTangents(t, xhat.Mul(tw.Reshape(cshape...)))
			}
			if tb := bias.tangentOf(); tb != nil {
				t = addTangents(t, tb.Reshape(cshape...))
			}
			return t
		})
	}
	return r
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

// dataOf returns the elements of a per-channel tensor, nil for nil.
func dataOf[T float32 | float64](t *Tensor) []T {
	if t == nil {
		return nil
	}
	return tensor.ToSlice[T](t.data)
}

// bnShape views a contiguous x as [N, C, L].
func bnShape(x *tensor.Tensor) (n, c, l int) {
	n, c = x.Size(0), x.Size(1)
	return n, c, x.Numel() / (n * c)
}

// bnForward computes y and the per-channel mean and 1/√(σ² + eps). The sums
// run about the channel's first value (shift), which keeps the variance
// Σd²/M - (Σd/M)² accurate for data far from 0.
func bnForward[T float32 | float64](x *tensor.Tensor, w, b []T, eps float64) (*tensor.Tensor, []float64, []float64) {
	n, c, l := bnShape(x)
	xs := tensor.Data[T](x)
	shift, sum, sq := make([]float64, c), make([]float64, c), make([]float64, c)
	for j := range shift {
		shift[j] = float64(xs[j*l])
	}
	for i := range n {
		if l == 1 {
			row := xs[i*c : (i+1)*c]
			sh, s, q := shift[:len(row)], sum[:len(row)], sq[:len(row)]
			for j, v := range row {
				d := float64(v) - sh[j]
				s[j] += d
				q[j] += d * d
			}
			continue
		}
		for j := range c {
			var s, q float64
			for _, v := range xs[(i*c+j)*l : (i*c+j+1)*l] {
				d := float64(v) - shift[j]
				s += d
				q += d * d
			}
			sum[j] += s
			sq[j] += q
		}
	}
	m := float64(n * l)
	scale, offset := make([]T, c), make([]T, c)
	for j := range sum {
		d := sum[j] / m
		sum[j] = shift[j] + d                          // now the mean
		sq[j] = 1 / math.Sqrt(max(sq[j]/m-d*d, 0)+eps) // now invstd
		a, bb := sq[j], 0.0
		if w != nil {
			a *= float64(w[j])
		}
		if b != nil {
			bb = float64(b[j])
		}
		scale[j], offset[j] = T(a), T(bb-sum[j]*a)
	}
	y := tensor.EmptyUninit(x.DType(), x.Shape()...)
	bnAffine(tensor.Data[T](y), xs, nil, scale, nil, offset, n, c, l)
	return y, sum, sq
}

// bnAffine writes out = a·x + b·z + k per channel (z nil: out = a·x + k).
func bnAffine[T float32 | float64](out, x, z, a, b, k []T, n, c, l int) {
	for i := range n {
		if l == 1 {
			row := x[i*c : (i+1)*c]
			o, ar, kr := out[i*c : (i+1)*c][:len(row)], a[:len(row)], k[:len(row)]
			if z == nil {
				for j, v := range row {
					o[j] = v*ar[j] + kr[j]
				}
				continue
			}
			zr, br := z[i*c : (i+1)*c][:len(row)], b[:len(row)]
			for j, v := range row {
				o[j] = v*ar[j] + zr[j]*br[j] + kr[j]
			}
			continue
		}
		for j := range c {
			lo, hi := (i*c+j)*l, (i*c+j+1)*l
			row, o, aj, kj := x[lo:hi], out[lo:hi], a[j], k[j]
			o = o[:len(row)]
			if z == nil {
				for t, v := range row {
					o[t] = v*aj + kj
				}
				continue
			}
			zr, bj := z[lo:hi][:len(row)], b[j]
			for t, v := range row {
				o[t] = v*aj + zr[t]*bj + kj
			}
		}
	}
}

// bnBackward computes the gradients of BatchNorm's inputs from g: Σg and
// Σg·(x - μ) per channel in one pass over g and x, then
// dx = a·g + b·x + k with per-channel a = w·r, b = -a·r²·Σg·(x - μ)/M and
// k = -a·Σg/M - b·μ.
func bnBackward[T float32 | float64](g, x *tensor.Tensor, w []T, mean, invstd []float64, req [3]bool) []*Tensor {
	n, c, l := bnShape(x)
	gs, xs := tensor.Data[T](g), tensor.Data[T](x)
	sg, sgx := make([]float64, c), make([]float64, c)
	for i := range n {
		if l == 1 {
			gr := gs[i*c : (i+1)*c]
			xr, mu, s, q := xs[i*c : (i+1)*c][:len(gr)], mean[:len(gr)], sg[:len(gr)], sgx[:len(gr)]
			for j, v := range gr {
				s[j] += float64(v)
				q[j] += float64(v) * (float64(xr[j]) - mu[j])
			}
			continue
		}
		for j := range c {
			lo, hi := (i*c+j)*l, (i*c+j+1)*l
			gr, xr, mu := gs[lo:hi], xs[lo:hi], mean[j]
			xr = xr[:len(gr)]
			var s, q float64
			for t, v := range gr {
				s += float64(v)
				q += float64(v) * (float64(xr[t]) - mu)
			}
			sg[j] += s
			sgx[j] += q
		}
	}
	grads := make([]*Tensor, 3)
	m := float64(n * l)
	if req[0] {
		a, b, k := make([]T, c), make([]T, c), make([]T, c)
		for j := range a {
			r := invstd[j]
			aj := r
			if w != nil {
				aj *= float64(w[j])
			}
			bj := -aj * r * r * sgx[j] / m
			a[j], b[j], k[j] = T(aj), T(bj), T(-aj*sg[j]/m-bj*mean[j])
		}
		dx := tensor.EmptyUninit(g.DType(), x.Shape()...)
		bnAffine(tensor.Data[T](dx), gs, xs, a, b, k, n, c, l)
		grads[0] = wrap(dx)
	}
	if req[1] {
		dw := make([]T, c)
		for j := range dw {
			dw[j] = T(sgx[j] * invstd[j])
		}
		grads[1] = wrap(tensor.FromSlice(dw, c))
	}
	if req[2] {
		db := make([]T, c)
		for j := range db {
			db[j] = T(sg[j])
		}
		grads[2] = wrap(tensor.FromSlice(db, c))
	}
	return grads
}
