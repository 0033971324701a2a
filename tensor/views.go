package tensor

import (
	"slices"
)

// Transpose swaps dims d0 and d1. The result is a view sharing t's storage.
func (t *Tensor) Transpose(d0, d1 int) *Tensor {
	d0, d1 = t.normDim("Transpose", d0), t.normDim("Transpose", d1)
	if t.Dim() == 0 {
		return t.view(nil, nil, t.offset) // PyTorch allows transpose(0, 0) of a scalar
	}
	// The view's shape and strides share one allocation.
	n := t.Dim()
	dims := make([]int, 2*n)
	shape, strides := dims[:n:n], dims[n:]
	copy(shape, t.shape)
	copy(strides, t.strides)
	shape[d0], shape[d1] = shape[d1], shape[d0]
	strides[d0], strides[d1] = strides[d1], strides[d0]
	return t.view(shape, strides, t.offset)
}

// T is the transpose of a tensor with at most 2 dims (a view).
func (t *Tensor) T() *Tensor {
	switch t.Dim() {
	case 0, 1:
		return t
	case 2:
		return t.Transpose(0, 1)
	}
	PanicHint("T", ErrShape, "use Transpose(-2, -1) to swap the last two dims of a batch", "T expects a tensor with <= 2 dims, got shape %v", t.shape)
	return nil
}

// MT swaps the last two dims (a view), like PyTorch's .mT.
func (t *Tensor) MT() *Tensor {
	if t.Dim() < 2 {
		Panicf("MT", ErrShape, "needs at least 2 dims, got shape %v", t.shape)
	}
	return t.Transpose(-2, -1)
}

// Permute reorders the dims: result dim i is t's dim perm[i] (a view).
func (t *Tensor) Permute(perm ...int) *Tensor {
	n := t.Dim()
	if len(perm) != n {
		Panicf("Permute", ErrShape, "got %d dims in permutation %v for a %d-d tensor of shape %v", len(perm), perm, n, t.shape)
	}
	seen := make([]bool, n)
	shape, strides := make([]int, n), make([]int, n)
	for i, p := range perm {
		p = t.normDim("Permute", p)
		if seen[p] {
			Panicf("Permute", ErrArg, "repeated dim %d in permutation %v", p, perm)
		}
		seen[p] = true
		shape[i], strides[i] = t.shape[p], t.strides[p]
	}
	return t.view(shape, strides, t.offset)
}

// inferShape resolves a single -1 entry in shape for n elements.
func inferShape(op string, shape []int, n int, from []int) []int {
	shape = slices.Clone(shape)
	neg := -1
	for i, s := range shape {
		switch {
		case s == -1 && neg < 0:
			neg = i
		case s < 0:
			Panicf(op, ErrShape, "invalid shape %v (only one -1 is allowed)", shape)
		}
	}
	if neg >= 0 {
		shape[neg] = 1
	}
	prod := mustNumel(op, shape) // no wrap-around: [2^62+1, 4] is not 4 elements
	if neg >= 0 {
		shape[neg] = -1
	}
	if neg >= 0 {
		if prod == 0 || n%prod != 0 {
			Panicf(op, ErrShape, "shape %v is invalid for input of size %d (shape %v)", shape, n, from)
		}
		shape[neg] = n / prod
		prod = n
	}
	if prod != n {
		Panicf(op, ErrShape, "shape %v is invalid for input of size %d (shape %v)", shape, n, from)
	}
	return shape
}

// viewStrides computes strides for viewing a layout with a new shape without
// copying, or reports false when the layout does not allow it. Old dims are
// grouped into chunks that are contiguous with each other; each chunk must map
// onto a run of new dims with the same element count.
func viewStrides(oldShape, oldStrides, newShape []int) ([]int, bool) {
	ns := make([]int, len(newShape))
	numel := 1
	for _, s := range oldShape {
		numel *= s
	}
	if len(oldShape) == 0 || numel == 0 {
		return contiguousStrides(newShape), true
	}
	vd := len(newShape) - 1
	base := oldStrides[len(oldStrides)-1]
	tn, vn := 1, 1
	for td := len(oldShape) - 1; td >= 0; td-- {
		tn *= oldShape[td]
		if td == 0 || (oldShape[td-1] != 1 && oldStrides[td-1] != tn*base) {
			for vd >= 0 && (vn < tn || newShape[vd] == 1) {
				ns[vd] = vn * base
				vn *= newShape[vd]
				vd--
			}
			if vn != tn {
				return nil, false
			}
			if td > 0 {
				base = oldStrides[td-1]
				tn, vn = 1, 1
			}
		}
	}
	if vd != -1 {
		return nil, false
	}
	return ns, true
}

