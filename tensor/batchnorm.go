package tensor

import (
	"math"

	"github.com/goagx/agx/tensor/internal/vec"
)

// Batch normalisation kernels for CPU tensors (agx.BatchNorm's fast path;
// other backends compose it from ops). x has shape [N, C, *] and is read as
// [N, C, L]: each channel is normalised over its M = N·L values.
//
// The loops run the vectorised routines of Binary over whole rows (the C
// values of a sample when L = 1, else one channel's L values of a sample),
// with scratch rows and no temporaries of x's size. Sums are formed in x's
// dtype over a row of L values (pairwise) or bnBlock rows of C values, and
// then added in float64, which keeps float32 sums of any length accurate.

// bnBlock is the number of rows of C values summed in x's dtype before the
// partial sums are added to the float64 totals.
const bnBlock = 64

// BatchNormForward returns y = weight·(x - μ)·r + bias and the per-channel
// mean μ and inverse standard deviation r = 1/√(σ² + eps) (Float64 [C]), σ²
// being the biased variance. x is a Float32 or Float64 CPU tensor of at
// least 2 dims with more than one value per channel; weight and bias are
// [C] tensors of x's dtype, or nil (1 and 0). The sums run about each
// channel's first value, so data far from 0 keeps its variance. Reads x
// twice.
func BatchNormForward(x, weight, bias *Tensor, eps float64) (y, mean, invstd *Tensor) {
	x = x.Contiguous()
	if x.DType() == Float32 {
		return bnForward[float32](x, weight, bias, eps)
	}
	return bnForward[float64](x, weight, bias, eps)
}

// BatchNormBackward returns the gradients of BatchNormForward's inputs for
// the output gradient g (x's shape and dtype), given its mean and invstd:
// dbias = Σg and dweight = Σg·x̂ per channel, and (when wantDx)
// dx = (weight·r/M)·(M·g - Σg - x̂·Σg·x̂), x̂ = (x - μ)·r. Reads g and x twice.
func BatchNormBackward(g, x, weight, mean, invstd *Tensor, wantDx bool) (dx, dweight, dbias *Tensor) {
	g, x = g.Contiguous(), x.Contiguous()
	if x.DType() == Float32 {
		return bnBackward[float32](g, x, weight, mean, invstd, wantDx)
	}
	return bnBackward[float64](g, x, weight, mean, invstd, wantDx)
}

func bnForward[T vec.Float](x, weight, bias *Tensor, eps float64) (y, mean, invstd *Tensor) {
	n, c, l := bnShape(x)
	xs := Data[T](x)
	shift := make([]T, c) // channel j's first value
	for j := range shift {
		shift[j] = xs[j*l]
	}
	sum, sq := bnSums(n, c, l, func(lo, hi, j int, s, q []T) ([]T, []T) {
		bnOp(vec.Sub, s, xs[lo:hi], shift, j) // d = x - shift
		vec.Binary(vec.Mul, q, s, s)          // d²
		return s, q
	})
	w, b := perChannel[T](weight, c, 1), perChannel[T](bias, c, 0)
	m := float64(n * l)
	scale, offset := make([]T, c), make([]T, c)
	for j := range sum {
		d := sum[j] / m
		sum[j] = float64(shift[j]) + d                 // now μ
		sq[j] = 1 / math.Sqrt(max(sq[j]/m-d*d, 0)+eps) // now r
		a := sq[j] * float64(w[j])
		scale[j], offset[j] = T(a), T(float64(b[j])-sum[j]*a)
	}
	y = EmptyUninit(x.DType(), x.shape...)
	bnAffine(Data[T](y), xs, nil, scale, nil, offset, n, c, l)
	return y, FromSlice(sum, c), FromSlice(sq, c)
}

