package tensor

import (
	"slices"
)

// checkIndexTensor panics unless index is an Int64 tensor of t's rank on t's backend.
func checkIndexTensor(op string, t, index *Tensor) {
	if index == nil {
		Panicf(op, ErrArg, "nil index tensor")
	}
	if index.DType() != Int64 {
		PanicHint(op, ErrDType, "convert the index with To(tensor.Int64)", "index must be int64, got %v", index.DType())
	}
	sameBackend(op, t, index)
	if index.Dim() != t.Dim() {
		Panicf(op, ErrShape, "index tensor must have the same number of dimensions as the input tensor (index %v, input %v)", index.shape, t.shape)
	}
}

// Gather collects values along dim: out[i][j][k] = t[index[i][j][k]][j][k] for
// dim 0 (and likewise for other dims), as torch.gather. index is Int64 with t's
// number of dims and index.Size(d) <= t.Size(d) for d != dim; the result has
// index's shape and t's dtype. It panics with ErrIndex when an index is outside
// [0, t.Size(dim)).
func (t *Tensor) Gather(dim int, index *Tensor) *Tensor {
	checkIndexTensor("Gather", t, index)
	if t.Dim() == 0 {
		scalarDim("Gather", dim)
		return t.Reshape(1).Gather(0, index.Reshape(1)).Reshape()
	}
	dim = t.normDim("Gather", dim)
	for d := range t.shape {
		if d != dim && index.shape[d] > t.shape[d] {
			Panicf("Gather", ErrShape, "size of index (%v) exceeds the input's (%v) at dimension %d", index.shape, t.shape, d)
		}
	}
	out := emptyUninit(t.Backend(), t.DType(), index.shape...)
	if out.Numel() == 0 {
		return out
	}
	t.Backend().Gather(out.Raw(), t.Raw(), index.Raw(), dim)
	return out
}

// scalarDim panics unless dim is a valid dim for a 0-d tensor (0 or -1, as in
// PyTorch).
func scalarDim(op string, dim int) {
	if dim != 0 && dim != -1 {
		PanicHint(op, ErrIndex, "a 0-d tensor accepts dim 0 or -1", "dimension %d out of range for a 0-d tensor", dim)
	}
}

// scatterArgs validates a scatter and returns src narrowed to index's shape and
// converted to t's dtype.
func (t *Tensor) scatterArgs(op string, dim int, index, src *Tensor) (int, *Tensor) {
	checkIndexTensor(op, t, index)
	if src == nil {
		Panicf(op, ErrArg, "nil src tensor")
	}
	sameBackend(op, t, src)
	dim = t.normDim(op, dim)
	if src.Dim() != t.Dim() {
		Panicf(op, ErrShape, "src must have the same number of dimensions as the input tensor (src %v, input %v)", src.shape, t.shape)
	}
	for d := range t.shape {
		if index.shape[d] > src.shape[d] {
			Panicf(op, ErrShape, "size of index (%v) exceeds the size of src (%v) at dimension %d", index.shape, src.shape, d)
		}
		if d != dim && index.shape[d] > t.shape[d] {
			Panicf(op, ErrShape, "size of index (%v) exceeds the input's (%v) at dimension %d", index.shape, t.shape, d)
		}
	}
	for d := range src.shape {
		src = src.Narrow(d, 0, index.shape[d])
	}
	return dim, src.To(t.DType())
}

// ScatterInPlace writes src into t along dim: t[index[i][j]][j] = src[i][j] for
// dim 0 (torch.Tensor.scatter_). index is Int64 with t's number of dims,
// index.Size(d) <= src.Size(d) for every d and <= t.Size(d) for d != dim; only
// the part of src covered by index is used. src is converted to t's dtype. When
// an index repeats, the last write in row-major order wins. It bumps t's version
// and returns t.
func (t *Tensor) ScatterInPlace(dim int, index, src *Tensor) *Tensor {
	return t.scatter("ScatterInPlace", dim, index, src, false)
}

// ScatterAddInPlace is ScatterInPlace that adds into t instead of overwriting
// (torch.Tensor.scatter_add_); repeated indices accumulate. Numeric dtypes only.
func (t *Tensor) ScatterAddInPlace(dim int, index, src *Tensor) *Tensor {
	return t.scatter("ScatterAddInPlace", dim, index, src, true)
}

