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

// The reductions and the softmaxes. Each one's rules are declared in
// reduceOps (init, below) and written after its methods. A reduction's
// arguments are a reduceArgs; ops PyTorch names by whether dims were given
// (SumBackward0 over all, SumBackward1 over dims) have an opDef per name.

var (
	sumOp, sumAllOp, meanOp, meanAllOp opDef[reduceArgs]
	varOp, amaxOp, aminOp, logsumexpOp opDef[reduceArgs]
	maxDimOp, minDimOp                 opDef[reduceArgs]
	softmaxOp, logSoftmaxOp            opDef[dimArgs]
	reduceOps                          []rules
)

func init() {
	sumOp = opDef[reduceArgs]{name: "SumBackward1", arity: 1, forward: sumForward, backward: sumBackward, jvp: sumJVP}
	sumAllOp = opDef[reduceArgs]{name: "SumBackward0", arity: 1, forward: sumForward, backward: sumBackward, jvp: sumJVP}
	meanOp = opDef[reduceArgs]{name: "MeanBackward1", arity: 1, forward: meanForward, backward: meanBackward, jvp: meanJVP}
	meanAllOp = opDef[reduceArgs]{name: "MeanBackward0", arity: 1, forward: meanForward, backward: meanBackward, jvp: meanJVP}
	varOp = opDef[reduceArgs]{name: "VarBackward0", arity: 1, forward: varForward, save: saveInputs, backward: varBackward, jvp: varJVP}
	amaxOp = opDef[reduceArgs]{name: "AmaxBackward0", arity: 1, forward: extremeForward, save: saveInputs, saveOut: true, backward: extremeBackward, jvp: extremeJVP}
	aminOp = opDef[reduceArgs]{name: "AminBackward0", arity: 1, forward: extremeForward, save: saveInputs, saveOut: true, backward: extremeBackward, jvp: extremeJVP}
	maxDimOp = opDef[reduceArgs]{name: "MaxBackward0", arity: 1, forward: extremeDimForward, backward: extremeDimBackward, jvp: extremeDimJVP}
	minDimOp = opDef[reduceArgs]{name: "MinBackward0", arity: 1, forward: extremeDimForward, backward: extremeDimBackward, jvp: extremeDimJVP}
	logsumexpOp = opDef[reduceArgs]{name: "LogsumexpBackward0", arity: 1, forward: logsumexpForward, save: saveInputs, saveOut: true, backward: logsumexpBackward, jvp: logsumexpJVP}
	softmaxOp = opDef[dimArgs]{name: "SoftmaxBackward0", arity: 1, forward: softmaxForward, saveOut: true, backward: softmaxBackward, jvp: softmaxJVP}
	logSoftmaxOp = opDef[dimArgs]{name: "LogSoftmaxBackward0", arity: 1, forward: logSoftmaxForward, saveOut: true, backward: logSoftmaxBackward, dataBackward: logSoftmaxDataBackward, jvp: logSoftmaxJVP}

	reduceOps = []rules{sumOp.done(), sumAllOp.done(), meanOp.done(), meanAllOp.done(), varOp.done(),
		amaxOp.done(), aminOp.done(), maxDimOp.done(), minDimOp.done(), logsumexpOp.done(),
		softmaxOp.done(), logSoftmaxOp.done()}
}

// reduceArgs are a reduction's arguments: the dims as given and resolved
// (nd, sorted), whether they are kept, the input's shape, and what some
// reductions need besides (Var's unbiased, Amax's max, MaxDim's dim).
type reduceArgs struct {
	dims, nd []int
	keep     bool
	in       inMeta
	unbiased bool           // Var: divide by n-1
	max      bool           // Amax, MaxDim (else Amin, MinDim)
	dim      int            // MaxDim, MinDim: the dim, resolved
	idx      *tensor.Tensor // MaxDim, MinDim: the indices, with dim kept
}

// newReduce resolves dims for a reduction of t.
func newReduce(t *Tensor, keep bool, dims []int) reduceArgs {
	return reduceArgs{dims: dims, nd: normDims(t.data.Raw().Shape, dims), keep: keep, in: metaOf(t)}
}

// count is the number of elements each output element reduces.
func (p *reduceArgs) count() int {
	n := 1
	for _, d := range p.nd {
		if d < p.in.ndim() {
			n *= p.in.dim(d)
		}
	}
	return n
}

// unreduce brings a reduced gradient back to the input's shape.
func (p *reduceArgs) unreduce(g *Tensor) *Tensor { return unreduce(g, p.in.shape(), p.nd, p.keep) }

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
	if len(dims) == 0 {
		return sumAllOp.run(newReduce(t, keep, dims), one(t))
	}
	return sumOp.run(newReduce(t, keep, dims), one(t))
}

func sumForward(p reduceArgs, x ins) *tensor.Tensor {
	if p.keep {
		return x[0].data.SumKeep(p.dims...)
	}
	return x[0].data.Sum(p.dims...)
}

func sumBackward(p reduceArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{p.unreduce(g)}
}

