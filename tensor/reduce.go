package tensor

import (
	"math"
	"slices"
)

// Reductions follow PyTorch. dims may be negative (counted from the end); an empty
// list reduces over every dim; naming a dim twice panics with ErrArg. The plain
// forms drop the reduced dims, the ...Keep forms keep them with size 1 (PyTorch's
// keepdim=True), so the result broadcasts against the input.

var reduceNames = map[ReduceOp]string{
	OpSum: "Sum", OpProd: "Prod", OpMax: "Amax", OpMin: "Amin", OpArgMax: "ArgMax", OpArgMin: "ArgMin",
}

// String returns the op's name.
func (op ReduceOp) String() string { return reduceNames[op] }

// reduceDims normalises dims for t and returns them sorted (all dims if empty).
func (t *Tensor) reduceDims(op string, dims []int) []int {
	if len(dims) == 0 {
		out := make([]int, t.Dim())
		for i := range out {
			out[i] = i
		}
		return out
	}
	seen := make([]bool, max(1, t.Dim()))
	out := make([]int, 0, len(dims))
	for _, d := range dims {
		nd := t.normDim(op, d)
		if seen[nd] {
			Panicf(op, ErrArg, "dim %d appears multiple times in the list of dims %v", nd, dims)
		}
		seen[nd] = true
		if t.Dim() > 0 {
			out = append(out, nd)
		}
	}
	slices.Sort(out)
	return out
}

// keptShape is t's shape with the dims in ds set to 1.
func keptShape(shape, ds []int) []int {
	s := slices.Clone(shape)
	for _, d := range ds {
		s[d] = 1
	}
	return s
}

// dropShape is t's shape without the dims in ds.
func dropShape(shape, ds []int) []int {
	var s []int
	for i, x := range shape {
		if !slices.Contains(ds, i) {
			s = append(s, x)
		}
	}
	return s
}

func (t *Tensor) reduceCount(ds []int) int {
	n := 1
	for _, d := range ds {
		n *= t.shape[d]
	}
	return n
}

// reduce runs a Sum/Prod/Max/Min primitive; name is used in errors.
func (t *Tensor) reduce(name string, op ReduceOp, dims []int, keep bool) *Tensor {
	ds := t.reduceDims(name, dims)
	x := t
	back := DType(0)
	switch t.DType() {
	case Bool:
		x = t.To(Int64)
		if op == OpMax || op == OpMin {
			back = Bool
		}
	}
	if (op == OpMax || op == OpMin) && t.reduceCount(ds) == 0 {
		PanicHint(name, ErrShape, "the reduction needs at least one element; use Sum for empty inputs",
			"cannot reduce over a zero-size dim of shape %v (dims %v)", t.shape, ds)
	}
	var room [8]int // the kept shape, on the stack for up to 8 dims
	ks := append(room[:0], t.shape...)
	for _, d := range ds {
		ks[d] = 1
	}
	out := EmptyOn(t.Backend(), x.DType(), ks...)
	out.Backend().Reduce(op, out.Raw(), x.Raw(), ds)
	if back != 0 {
		out = out.To(back)
	}
	if !keep {
		s := dropShape(t.shape, ds)
		out = out.view(s, contiguousStrides(s), 0)
	}
	return out
}

// Sum adds the elements over dims (all dims if none). Bool and Int64 give Int64;
// floats keep their dtype. An empty reduction gives 0. A large float sum
// split over the cores gives the bits of the serial one, except where no
// kept dim has as many entries as GOMAXPROCS and the source is a strided
// view or a reduced dim comes before a kept one (both of more than one
// entry): there the cores' partial sums are added in a fixed order, and the
// last bits depend on GOMAXPROCS.
func (t *Tensor) Sum(dims ...int) *Tensor { return t.reduce("Sum", OpSum, dims, false) }

// SumKeep is Sum keeping the reduced dims with size 1.
func (t *Tensor) SumKeep(dims ...int) *Tensor { return t.reduce("Sum", OpSum, dims, true) }