// View reshapes t without copying; it panics when t's strides do not allow it
// (as PyTorch's view does). One dim may be -1 and is inferred.
func (t *Tensor) View(shape ...int) *Tensor {
	shape = inferShape("View", shape, t.Numel(), t.shape)
	st, ok := viewStrides(t.shape, t.strides, shape)
	if !ok {
		PanicHint("View", ErrShape, "use Reshape, which copies when it must, or call Contiguous first",
			"view size %v is not compatible with input of shape %v and strides %v", shape, t.shape, t.strides)
	}
	return t.view(shape, st, t.offset)
}

// Reshape returns t with a new shape: a view when the layout allows it, otherwise
// a contiguous copy. One dim may be -1 and is inferred.
func (t *Tensor) Reshape(shape ...int) *Tensor {
	shape = inferShape("Reshape", shape, t.Numel(), t.shape)
	if st, ok := viewStrides(t.shape, t.strides, shape); ok {
		return t.view(shape, st, t.offset)
	}
	c := t.Clone()
	return c.view(shape, contiguousStrides(shape), 0)
}

// Flatten reshapes t to 1-D.
func (t *Tensor) Flatten() *Tensor { return t.Reshape(-1) }

// Expand broadcasts size-1 dims of t to the given shape without copying (stride 0),
// prepending dims as needed; -1 keeps a dim's size.
func (t *Tensor) Expand(shape ...int) *Tensor {
	if len(shape) < t.Dim() {
		Panicf("Expand", ErrShape, "the target shape %v has fewer dims than the tensor's shape %v", shape, t.shape)
	}
	lead := len(shape) - t.Dim()
	ns, nst := make([]int, len(shape)), make([]int, len(shape))
	for i := range shape {
		if i < lead {
			if shape[i] < 0 {
				Panicf("Expand", ErrShape, "-1 is not allowed for a new leading dim in %v", shape)
			}
			ns[i], nst[i] = shape[i], 0
			continue
		}
		s, ts := shape[i], t.shape[i-lead]
		switch {
		case s == -1 || s == ts:
			ns[i], nst[i] = ts, t.strides[i-lead]
		case ts == 1:
			if s < 0 {
				Panicf("Expand", ErrShape, "invalid size %d in %v", s, shape)
			}
			ns[i], nst[i] = s, 0
		default:
			PanicHint("Expand", ErrShape, "only dims of size 1 can be expanded",
				"the expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d; target %v, tensor %v", s, ts, i, shape, t.shape)
		}
	}
	mustNumel("Expand", ns)
	return t.view(ns, nst, t.offset)
}

// Narrow returns the view of length elements of dim starting at start.
func (t *Tensor) Narrow(dim, start, length int) *Tensor {
	dim = t.realDim("Narrow", dim)
	size := t.shape[dim]
	if start < 0 {
		start += size
	}
	if start < 0 || length < 0 || start > size || length > size-start { // no overflow for huge arguments
		Panicf("Narrow", ErrIndex, "start (%d) + length (%d) exceeds dimension size (%d) of dim %d in shape %v", start, length, size, dim, t.shape)
	}
	ns := slices.Clone(t.shape)
	ns[dim] = length
	return t.view(ns, slices.Clone(t.strides), t.offset+start*t.strides[dim])
}

// Slice returns the view of dim from start (inclusive) to stop (exclusive) with a
// positive step, like x[start:stop:step] in Python; negative start/stop count
// from the end and out-of-range bounds are clipped.
func (t *Tensor) Slice(dim, start, stop, step int) *Tensor {
	dim = t.realDim("Slice", dim)
	if step <= 0 {
		Panicf("Slice", ErrArg, "step must be positive, got %d", step)
	}
	size := t.shape[dim]
	clip := func(i int) int {
		if i < 0 {
			i += size
		}
		return max(0, min(i, size))
	}
	start, stop = clip(start), clip(stop)
	n := 0
	if stop > start {
		n = (stop-start-1)/step + 1 // ceil((stop-start)/step) without overflow for huge steps
	}
	ns, nst := slices.Clone(t.shape), slices.Clone(t.strides)
	ns[dim] = n
	nst[dim] *= step
	return t.view(ns, nst, t.offset+start*t.strides[dim])
}