func sumJVP(p reduceArgs, x ins, _ *Tensor) *Tensor { return x[0].tangentOf().sum(p.keep, p.dims) }

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
	if len(dims) == 0 {
		return meanAllOp.run(newReduce(t, keep, dims), one(t))
	}
	return meanOp.run(newReduce(t, keep, dims), one(t))
}

func meanForward(p reduceArgs, x ins) *tensor.Tensor {
	if p.keep {
		return x[0].data.MeanKeep(p.dims...)
	}
	return x[0].data.Mean(p.dims...)
}

func meanBackward(p reduceArgs, g *Tensor, _ []*Tensor) []*Tensor {
	return []*Tensor{p.unreduce(g.Div(float64(p.count())))}
}

func meanJVP(p reduceArgs, x ins, _ *Tensor) *Tensor { return x[0].tangentOf().mean(p.keep, p.dims) }

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
	p := newReduce(t, keep, dims)
	p.unbiased = unbiased
	return varOp.run(p, one(t))
}

// den is Var's divisor: n, or n-1 when unbiased.
func (p *reduceArgs) den() float64 {
	if p.unbiased {
		return float64(p.count() - 1)
	}
	return float64(p.count())
}

func varForward(p reduceArgs, x ins) *tensor.Tensor {
	if p.keep {
		return x[0].data.VarKeep(p.unbiased, p.dims...)
	}
	return x[0].data.Var(p.unbiased, p.dims...)
}

func varBackward(p reduceArgs, g *Tensor, s []*Tensor) []*Tensor {
	x := s[0]
	centered := x.Sub(x.MeanKeep(p.nd...))
	// Scale the (reduced, smaller) gradient before it is broadcast.
	return []*Tensor{p.unreduce(g.Mul(2 / p.den())).Mul(centered)}
}

// varJVP is 2/den · Σ (x - mean)·dx (the mean of dx drops out:
// Σ (x - mean) = 0).
func varJVP(p reduceArgs, x ins, _ *Tensor) *Tensor {
	t := x[0]
	centered := t.Sub(t.MeanKeep(p.nd...))
	return centered.Mul(t.tangentOf()).sum(p.keep, p.nd).Mul(2 / p.den())
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
	return t.extreme(true, false, dims)
}

// AmaxKeep is Amax keeping the reduced dims.
func (t *Tensor) AmaxKeep(dims ...int) *Tensor {
	t.self("AmaxKeep")
	return t.extreme(true, true, dims)
}

// Amin is the minimum over dims; ties share the gradient evenly.
func (t *Tensor) Amin(dims ...int) *Tensor {
	t.self("Amin")
	return t.extreme(false, false, dims)
}