func (t *Tensor) scatter(op string, dim int, index, src *Tensor, acc bool) *Tensor {
	if acc && t.DType() == Bool {
		PanicHint(op, ErrDType, "cast with To(tensor.Int64) first", "%s is not defined for bool tensors", op)
	}
	if t.Dim() == 0 {
		scalarDim(op, dim)
		checkIndexTensor(op, t, index)
		if src == nil || src.Dim() != 0 {
			Panicf(op, ErrShape, "src must have the same number of dimensions as the input tensor (a 0-d tensor)")
		}
		t.Reshape(1).scatter(op, 0, index.Reshape(1), src.Reshape(1), acc)
		return t
	}
	dim, src = t.scatterArgs(op, dim, index, src)
	if index.Numel() > 0 {
		t.Backend().Scatter(t.Raw(), index.Raw(), src.Raw(), dim, acc)
	}
	t.BumpVersion()
	return t
}

// Scatter returns a copy of t with src written along dim at index (torch.scatter);
// see ScatterInPlace for the rules.
func (t *Tensor) Scatter(dim int, index, src *Tensor) *Tensor {
	return t.Clone().scatter("Scatter", dim, index, src, false)
}

// ScatterAdd returns a copy of t with src added along dim at index
// (torch.scatter_add); repeated indices accumulate. Numeric dtypes only.
func (t *Tensor) ScatterAdd(dim int, index, src *Tensor) *Tensor {
	return t.Clone().scatter("ScatterAdd", dim, index, src, true)
}

// checkIndex1D panics unless index is a 1-D (or 0-d) Int64 tensor.
func checkIndex1D(op string, t, index *Tensor) {
	if index == nil {
		Panicf(op, ErrArg, "nil index tensor")
	}
	if index.DType() != Int64 {
		PanicHint(op, ErrDType, "convert the index with To(tensor.Int64)", "index must be int64, got %v", index.DType())
	}
	if index.Dim() > 1 {
		Panicf(op, ErrShape, "index must be 1-D, got shape %v", index.shape)
	}
	sameBackend(op, t, index)
}

// IndexSelect picks the entries index[0], index[1], ... of dim (torch.index_select):
// the result has t's shape with dim resized to len(index). index is a 1-D Int64
// tensor; it panics with ErrIndex when an entry is outside [0, t.Size(dim)). It is
// a Gather with the index broadcast across the other dims.
func (t *Tensor) IndexSelect(dim int, index *Tensor) *Tensor {
	checkIndex1D("IndexSelect", t, index)
	if t.Dim() == 0 {
		return t.Reshape(1).IndexSelect(0, index).Reshape(index.shape...)
	}
	dim = t.normDim("IndexSelect", dim)
	index = index.Reshape(-1)
	k := index.shape[0]
	shape := slices.Clone(t.shape)
	shape[dim] = k
	ishape := make([]int, t.Dim())
	for i := range ishape {
		ishape[i] = 1
	}
	ishape[dim] = k
	out := emptyUninit(t.Backend(), t.DType(), shape...)
	if out.Numel() == 0 {
		return out
	}
	idx := index.Reshape(ishape...).Expand(shape...)
	t.Backend().Gather(out.Raw(), t.Raw(), idx.Raw(), dim)
	return out
}

// IndexFill sets the entries index[0], index[1], ... of dim to value, in place
// (torch.Tensor.index_fill_), bumps t's version and returns t.
func (t *Tensor) IndexFill(dim int, index *Tensor, value float64) *Tensor {
	checkIndex1D("IndexFill", t, index)
	if t.Dim() == 0 {
		t.Reshape(1).IndexFill(0, index, value)
		return t
	}
	dim = t.normDim("IndexFill", dim)
	size := t.shape[dim]
	for _, i := range ToSlice[int64](index) {
		if i < -int64(size) || i >= int64(size) {
			Panicf("IndexFill", ErrIndex, "index %d is out of bounds for dimension %d with size %d", i, dim, size)
		}
		if i < 0 {
			i += int64(size)
		}
		sel := t.Select(dim, int(i))
		t.Backend().Fill(sel.Raw(), value)
	}
	t.BumpVersion()
	return t
}

// OneHot returns an Int64 tensor of shape index.Shape()+[numClasses] with a 1 at
// each index value and 0 elsewhere (torch.nn.functional.one_hot). index must be
// Int64 with values in [0, numClasses); numClasses -1 means max(index)+1.
func OneHot(index *Tensor, numClasses int) *Tensor {
	if index == nil {
		Panicf("OneHot", ErrArg, "nil index tensor")
	}
	if index.DType() != Int64 {
		PanicHint("OneHot", ErrDType, "convert the index with To(tensor.Int64)", "one_hot is only applicable to index tensors (int64), got %v", index.DType())
	}
	vals := ToSlice[int64](index)
	hi := int64(-1)
	for _, v := range vals {
		if v < 0 {
			Panicf("OneHot", ErrIndex, "class values must be non-negative, got %d", v)
		}
		hi = max(hi, v)
	}
	switch {
	case numClasses == -1:
		if len(vals) == 0 {
			Panicf("OneHot", ErrArg, "cannot infer the number of classes from an empty tensor")
		}
		numClasses = int(hi) + 1
	case numClasses < 0:
		Panicf("OneHot", ErrArg, "numClasses must be positive or -1, got %d", numClasses)
	case hi >= int64(numClasses):
		Panicf("OneHot", ErrIndex, "class values must be smaller than num_classes (%d), got %d", numClasses, hi)
	}
	shape := append(slices.Clone(index.shape), numClasses)
	out := EmptyOn(index.Backend(), Int64, shape...)
	if out.Numel() == 0 {
		return out
	}
	idx := index.Unsqueeze(-1)
	one := EmptyOn(index.Backend(), Int64, 1)
	one.Backend().Fill(one.Raw(), 1)
	out.Backend().Scatter(out.Raw(), idx.Raw(), one.Expand(idx.shape...).Raw(), out.Dim()-1, false)
	return out
}