func bnBackward[T vec.Float](g, x, weight, mean, invstd *Tensor, wantDx bool) (dx, dweight, dbias *Tensor) {
	n, c, l := bnShape(x)
	gs, xs := Data[T](g), Data[T](x)
	mu, r := ToSlice[float64](mean), ToSlice[float64](invstd)
	muT := make([]T, c)
	for j, v := range mu {
		muT[j] = T(v)
	}
	sg, sgx := bnSums(n, c, l, func(lo, hi, j int, _, q []T) ([]T, []T) {
		bnOp(vec.Sub, q, xs[lo:hi], muT, j) // x - μ
		vec.Binary(vec.Mul, q, q, gs[lo:hi])
		return gs[lo:hi], q
	})
	dw, db := make([]T, c), make([]T, c)
	for j := range c {
		dw[j], db[j] = T(sgx[j]*r[j]), T(sg[j])
	}
	if wantDx {
		// dx = a·g + b·x + k: a = w·r, b = -a·r²·Σg·(x - μ)/M, k = -a·Σg/M - b·μ
		w := perChannel[T](weight, c, 1)
		m := float64(n * l)
		a, b, k := make([]T, c), make([]T, c), make([]T, c)
		for j := range c {
			aj := r[j] * float64(w[j])
			bj := -aj * r[j] * r[j] * sgx[j] / m
			a[j], b[j], k[j] = T(aj), T(bj), T(-aj*sg[j]/m-bj*mu[j])
		}
		dx = EmptyUninit(x.DType(), x.shape...)
		bnAffine(Data[T](dx), gs, xs, a, b, k, n, c, l)
	}
	return dx, FromSlice(dw, c), FromSlice(db, c)
}

// bnShape views x as [N, C, L].
func bnShape(x *Tensor) (n, c, l int) {
	n, c = x.shape[0], x.shape[1]
	return n, c, x.Numel() / (n * c)
}

// bnEach calls f(lo, hi, j) for each row x[lo:hi] of x [N, C, L]: the C
// values of one sample (j = -1) when L = 1, else channel j's L values.
func bnEach(n, c, l int, f func(lo, hi, j int)) {
	for i := range n {
		if l == 1 {
			f(i*c, (i+1)*c, -1)
			continue
		}
		for j := range c {
			f((i*c+j)*l, (i*c+j+1)*l, j)
		}
	}
}

// bnOp sets dst = a op v with v per channel: the row v itself when j < 0
// (a row of C values), else v[j].
func bnOp[T vec.Float](op vec.Op, dst, a, v []T, j int) {
	if j < 0 {
		vec.Binary(op, dst, a, v)
	} else {
		vec.BinaryScalar(op, dst, a, v[j])
	}
}

// bnSums returns two per-channel sums over x [N, C, L]: for each row as
// bnEach gives them, row(lo, hi, j, s, q) returns two slices of the row's
// length to add up, computing them in the scratch rows s and q if needed.
func bnSums[T vec.Float](n, c, l int, row func(lo, hi, j int, s, q []T) ([]T, []T)) (sum, sq []float64) {
	sum, sq = make([]float64, c), make([]float64, c)
	s, q := make([]T, max(c, l)), make([]T, max(c, l))
	bs, bq := make([]T, c), make([]T, c) // partial sums of rows of C
	rows := 0
	bnEach(n, c, l, func(lo, hi, j int) {
		a, b := row(lo, hi, j, s[:hi-lo], q[:hi-lo])
		if j >= 0 {
			sum[j] += float64(vec.Sum(a))
			sq[j] += float64(vec.Sum(b))
			return
		}
		vec.Binary(vec.Add, bs, bs, a)
		vec.Binary(vec.Add, bq, bq, b)
		if rows++; rows%bnBlock == 0 || rows == n {
			for k := range c {
				sum[k] += float64(bs[k])
				sq[k] += float64(bq[k])
			}
			clear(bs)
			clear(bq)
		}
	})
	return sum, sq
}

// bnAffine writes out = a·x + b·z + k per channel (z nil: out = a·x + k).
func bnAffine[T vec.Float](out, x, z, a, b, k []T, n, c, l int) {
	tmp := make([]T, max(c, l))
	bnEach(n, c, l, func(lo, hi, j int) {
		o := out[lo:hi]
		bnOp(vec.Mul, o, x[lo:hi], a, j)
		if z != nil {
			t := tmp[:hi-lo]
			bnOp(vec.Mul, t, z[lo:hi], b, j)
			vec.Binary(vec.Add, o, o, t)
		}
		bnOp(vec.Add, o, o, k, j)
	})
}

// perChannel returns the [C] values of t in T, or c copies of def for nil.
func perChannel[T vec.Float](t *Tensor, c int, def T) []T {
	if t == nil {
		v := make([]T, c)
		for i := range v {
			v[i] = def
		}
		return v
	}
	return ToSlice[T](t)
}