// AminKeep is Amin keeping the reduced dims.
func (t *Tensor) AminKeep(dims ...int) *Tensor {
	t.self("AminKeep")
	return t.extreme(false, true, dims)
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

func (t *Tensor) extreme(isMax, keep bool, dims []int) *Tensor {
	p := newReduce(t, keep, dims)
	p.max = isMax
	if isMax {
		return amaxOp.run(p, one(t))
	}
	return aminOp.run(p, one(t))
}

func extremeForward(p reduceArgs, x ins) *tensor.Tensor {
	d := x[0].data
	switch {
	case p.max && p.keep:
		return d.AmaxKeep(p.dims...)
	case p.max:
		return d.Amax(p.dims...)
	case p.keep:
		return d.AminKeep(p.dims...)
	}
	return d.Amin(p.dims...)
}

// extremeWeights are the weights of the extreme elements of x, whose
// extremes are y: 1/count at the elements equal to their extreme (ties share
// evenly), 0 elsewhere.
func (p *reduceArgs) extremeWeights(x, y *tensor.Tensor) *Tensor {
	mask := x.Eq(p.unreduce(wrap(y)).data).To(x.DType())
	return wrap(mask.Div(mask.SumKeep(p.nd...)))
}

func extremeBackward(p reduceArgs, g *Tensor, s []*Tensor) []*Tensor {
	return []*Tensor{p.unreduce(g).Mul(p.extremeWeights(s[0].data, s[1].data))}
}

// extremeJVP is the tangents of the extreme elements, averaged over ties
// (as backward splits the gradient).
func extremeJVP(p reduceArgs, x ins, out *Tensor) *Tensor {
	return x[0].tangentOf().Mul(p.extremeWeights(x[0].data, out.data)).sum(p.keep, p.nd)
}

// MaxDim returns the maximum along dim and its indices (Int64, no gradient).
// The gradient goes to the position of the returned index.
func (t *Tensor) MaxDim(dim int, keepdim bool) (values, indices *Tensor) {
	t.self("MaxDim")
	return t.extremeDim(true, keepdim, dim)
}

// MinDim returns the minimum along dim and its indices.
func (t *Tensor) MinDim(dim int, keepdim bool) (values, indices *Tensor) {
	t.self("MinDim")
	return t.extremeDim(false, keepdim, dim)
}

func (t *Tensor) extremeDim(isMax, keep bool, dim int) (*Tensor, *Tensor) {
	var v, idx *tensor.Tensor
	d := &maxDimOp
	if isMax {
		v, idx = t.data.MaxDim(dim, keep)
	} else {
		v, idx = t.data.MinDim(dim, keep)
		d = &minDimOp
	}
	p := reduceArgs{keep: keep, in: metaOf(t), max: isMax, dims: []int{dim}}
	p.dim = normDims(t.data.Raw().Shape, p.dims)[0]
	p.idx = idx
	if !keep && t.Dim() > 0 {
		p.idx = idx.Unsqueeze(p.dim)
	}
	return d.finish(p, one(t), v), wrap(idx)
}

func extremeDimForward(p reduceArgs, x ins) *tensor.Tensor {
	if p.max {
		v, _ := x[0].data.MaxDim(p.dims[0], p.keep)
		return v
	}
	v, _ := x[0].data.MinDim(p.dims[0], p.keep)
	return v
}

func extremeDimBackward(p reduceArgs, g *Tensor, _ []*Tensor) []*Tensor {
	if p.in.ndim() == 0 {
		return []*Tensor{g}
	}
	if !p.keep {
		g = g.Unsqueeze(p.dim)
	}
	z := wrap(tensor.Zeros(g.DType(), p.in.shape()...))
	return []*Tensor{z.ScatterAdd(p.dim, wrap(p.idx), g)}
}

// extremeDimJVP is the tangent at the returned index.
func extremeDimJVP(p reduceArgs, x ins, _ *Tensor) *Tensor {
	tt := x[0].tangentOf()
	if p.in.ndim() == 0 {
		return tt
	}
	v := tt.Gather(p.dim, wrap(p.idx))
	if !p.keep {
		v = v.Squeeze(p.dim)
	}
	return v
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
	return logsumexpOp.run(newReduce(t, false, dims), one(t))
}

// LogSumExpKeep is LogSumExp keeping the reduced dims.
func (t *Tensor) LogSumExpKeep(dims ...int) *Tensor {
	t.self("LogSumExpKeep")
	return logsumexpOp.run(newReduce(t, true, dims), one(t))
}

func logsumexpForward(p reduceArgs, x ins) *tensor.Tensor {
	if p.keep {
		return x[0].data.LogSumExpKeep(p.dims...)
	}
	return x[0].data.LogSumExp(p.dims...)
}

func logsumexpBackward(p reduceArgs, g *Tensor, s []*Tensor) []*Tensor {
	x, y := s[0], s[1]
	sm := x.Sub(p.unreduce(y)).Exp()
	return []*Tensor{p.unreduce(g).Mul(sm)}
}

// logsumexpJVP is Σ softmax(x)·dx over dims.
func logsumexpJVP(p reduceArgs, x ins, out *Tensor) *Tensor {
	sm := x[0].Sub(p.unreduce(wrap(out.data))).Exp()
	return x[0].tangentOf().Mul(sm).sum(p.keep, p.nd)
}

// dimArgs is the dim of Softmax and LogSoftmax.
type dimArgs struct{ dim int }

// Softmax returns exp(x) / Σ exp(x) along dim, computed stably.
// Backward: y·(g - Σ g·y) with y the saved output.
func (t *Tensor) Softmax(dim int) *Tensor {
	t.self("Softmax")
	return softmaxOp.run(dimArgs{dim}, one(t))
}

func softmaxForward(p dimArgs, x ins) *tensor.Tensor { return x[0].data.Softmax(p.dim) }

func softmaxBackward(p dimArgs, g *Tensor, s []*Tensor) []*Tensor {
	y := s[0]
	return []*Tensor{y.Mul(g.Sub(g.Mul(y).SumKeep(p.dim)))}
}

// softmaxJVP is y·(dx - Σ y·dx).
func softmaxJVP(p dimArgs, x ins, out *Tensor) *Tensor {
	tt := x[0].tangentOf()
	return out.Mul(tt.Sub(tt.Mul(out).SumKeep(p.dim)))
}

// LogSoftmax returns x - logsumexp(x) along dim.
// Backward: g - softmax·Σ g, with softmax = exp(saved output).
func (t *Tensor) LogSoftmax(dim int) *Tensor {
	t.self("LogSoftmax")
	return logSoftmaxOp.run(dimArgs{dim}, one(t))
}

func logSoftmaxForward(p dimArgs, x ins) *tensor.Tensor { return x[0].data.LogSoftmax(p.dim) }

func logSoftmaxBackward(p dimArgs, g *Tensor, s []*Tensor) []*Tensor {
	y := s[0]
	return []*Tensor{g.Sub(y.Exp().Mul(g.SumKeep(p.dim)))}
}

// logSoftmaxDataBackward is the same operations on the data, the product
// into exp's result.
func logSoftmaxDataBackward(p dimArgs, g *Tensor, s []*Tensor) []*Tensor {
	sm := s[0].data.Exp().MulInPlace(g.data.SumKeep(p.dim))
	return []*Tensor{wrap(tensor.Sub(g.data, sm))}
}

// logSoftmaxJVP is dx - Σ softmax(x)·dx.
func logSoftmaxJVP(p dimArgs, x ins, out *Tensor) *Tensor {
	tt := x[0].tangentOf()
	return tt.Sub(tt.Mul(out.Exp()).SumKeep(p.dim))
}