// Prod multiplies the elements over dims (all dims if none); Bool gives Int64.
// An empty reduction gives 1.
func (t *Tensor) Prod(dims ...int) *Tensor { return t.reduce("Prod", OpProd, dims, false) }

// ProdKeep is Prod keeping the reduced dims.
func (t *Tensor) ProdKeep(dims ...int) *Tensor { return t.reduce("Prod", OpProd, dims, true) }

// Amax is the maximum over dims (all dims if none); NaN propagates. It panics
// with ErrShape when a reduced dim has size 0.
func (t *Tensor) Amax(dims ...int) *Tensor { return t.reduce("Amax", OpMax, dims, false) }

// AmaxKeep is Amax keeping the reduced dims.
func (t *Tensor) AmaxKeep(dims ...int) *Tensor { return t.reduce("Amax", OpMax, dims, true) }

// Amin is the minimum over dims (all dims if none); NaN propagates.
func (t *Tensor) Amin(dims ...int) *Tensor { return t.reduce("Amin", OpMin, dims, false) }

// AminKeep is Amin keeping the reduced dims.
func (t *Tensor) AminKeep(dims ...int) *Tensor { return t.reduce("Amin", OpMin, dims, true) }

// Max is the maximum of all elements, a 0-d tensor (NaN if any element is NaN).
func (t *Tensor) Max() *Tensor { return t.reduce("Max", OpMax, nil, false) }

// Min is the minimum of all elements, a 0-d tensor.
func (t *Tensor) Min() *Tensor { return t.reduce("Min", OpMin, nil, false) }

func (t *Tensor) needFloat(op string) {
	if !t.DType().IsFloat() {
		PanicHint(op, ErrDType, "convert with To(tensor.Float32) first",
			"%s needs a floating-point tensor, got %v", op, t.DType())
	}
}

func (t *Tensor) mean(dims []int, keep bool) *Tensor {
	t.needFloat("Mean")
	ds := t.reduceDims("Mean", dims)
	s := t.reduce("Mean", OpSum, dims, keep)
	return s.DivInPlace(float64(t.reduceCount(ds)))
}

// Mean is the arithmetic mean over dims (all dims if none): Sum / count. It needs
// a float tensor (integer input panics with ErrDType, as in PyTorch); an empty
// reduction gives NaN.
func (t *Tensor) Mean(dims ...int) *Tensor { return t.mean(dims, false) }

// MeanKeep is Mean keeping the reduced dims.
func (t *Tensor) MeanKeep(dims ...int) *Tensor { return t.mean(dims, true) }

func (t *Tensor) variance(unbiased bool, dims []int, keep bool) *Tensor {
	t.needFloat("Var")
	ds := t.reduceDims("Var", dims)
	d := t.Sub(t.mean(dims, true))
	ss := d.MulInPlace(d).reduce("Var", OpSum, dims, keep)
	n := t.reduceCount(ds)
	if unbiased {
		n--
	}
	return ss.DivInPlace(float64(max(n, 0)))
}

// Var is the variance over dims (all dims if none): sum((x - mean)^2) / (N - c),
// with Bessel's correction c = 1 when unbiased, else 0. Float tensors only. With
// N - c <= 0 the result is Inf or NaN, as in PyTorch.
func (t *Tensor) Var(unbiased bool, dims ...int) *Tensor { return t.variance(unbiased, dims, false) }

// VarKeep is Var keeping the reduced dims.
func (t *Tensor) VarKeep(unbiased bool, dims ...int) *Tensor {
	return t.variance(unbiased, dims, true)
}

// Std is the standard deviation, Sqrt(Var(unbiased, dims...)).
func (t *Tensor) Std(unbiased bool, dims ...int) *Tensor {
	v := t.variance(unbiased, dims, false)
	return UnaryTo(v, OpSqrt, v)
}