// Select returns the view at index i of dim, with that dim removed.
func (t *Tensor) Select(dim, i int) *Tensor {
	dim = t.realDim("Select", dim)
	size := t.shape[dim]
	if i < -size || i >= size {
		Panicf("Select", ErrIndex, "index %d is out of bounds for dimension %d with size %d", i, dim, size)
	}
	if i < 0 {
		i += size
	}
	ns := slices.Delete(slices.Clone(t.shape), dim, dim+1)
	nst := slices.Delete(slices.Clone(t.strides), dim, dim+1)
	return t.view(ns, nst, t.offset+i*t.strides[dim])
}

// Squeeze removes the given dims if they have size 1, or every size-1 dim when
// none are given (a view).
func (t *Tensor) Squeeze(dims ...int) *Tensor {
	drop := make([]bool, t.Dim())
	if len(dims) == 0 {
		for i, s := range t.shape {
			drop[i] = s == 1
		}
	}
	for _, d := range dims {
		d = t.normDim("Squeeze", d)
		if t.Dim() > 0 {
			drop[d] = t.shape[d] == 1
		}
	}
	var ns, nst []int
	for i := range t.shape {
		if !drop[i] {
			ns = append(ns, t.shape[i])
			nst = append(nst, t.strides[i])
		}
	}
	return t.view(ns, nst, t.offset)
}

// Unsqueeze inserts a size-1 dim at position dim (-1 appends) (a view).
func (t *Tensor) Unsqueeze(dim int) *Tensor {
	n := t.Dim() + 1
	if dim < -n || dim >= n {
		Panicf("Unsqueeze", ErrIndex, "dimension %d out of range for a result of %d dims", dim, n)
	}
	if dim < 0 {
		dim += n
	}
	st := 1
	if dim < t.Dim() {
		st = t.strides[dim] * t.shape[dim]
	}
	ns := slices.Insert(slices.Clone(t.shape), dim, 1)
	nst := slices.Insert(slices.Clone(t.strides), dim, st)
	return t.view(ns, nst, t.offset)
}

// BroadcastShapes returns the shape that operands of the given shapes broadcast to
// under NumPy/PyTorch rules, or panics with ErrShape naming op.
func BroadcastShapes(op string, shapes ...[]int) []int {
	n := 0
	for _, s := range shapes {
		n = max(n, len(s))
	}
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i := range s {
			j := n - len(s) + i
			switch {
			case s[i] == out[j] || s[i] == 1:
			case out[j] == 1:
				out[j] = s[i]
			default:
				PanicHint(op, ErrShape, "sizes must match or be 1 in every dim, aligned from the right",
					"shapes %s are not broadcastable (dim %d: %d vs %d)", fmtShapes(shapes), j-n, out[j], s[i])
			}
		}
	}
	return out
}

func fmtShapes(shapes [][]int) string {
	s := ""
	for i, sh := range shapes {
		if i > 0 {
			s += " and "
		}
		s += shapeString(sh)
	}
	return s
}

func shapeString(s []int) string {
	b := []byte{'['}
	for i, v := range s {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendInt(b, v)
	}
	return string(append(b, ']'))
}

func appendInt(b []byte, v int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// broadcastTo is Expand with broadcasting's error wording.
func (t *Tensor) broadcastTo(op string, shape []int) *Tensor {
	if slices.Equal(t.shape, shape) {
		return t
	}
	BroadcastShapes(op, t.shape, shape)
	if len(shape) < t.Dim() {
		Panicf(op, ErrShape, "cannot broadcast shape %v to %v", t.shape, shape)
	}
	for i := range t.shape {
		if t.shape[i] != 1 && t.shape[i] != shape[len(shape)-t.Dim()+i] {
			Panicf(op, ErrShape, "cannot broadcast shape %v to %v", t.shape, shape)
		}
	}
	return t.Expand(shape...)
}

// BroadcastTo returns t broadcast to shape (a view with stride-0 dims).
func (t *Tensor) BroadcastTo(shape ...int) *Tensor { return t.broadcastTo("BroadcastTo", shape) }