// Cat concatenates tensors along dim (torch.cat). Their dtypes are promoted to a
// common one (bool < int64 < float32 < float64); their shapes must match except
// in dim. As in PyTorch, 1-D tensors of shape [0] are skipped. It panics with
// ErrShape naming the offending tensor's position in ts.
func Cat(dim int, ts ...*Tensor) *Tensor {
	if len(ts) == 0 {
		Panicf("Cat", ErrArg, "expected a non-empty list of tensors")
	}
	var ref *Tensor
	refIdx := 0
	dt := DType(0)
	for i, t := range ts {
		if t == nil {
			Panicf("Cat", ErrArg, "expected a Tensor as element %d in argument 'tensors', but got nil", i)
		}
		if dt == 0 {
			dt = t.DType()
		} else {
			dt = promote(dt, t.DType())
		}
		if ref == nil && !(t.Dim() == 1 && t.shape[0] == 0) {
			ref, refIdx = t, i
		}
	}
	sameBackend("Cat", ts...)
	if ref == nil {
		return EmptyOn(ts[0].Backend(), dt, 0)
	}
	if ref.Dim() == 0 {
		PanicHint("Cat", ErrShape, "use Stack to join scalars into a vector", "zero-dimensional tensor (at position %d) cannot be concatenated", refIdx)
	}
	dim = ref.normDim("Cat", dim)
	total := 0
	for i, t := range ts {
		if t.Dim() == 1 && t.shape[0] == 0 {
			continue
		}
		if t.Dim() != ref.Dim() {
			Panicf("Cat", ErrShape, "tensors must have same number of dimensions: got %d (tensor %d, shape %v) and %d (tensor %d, shape %v)",
				ref.Dim(), refIdx, ref.shape, t.Dim(), i, t.shape)
		}
		for d := range t.shape {
			if d != dim && t.shape[d] != ref.shape[d] {
				PanicHint("Cat", ErrShape, "shapes must match in every dim except the one being concatenated",
					"sizes of tensors must match except in dimension %d: expected size %d but got size %d for tensor number %d in the list (shapes %v and %v)",
					dim, ref.shape[d], t.shape[d], i, ref.shape, t.shape)
			}
		}
		total += t.shape[dim]
	}
	shape := slices.Clone(ref.shape)
	shape[dim] = total
	out := emptyUninit(ref.Backend(), dt, shape...)
	off := 0
	for _, t := range ts {
		if t.Dim() == 1 && t.shape[0] == 0 {
			continue
		}
		n := t.shape[dim]
		if n > 0 && out.Numel() > 0 {
			out.Backend().Copy(out.Narrow(dim, off, n).Raw(), t.Raw())
		}
		off += n
	}
	return out
}

// Stack joins tensors of identical shape along a new dim inserted at position dim
// (torch.stack), promoting dtypes as Cat does. dim may be -1 (append) down to
// -(rank+1).
func Stack(dim int, ts ...*Tensor) *Tensor {
	if len(ts) == 0 {
		Panicf("Stack", ErrArg, "expected a non-empty list of tensors")
	}
	us := make([]*Tensor, len(ts))
	for i, t := range ts {
		if t == nil {
			Panicf("Stack", ErrArg, "expected a Tensor as element %d in argument 'tensors', but got nil", i)
		}
		if !slices.Equal(t.shape, ts[0].shape) {
			Panicf("Stack", ErrShape, "stack expects each tensor to be equal size, but got %v at entry 0 and %v at entry %d", ts[0].shape, t.shape, i)
		}
		n := t.Dim() + 1
		if dim < -n || dim >= n {
			Panicf("Stack", ErrIndex, "dimension %d out of range for a result of %d dims", dim, n)
		}
		us[i] = t.Unsqueeze(dim)
	}
	d := dim
	if d < 0 {
		d += ts[0].Dim() + 1
	}
	return Cat(d, us...)
}