// StdKeep is Std keeping the reduced dims.
func (t *Tensor) StdKeep(unbiased bool, dims ...int) *Tensor {
	v := t.variance(unbiased, dims, true)
	return UnaryTo(v, OpSqrt, v)
}

// argReduce returns Int64 indices of the extreme along dim.
func (t *Tensor) argReduce(name string, op ReduceOp, dim int, keep bool) *Tensor {
	d := t.normDim(name, dim)
	x := t
	if x.Dim() == 0 {
		x = x.Reshape(1)
	}
	if x.DType() == Bool {
		x = x.To(Int64)
	}
	if x.shape[d] == 0 {
		PanicHint(name, ErrShape, "the reduction needs at least one element",
			"cannot reduce over dim %d of size 0 (shape %v)", d, t.shape)
	}
	ks := keptShape(x.shape, []int{d})
	out := EmptyOn(t.Backend(), Int64, ks...)
	out.Backend().Reduce(op, out.Raw(), x.Raw(), []int{d})
	if t.Dim() == 0 {
		return out.view(nil, nil, 0)
	}
	if !keep {
		s := dropShape(x.shape, []int{d})
		out = out.view(s, contiguousStrides(s), 0)
	}
	return out
}

// ArgMax is the index (Int64) of the maximum along dim; ties give the first index
// and NaN counts as the maximum. keepdim keeps dim with size 1.
func (t *Tensor) ArgMax(dim int, keepdim bool) *Tensor {
	return t.argReduce("ArgMax", OpArgMax, dim, keepdim)
}

// ArgMin is the index of the minimum along dim (first on ties, NaN counts as the
// minimum).
func (t *Tensor) ArgMin(dim int, keepdim bool) *Tensor {
	return t.argReduce("ArgMin", OpArgMin, dim, keepdim)
}

// ArgMaxAll is the index of the maximum of the flattened tensor, a 0-d Int64.
func (t *Tensor) ArgMaxAll() *Tensor {
	return t.Reshape(-1).argReduce("ArgMax", OpArgMax, 0, false)
}

// ArgMinAll is the index of the minimum of the flattened tensor, a 0-d Int64.
func (t *Tensor) ArgMinAll() *Tensor {
	return t.Reshape(-1).argReduce("ArgMin", OpArgMin, 0, false)
}

// MaxDim returns the maximum along dim and its index (Int64), like PyTorch's
// torch.max(x, dim, keepdim). Ties give the first index; NaN is the maximum.
func (t *Tensor) MaxDim(dim int, keepdim bool) (values, indices *Tensor) {
	indices = t.argReduce("MaxDim", OpArgMax, dim, keepdim)
	return t.reduce("MaxDim", OpMax, []int{dim}, keepdim), indices
}

// MinDim returns the minimum along dim and its index (Int64).
func (t *Tensor) MinDim(dim int, keepdim bool) (values, indices *Tensor) {
	indices = t.argReduce("MinDim", OpArgMin, dim, keepdim)
	return t.reduce("MinDim", OpMin, []int{dim}, keepdim), indices
}

// logSumExp computes log(sum(exp(x))) over dims, shifted by the maximum for
// stability. Infinite maxima are replaced by 0 before the shift, so a slice of
// all -Inf gives -Inf and a slice containing +Inf gives +Inf (as PyTorch).
func (t *Tensor) logSumExp(dims []int, keep bool) *Tensor {
	x := t
	if !x.DType().IsFloat() {
		x = x.To(Float32)
	}
	ds := x.reduceDims("LogSumExp", dims)
	if x.reduceCount(ds) == 0 {
		// As PyTorch: log of an empty sum, -Inf (there is no maximum to shift by).
		s := x.reduce("LogSumExp", OpSum, dims, keep)
		UnaryTo(s, OpLog, s)
		return s
	}
	m := x.reduce("LogSumExp", OpMax, dims, true)
	m = Where(m.Abs().Eq(math.Inf(1)), 0.0, m)
	var s *Tensor
	if !composeLogSumExp {
		s = sumExpShifted(x, m, ds)
	}
	if s == nil {
		e := x.Sub(m)
		UnaryTo(e, OpExp, e)
		s = e.reduce("LogSumExp", OpSum, dims, true)
	}
	UnaryTo(s, OpLog, s)
	if !keep {
		sh := dropShape(x.shape, ds)
		s = s.view(sh, contiguousStrides(sh), 0)
		m = m.view(sh, contiguousStrides(sh), 0)
	}
	return s.AddInPlace(m)
}

