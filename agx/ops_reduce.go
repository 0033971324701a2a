package agx

import (
	"slices"

	"github.com/goagx/agx/tensor"
)

// normDims resolves negative dims; no dims means all dims.
func normDims(shape []int, dims []int) []int {
	n := len(shape)
	if len(dims) == 0 {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return all
	}
	out := make([]int, len(dims))
	for i, d := range dims {
		if d < -n || d >= n {
			if !(n == 0 && (d == 0 || d == -1)) {
				tensor.Panicf("reduce", tensor.ErrIndex, "dimension %d out of range for a %d-d tensor of shape %v", d, n, shape)
			}
			d = 0
		}
		if d < 0 {
			d += n
		}
		out[i] = d
	}
	slices.Sort(out)
	return out
}

// keepShape is shape with the reduced dims set to 1.
func keepShape(shape, dims []int) []int {
	ks := slices.Clone(shape)
	for _, d := range dims {
		if d < len(ks) {
			ks[d] = 1
		}
	}
	return ks
}

// unreduce brings a reduced gradient back to the input's shape: it restores
// the reduced dims as size 1 (when keepdim was false) and expands.
func unreduce(g *Tensor, inShape, dims []int, keep bool) *Tensor {
	if !keep {
		g = g.Reshape(keepShape(inShape, dims)...)
	}
	return g.Expand(inShape...)
}

// Sum sums over dims (all when none are given), removing them.
func (t *Tensor) Sum(dims ...int) *Tensor {
	t.self("Sum")
	return t.sum(false, dims)
}

// SumKeep sums over dims keeping them with size 1.
func (t *Tensor) SumKeep(dims ...int) *Tensor {
	t.self("SumKeep")
	return t.sum(true, dims)
}

func (t *Tensor) sum(keep bool, dims []int) *Tensor {
	if isDual(t) {
		return jvp(t.sumImpl(keep, dims), func() *Tensor { return t.tangentOf().sum(keep, dims) })
	}
	return t.sumImpl(keep, dims)
}

func (t *Tensor) sumImpl(keep bool, dims []int) *Tensor {
	nd := normDims(t.data.Raw().Shape, dims) // read only
	var out *tensor.Tensor
	if keep {
		out = t.data.SumKeep(dims...)
	} else {
		out = t.data.Sum(dims...)
	}
	if r := untracked(out, t); r != nil {
		return r
	}
	shape := t.data.Shape()
	name := "SumBackward1" // over given dims, as PyTorch names it
	if len(dims) == 0 {
		name = "SumBackward0"
	}
	return record(name, out, []*Tensor{t}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{unreduce(g, shape, nd, keep)}
	})
}

// Mean averages over dims (all when none are given).
func (t *Tensor) Mean(dims ...int) *Tensor {
	t.self("Mean")
	return t.mean(false, dims)
}

// MeanKeep averages over dims keeping them with size 1.
func (t *Tensor) MeanKeep(dims ...int) *Tensor {
	t.self("MeanKeep")
	return t.mean(true, dims)
}

func (t *Tensor) mean(keep bool, dims []int) *Tensor {
	shape := t.data.Shape()
	nd := normDims(shape, dims)
	n := 1
	for _, d := range nd {
		if d < len(shape) {
			n *= shape[d]
		}
	}
	var out *tensor.Tensor
	if keep {
		out = t.data.MeanKeep(dims...)
	} else {
		out = t.data.Mean(dims...)
	}
	name := "MeanBackward1"
	if len(dims) == 0 {
		name = "MeanBackward0"
	}
	r := record(name, out, []*Tensor{t}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{unreduce(g.Div(float64(n)), shape, nd, keep)}
	})
	if isDual(t) {
		jvp(r, func() *Tensor { return t.tangentOf().mean(keep, dims) })
	}
	return r
}

// Var is the variance over dims (all when none are given); unbiased divides by
// n-1 (Bessel's correction), otherwise by n.
func (t *Tensor) Var(unbiased bool, dims ...int) *Tensor {
	t.self("Var")
	return t.variance(unbiased, false, dims)
}

// VarKeep is Var keeping the reduced dims with size 1.
func (t *Tensor) VarKeep(unbiased bool, dims ...int) *Tensor {
	t.self("VarKeep")
	return t.variance(unbiased, true, dims)
}

func (t *Tensor) variance(unbiased, keep bool, dims []int) *Tensor {
	shape := t.data.Shape()
	nd := normDims(shape, dims)
	n := 1
	for _, d := range nd {
		if d < len(shape) {
			n *= shape[d]
		}
	}
	var out *tensor.Tensor
	if keep {
		out = t.data.VarKeep(unbiased, dims...)
	} else {
		out = t.data.Var(unbiased, dims...)
	}
	den := float64(n)
	if unbiased {
		den = float64(n - 1)
	}
	r := record("VarBackward0", out, []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		x := s[0]
		centered := x.Sub(x.MeanKeep(nd...))
		// Scale the (reduced, smaller) gradient before it is broadcast.
		return []*Tensor{unreduce(g.Mul(2/den), shape, nd, keep).Mul(centered)}
	})
	if isDual(t) {
		// 2/den · Σ (x - mean)·dx (the mean of dx drops out: Σ (x - mean) = 0)
		jvp(r, func() *Tensor {
			centered := t.Sub(t.MeanKeep(nd...))
			return centered.Mul(t.tangentOf()).sum(keep, nd).Mul(2 / den)
		})
	}
	return r
}

