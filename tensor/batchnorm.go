package tensor

import (
	"math"

	"github.com/goagx/agx/tensor/internal/vec"
)

// Batch normalisation kernels for CPU tensors (agx.BatchNorm's fast path;
// other backends compose it from ops). x has shape [N, C, *] and is read as
// [N, C, L]: each channel is normalised over its M = N·L values.
//
// The loops run package vec's routines over whole rows: the C values of a
// sample when L = 1, else one channel's L values of a sample. With rows of
// C values each pass over a row is one vectorised loop: SumDiffSq and
// SumDiffProd accumulate both sums of a row, MulAdd and MulMulAdd write y
// and dx. Rows of L values take a few loops per pass: for the sums, the
// difference from the channel's shift or μ into a scratch row, its square
// or product with g, and two pairwise sums; for the output, a product and
// an addition. Only rows of scratch are allocated, no temporaries of x's
// size. Sums are formed in x's dtype over a row of L values (pairwise) or
// bnBlock rows of C values (one partial sum per channel), and then added
// in float64, which keeps float32 sums of any length accurate.

// bnBlock is the number of rows of C values summed in x's dtype before the
// partial sums are added to the float64 totals.
const bnBlock = 64

// BatchNormForward returns y = weight·(x - μ)·r + bias and the per-channel
// mean μ and inverse standard deviation r = 1/√(σ² + eps) (Float64 [C]), σ²
// being the biased variance. x is a Float32 or Float64 CPU tensor of at
// least 2 dims with more than one value per channel; weight and bias are
// [C] tensors of x's dtype, or nil (1 and 0); tensors on other backends
// panic with ErrDevice. The sums run about the mean of each channel's first
// values, so data far from 0 keeps its variance. Reads x twice.
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
	shift := bnShift(xs, n, c, l)
	sum, sq := bnSums(n, c, l, func(lo, hi int, s, q []T) {
		vec.SumDiffSq(s, q, xs[lo:hi], shift) // s += x - shift, q += (x - shift)²
	}, func(lo, hi, j int, d []T) (s, q T) {
		vec.BinaryScalar(vec.Sub, d, xs[lo:hi], shift[j])
		s = vec.Sum(d)
		vec.Binary(vec.Mul, d, d, d)
		return s, vec.Sum(d)
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
	y = emptyUninit(x.Backend(), x.DType(), x.shape...)
	bnAffine(Data[T](y), xs, nil, scale, nil, offset, n, c, l)
	return y, FromSlice(sum, c), FromSlice(sq, c)
}

func bnBackward[T vec.Float](g, x, weight, mean, invstd *Tensor, wantDx bool) (dx, dweight, dbias *Tensor) {
	n, c, l := bnShape(x)
	gs, xs := Data[T](g), Data[T](x)
	mu, r := Data[float64](mean.Contiguous()), Data[float64](invstd.Contiguous())
	muT := make([]T, c)
	for j, v := range mu {
		muT[j] = T(v)
	}
	sg, sgx := bnSums(n, c, l, func(lo, hi int, s, q []T) {
		vec.SumDiffProd(s, q, gs[lo:hi], xs[lo:hi], muT) // s += g, q += (x - μ)·g
	}, func(lo, hi, j int, d []T) (s, q T) {
		vec.BinaryScalar(vec.Sub, d, xs[lo:hi], muT[j])
		vec.Binary(vec.Mul, d, d, gs[lo:hi])
		return vec.Sum(gs[lo:hi]), vec.Sum(d)
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
		dx = emptyUninit(x.Backend(), x.DType(), x.shape...)
		bnAffine(Data[T](dx), gs, xs, a, b, k, n, c, l)
	}
	return dx, FromSlice(dw, c), FromSlice(db, c)
}

// bnShiftCount is how many of a channel's first values bnShift averages.
const bnShiftCount = 64

// bnShift returns, per channel of x [N, C, L], the mean of its first
// bnShiftCount values (fewer when it has fewer): the point the forward's
// sums run about. Near the mean, the sums of squares keep the variance even
// for data far from 0; one value alone would do that too, except when it is
// far from the others (an outlier first), which the average dilutes.
func bnShift[T vec.Float](xs []T, n, c, l int) []T {
	shift := make([]T, c)
	if l == 1 {
		// Rows of C values: add whole rows, one vector loop each. The sum
		// in T is exact enough for a point to sum about.
		rows := min(n, bnShiftCount)
		for i := range rows {
			vec.Binary(vec.Add, shift, shift, xs[i*c:(i+1)*c])
		}
		vec.BinaryScalar(vec.Mul, shift, shift, 1/T(rows))
		return shift
	}
	rows := min(n, max(1, bnShiftCount/l))
	cols := min(l, bnShiftCount)
	for j := range shift {
		var s float64
		for i := range rows {
			for _, v := range xs[(i*c+j)*l : (i*c+j)*l+cols] {
				s += float64(v)
			}
		}
		shift[j] = T(s / float64(rows*cols))
	}
	return shift
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

// bnSums returns two per-channel sums over x [N, C, L]. When L = 1,
// block(lo, hi, s, q) adds the terms of the row x[lo:hi] of C values to the
// partial sums s and q, which bnSums adds to the float64 totals every
// bnBlock rows; else row(lo, hi, j, d) returns the two sums over channel
// j's row x[lo:hi] of L values, with d a scratch row of L values.
func bnSums[T vec.Float](n, c, l int, block func(lo, hi int, s, q []T), row func(lo, hi, j int, d []T) (s, q T)) (sum, sq []float64) {
	sum, sq = make([]float64, c), make([]float64, c)
	if l > 1 {
		d := make([]T, l)
		bnEach(n, c, l, func(lo, hi, j int) {
			s, q := row(lo, hi, j, d)
			sum[j] += float64(s)
			sq[j] += float64(q)
		})
		return sum, sq
	}
	s, q := make([]T, c), make([]T, c)
	for i0 := 0; i0 < n; i0 += bnBlock {
		clear(s)
		clear(q)
		for i := i0; i < min(i0+bnBlock, n); i++ {
			block(i*c, (i+1)*c, s, q)
		}
		for k := range c {
			sum[k] += float64(s[k])
			sq[k] += float64(q[k])
		}
	}
	return sum, sq
}

// bnAffine writes out = a·x + b·z + k per channel (z nil: out = a·x + k).
func bnAffine[T vec.Float](out, x, z, a, b, k []T, n, c, l int) {
	bnEach(n, c, l, func(lo, hi, j int) {
		o := out[lo:hi]
		switch {
		case j >= 0 && z == nil:
			vec.BinaryScalar(vec.Mul, o, x[lo:hi], a[j])
			vec.BinaryScalar(vec.Add, o, o, k[j])
		case j >= 0:
			vec.Axpby(o, x[lo:hi], z[lo:hi], a[j], b[j])
			vec.BinaryScalar(vec.Add, o, o, k[j])
		case z == nil:
			vec.MulAdd(o, x[lo:hi], a, k)
		default:
			vec.MulMulAdd(o, x[lo:hi], a, z[lo:hi], b, k)
		}
	})
}

// perChannel returns the [C] values of t (read only), or c copies of def for
// nil.
func perChannel[T vec.Float](t *Tensor, c int, def T) []T {
	if t == nil {
		v := make([]T, c)
		for i := range v {
			v[i] = def
		}
		return v
	}
	return Data[T](t.Contiguous())
}