// composeLogSumExp makes logSumExp compose its ops (the tests' reference
// for sumExpShifted).
var composeLogSumExp = false

// LogSumExp is log(sum(exp(x))) over dims (all dims if none), computed stably as
// m + log(sum(exp(x - m))) with m the maximum. Integer input is promoted to Float32.
// Over one dim of a dense CPU tensor (the last in rows of at least 64
// elements, an earlier one from 128 columns) it sums exp(x - m) a row or
// a block of columns at a time, without a whole-size intermediate; the
// results are those of the composed ops to the bit.
func (t *Tensor) LogSumExp(dims ...int) *Tensor { return t.logSumExp(dims, false) }

// LogSumExpKeep is LogSumExp keeping the reduced dims.
func (t *Tensor) LogSumExpKeep(dims ...int) *Tensor { return t.logSumExp(dims, true) }

// Softmax is exp(x) / sum(exp(x)) along dim, computed as exp(x - max) / sum(...)
// so large inputs do not overflow. Float tensors only. Over the last dim of
// a contiguous CPU tensor, in rows of 64 elements or more (and at least a
// row a core when the tensor is large), it works a row at a time, each
// row's steps while it is in cache, into one result; elsewhere it composes
// the ops. Both give the same results to the bit, but for which NaN
// payload a row of several NaNs can give.
func (t *Tensor) Softmax(dim int) *Tensor {
	t.needFloat("Softmax")
	if t.Numel() == 0 { // as PyTorch: an empty result, even over a zero-size dim
		t.reduceDims("Softmax", []int{dim})
		return EmptyOn(t.Backend(), t.DType(), t.shape...)
	}
	if y, ok := softmaxRows(t, t.normDim("Softmax", dim), false); ok {
		return y
	}
	return t.softmaxComposite(dim)
}

// softmaxComposite is Softmax of ops: what softmaxRows fuses for a dense
// last dim.
func (t *Tensor) softmaxComposite(dim int) *Tensor {
	e := t.Sub(t.reduce("Softmax", OpMax, []int{dim}, true))
	UnaryTo(e, OpExp, e)
	return e.DivInPlace(e.reduce("Softmax", OpSum, []int{dim}, true))
}

// LogSoftmax is log(Softmax(x)) along dim, computed as (x - max) - log(sum(exp(x - max))).
// Float tensors only. It works a row at a time where Softmax does, but only
// in rows of 128 elements or more, with the composite's results.
func (t *Tensor) LogSoftmax(dim int) *Tensor {
	t.needFloat("LogSoftmax")
	if t.Numel() == 0 {
		t.reduceDims("LogSoftmax", []int{dim})
		return EmptyOn(t.Backend(), t.DType(), t.shape...)
	}
	if y, ok := softmaxRows(t, t.normDim("LogSoftmax", dim), true); ok {
		return y
	}
	return t.logSoftmaxComposite(dim)
}

// logSoftmaxComposite is LogSoftmax of ops: what softmaxRows fuses for a
// dense last dim.
func (t *Tensor) logSoftmaxComposite(dim int) *Tensor {
	d := t.Sub(t.reduce("LogSoftmax", OpMax, []int{dim}, true))
	e := Unary(OpExp, d)
	s := e.reduce("LogSoftmax", OpSum, []int{dim}, true)
	UnaryTo(s, OpLog, s)
	return d.SubInPlace(s)
}