// Std is the standard deviation, the square root of Var.
func (t *Tensor) Std(unbiased bool, dims ...int) *Tensor {
	t.self("Std")
	return t.Var(unbiased, dims...).Sqrt()
}

// Amax is the maximum over dims (all when none are given); the gradient is
// shared evenly among tied maxima.
func (t *Tensor) Amax(dims ...int) *Tensor {
	t.self("Amax")
	return t.extreme(extremum{max: true}, dims)
}

// AmaxKeep is Amax keeping the reduced dims.
func (t *Tensor) AmaxKeep(dims ...int) *Tensor {
	t.self("AmaxKeep")
	return t.extreme(extremum{max: true, keepDims: true}, dims)
}

// Amin is the minimum over dims; ties share the gradient evenly.
func (t *Tensor) Amin(dims ...int) *Tensor {
	t.self("Amin")
	return t.extreme(extremum{max: false}, dims)
}

// AminKeep is Amin keeping the reduced dims.
func (t *Tensor) AminKeep(dims ...int) *Tensor {
	t.self("AminKeep")
	return t.extreme(extremum{max: false, keepDims: true}, dims)
}

// Max is the maximum of all elements (a 0-d tensor).
func (t *Tensor) Max() *Tensor {
	t.self("Max")
	return t.Amax()
}

// Min is the minimum of all elements (a 0-d tensor).
func (t *Tensor) Min() *Tensor {
	t.self("Min")
	return t.Amin()
}

// extremum says which reduction extreme, extremeImpl and extremeDim compute:
// the maximum or the minimum, keeping the reduced dims or not.
type extremum struct {
	max      bool // the maximum (else the minimum)
	keepDims bool
}

func (t *Tensor) extreme(e extremum, dims []int) *Tensor {
	if !isDual(t) {
		return t.extremeImpl(e, dims)
	}
	keep := e.keepDims
	r := t.extremeImpl(e, dims)
	// the tangents of the extreme elements, averaged over ties (as backward
	// splits the gradient)
	return jvp(r, func() *Tensor {
		nd := normDims(t.data.Shape(), dims)
		mask := t.data.Eq(unreduce(wrap(r.data), t.data.Shape(), nd, keep).data).To(t.DType())
		w := wrap(mask.Div(mask.SumKeep(nd...)))
		return t.tangentOf().Mul(w).sum(keep, nd)
	})
}

func (t *Tensor) extremeImpl(e extremum, dims []int) *Tensor {
	isMax, keep := e.max, e.keepDims
	nd := normDims(t.data.Raw().Shape, dims) // read only
	var out *tensor.Tensor
	switch {
	case isMax && keep:
		out = t.data.AmaxKeep(dims...)
	case isMax:
		out = t.data.Amax(dims...)
	case keep:
		out = t.data.AminKeep(dims...)
	default:
		out = t.data.Amin(dims...)
	}
	if r := untracked(out, t); r != nil {
		return r
	}
	shape := t.data.Shape()
	name := "AmaxBackward0"
	if !isMax {
		name = "AminBackward0"
	}
	r := record(name, out, []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		x, y := s[0], s[1]
		mask := x.data.Eq(unreduce(y, shape, nd, keep).data).To(x.DType())
		count := mask.SumKeep(nd...)
		w := wrap(mask.Div(count))
		return []*Tensor{unreduce(g, shape, nd, keep).Mul(w)}
	})
	saveOutput(r)
	return r
}

// MaxDim returns the maximum along dim and its indices (Int64, no gradient).
// The gradient goes to the position of the returned index.
func (t *Tensor) MaxDim(dim int, keepdim bool) (values, indices *Tensor) {
	t.self("MaxDim")
	return t.extremeDim(extremum{max: true, keepDims: keepdim}, dim)
}

// MinDim returns the minimum along dim and its indices.
func (t *Tensor) MinDim(dim int, keepdim bool) (values, indices *Tensor) {
	t.self("MinDim")
	return t.extremeDim(extremum{max: false, keepDims: keepdim}, dim)
}

func (t *Tensor) extremeDim(e extremum, dim int) (*Tensor, *Tensor) {
	isMax, keep := e.max, e.keepDims
	var v, idx *tensor.Tensor
	name := "MaxBackward0"
	if isMax {
		v, idx = t.data.MaxDim(dim, keep)
	} else {
		v, idx = t.data.MinDim(dim, keep)
		name = "MinBackward0"
	}
	shape := t.data.Shape()
	d := normDims(shape, []int{dim})[0]
	ik := idx
	if !keep && len(shape) > 0 {
		ik = idx.Unsqueeze(d)
	}
	vals := record(name, v, []*Tensor{t}, nil, func(g *Tensor, _ []*Tensor) []*Tensor {
		if !keep && len(shape) > 0 {
			g = g.Unsqueeze(d)
		}
		z := wrap(tensor.Zeros(g.DType(), shape...))
		if len(shape) == 0 {
			return []*Tensor{g}
		}
		return []*Tensor{z.ScatterAdd(d, wrap(ik), g)}
	})
	if isDual(t) {
		jvp(vals, func() *Tensor {
			tt := t.tangentOf()
			if len(shape) == 0 {
				return tt
			}
			v := tt.Gather(d, wrap(ik))
			if !keep {
				v = v.Squeeze(d)
			}
			return v
		})
	}
	return vals, wrap(idx)
}

// ArgMax returns the indices of the maxima along dim (Int64, no gradient).
func (t *Tensor) ArgMax(dim int, keepdim bool) *Tensor {
	t.self("ArgMax")
	return wrap(t.data.ArgMax(dim, keepdim))
}

// ArgMin returns the indices of the minima along dim.
func (t *Tensor) ArgMin(dim int, keepdim bool) *Tensor {
	t.self("ArgMin")
	return wrap(t.data.ArgMin(dim, keepdim))
}

// LogSumExp returns log Σ exp(x) over dims, computed stably (max-shifted).
// Backward: g·softmax(x).
func (t *Tensor) LogSumExp(dims ...int) *Tensor {
	t.self("LogSumExp")
	return t.logsumexp(false, dims)
}

// LogSumExpKeep is LogSumExp keeping the reduced dims.
func (t *Tensor) LogSumExpKeep(dims ...int) *Tensor {
	t.self("LogSumExpKeep")
	return t.logsumexp(true, dims)
}

func (t *Tensor) logsumexp(keep bool, dims []int) *Tensor {
	shape := t.data.Shape()
	nd := normDims(shape, dims)
	var out *tensor.Tensor
	if keep {
		out = t.data.LogSumExpKeep(dims...)
	} else {
		out = t.data.LogSumExp(dims...)
	}
	r := record("LogsumexpBackward0", out, []*Tensor{t}, []*Tensor{t}, func(g *Tensor, s []*Tensor) []*Tensor {
		x, y := s[0], s[1]
		p := x.Sub(unreduce(y, shape, nd, keep)).Exp()
		return []*Tensor{unreduce(g, shape, nd, keep).Mul(p)}
	})
	saveOutput(r)
	if isDual(t) {
		// Σ softmax(x)·dx over dims
		jvp(r, func() *Tensor {
			p := t.Sub(unreduce(wrap(r.data), shape, nd, keep)).Exp()
			return t.tangentOf().Mul(p).sum(keep, nd)
		})
	}
	return r
}

// Softmax returns exp(x) / Σ exp(x) along dim, computed stably.
// Backward: y·(g - Σ g·y) with y the saved output.
func (t *Tensor) Softmax(dim int) *Tensor {
	t.self("Softmax")
	r := record("SoftmaxBackward0", t.data.Softmax(dim), []*Tensor{t}, nil, func(g *Tensor, s []*Tensor) []*Tensor {
		y := s[0]
		return []*Tensor{y.Mul(g.Sub(g.Mul(y).SumKeep(dim)))}
	})
	saveOutput(r)
	if isDual(t) {
		// y·(dx - Σ y·dx)
		jvp(r, func() *Tensor {
			tt := t.tangentOf()
			return r.Mul(tt.Sub(tt.Mul(r).SumKeep(dim)))
		})
	}
	return r
}

// LogSoftmax returns x - logsumexp(x) along dim.
// Backward: g - softmax·Σ g, with softmax = exp(saved output).
func (t *Tensor) LogSoftmax(dim int) *Tensor {
	t.self("LogSoftmax")
	r := record("LogSoftmaxBackward0", t.data.LogSoftmax(dim), []*Tensor{t}, nil, func(g *Tensor, s []*Tensor) []*Tensor {
		y := s[0]
		if recordsNothing(g, y) {
			// nothing to record: the same operations on the data, the
			// product into exp's result
			sm := y.data.Exp().MulInPlace(g.data.SumKeep(dim))
			return []*Tensor{wrap(tensor.Sub(g.data, sm))}
		}
		return []*Tensor{g.Sub(y.Exp().Mul(g.SumKeep(dim)))}
	})
	saveOutput(r)
	if isDual(t) {
		// dx - Σ softmax(x)·dx
		jvp(r, func() *Tensor {
			tt := t.tangentOf()
			return tt.Sub(tt.Mul(r.Exp()).SumKeep(dim))
		})
	}
	return r
}
