package tensor

import (
	"reflect"
	"slices"
	"sync/atomic"
)

// storage is the buffer shared by a tensor and all its views, with the version
// counter that in-place writes bump (autograd uses it to detect stale saved tensors).
type storage struct {
	buf     Buffer
	be      Backend
	version atomic.Uint64
	// id numbers a recyclable buffer (see recycle.go); 0 for the others.
	id uint64
}

// Tensor is a dense n-dimensional array: a strided view of a buffer on some
// backend. Views (Transpose, Reshape of contiguous data, Expand, Narrow, Squeeze,
// ...) share the buffer with the tensor they came from, as in PyTorch; ordinary
// ops allocate a new result and never modify their operands. Methods whose name
// ends in an underscore (AddInPlace_ style is avoided; see the In-place section of
// the package doc) write into the receiver and bump its version.
type Tensor struct {
	st      *storage
	shape   []int
	strides []int
	offset  int
}

// inlineDims is the largest rank whose shape and strides live in the same
// allocation as the tensor.
const inlineDims = 4

// tensorBlock is a tensor with its storage and room for the shape and strides of
// up to inlineDims dims: small tensors are made by the million in autograd loops,
// and this makes each one a single allocation (plus its buffer).
type tensorBlock struct {
	t    Tensor
	s    storage
	dims [2 * inlineDims]int
}

func newTensor(be Backend, buf Buffer, shape []int) *Tensor {
	return new(tensorBlock).init(be, buf, shape)
}

func (b *tensorBlock) init(be Backend, buf Buffer, shape []int) *Tensor {
	return initTensor(&b.t, &b.s, b.dims[:], be, buf, shape)
}

// lowRankBlock is tensorBlock for 0-d and 1-d tensors (48 bytes smaller).
type lowRankBlock struct {
	t    Tensor
	s    storage
	dims [2]int
}

// initTensor sets up t as a contiguous tensor of shape over buf, with storage s,
// keeping its shape and strides in room when they fit.
func initTensor(t *Tensor, s *storage, room []int, be Backend, buf Buffer, shape []int) *Tensor {
	n := len(shape)
	var dims []int
	if 2*n <= len(room) {
		dims = room[: 2*n : 2*n]
	} else {
		dims = make([]int, 2*n)
	}
	sh, st := dims[:n:n], dims[n:]
	copy(sh, shape)
	for i, s := n-1, 1; i >= 0; i-- {
		st[i] = s
		s *= sh[i]
	}
	s.buf, s.be = buf, be
	*t = Tensor{st: s, shape: sh, strides: st}
	return t
}

// newSmallHost makes a zeroed CPU tensor of at most smallElems elements and
// inlineDims dims with one allocation for the tensor, its storage, shape,
// strides, buffer and elements.
func newSmallHost[T Elem](be Backend, shape []int, n int) *Tensor {
	switch {
	case n <= 4 && len(shape) <= 1:
		// Scalars and short vectors, the bulk of what autograd loops make.
		b := &struct {
			tb lowRankBlock
			h  hostBuf[T]
			a  [4]T
		}{}
		b.h.s = b.a[:n:n]
		return initTensor(&b.tb.t, &b.tb.s, b.tb.dims[:], be, &b.h, shape)
	case n <= 4:
		b := &struct {
			tb tensorBlock
			h  hostBuf[T]
			a  [4]T
		}{}
		b.h.s = b.a[:n:n]
		return b.tb.init(be, &b.h, shape)
	case n <= 16:
		b := &struct {
			tb tensorBlock
			h  hostBuf[T]
			a  [16]T
		}{}
		b.h.s = b.a[:n:n]
		return b.tb.init(be, &b.h, shape)
	case n <= 32:
		b := &struct {
			tb tensorBlock
			h  hostBuf[T]
			a  [32]T
		}{}
		b.h.s = b.a[:n:n]
		return b.tb.init(be, &b.h, shape)
	}
	b := &struct {
		tb tensorBlock
		h  hostBuf[T]
		a  [smallElems]T
	}{}
	b.h.s = b.a[:n:n]
	return b.tb.init(be, &b.h, shape)
}

// Empty returns an uninitialised-looking (in fact zeroed) tensor of the given dtype
// and shape on the default backend.
func Empty(dt DType, shape ...int) *Tensor { return EmptyOn(Default(), dt, shape...) }

// EmptyOn is Empty on a given backend.
func EmptyOn(be Backend, dt DType, shape ...int) *Tensor {
	if !dt.valid() {
		Panicf("Empty", ErrDType, "unknown dtype %v", dt)
	}
	n := checkAlloc("Empty", dt, shape)
	if _, cpu := be.(CPU); cpu && n <= smallElems && len(shape) <= inlineDims {
		switch dt {
		case Float32:
			return newSmallHost[float32](be, shape, n)
		case Float64:
			return newSmallHost[float64](be, shape, n)
		case Bool:
			return newSmallHost[bool](be, shape, n)
		case Int64:
			return newSmallHost[int64](be, shape, n)
		}
	}
	return newTensor(be, be.Alloc(dt, n), shape)
}

// checkShape returns the number of elements of shape, panicking with ErrShape
// for a negative dim or a count that overflows an int.
func checkShape(op string, shape []int) int { return mustNumel(op, shape) }

func contiguousStrides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
	return st
}

// FromSlice makes a tensor that copies data ([]float32, []float64, []bool, []int64,
// or []int, which becomes Int64) with the given shape; with no shape it is 1-D.
func FromSlice[T Elem | ~int](data []T, shape ...int) *Tensor {
	var buf Buffer
	be := Default()
	switch d := any(data).(type) {
	case []int:
		c := make([]int64, len(d))
		for i, v := range d {
			c[i] = int64(v)
		}
		buf = be.FromSlice(c)
	case []float32, []float64, []bool, []int64:
		buf = be.FromSlice(slices.Clone(data))
	default:
		buf = be.FromSlice(underlyingCopy(data))
	}
	if len(shape) == 0 && buf.Len() >= 0 {
		shape = []int{len(data)}
	}
	if n := checkShape("FromSlice", shape); n != len(data) {
		PanicHint("FromSlice", ErrShape, "the product of the shape must equal the number of elements",
			"shape %v needs %d elements, got %d", shape, n, len(data))
	}
	return newTensor(be, buf, shape)
}

// underlyingCopy copies a slice whose elements have a named type (type Celsius
// float64) into a new slice of the basic type beneath it (int becomes int64).
func underlyingCopy(data any) any {
	v := reflect.ValueOf(data)
	n := v.Len()
	switch v.Type().Elem().Kind() {
	case reflect.Float32:
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(v.Index(i).Float())
		}
		return out
	case reflect.Float64:
		out := make([]float64, n)
		for i := range out {
			out[i] = v.Index(i).Float()
		}
		return out
	case reflect.Bool:
		out := make([]bool, n)
		for i := range out {
			out[i] = v.Index(i).Bool()
		}
		return out
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = v.Index(i).Int()
	}
	return out
}

// Scalar returns a 0-d tensor holding v (Float64 for float64, Float32 for float32,
// Int64 for int/int64, Bool for bool).
func Scalar[T Elem | ~int](v T) *Tensor { return FromSlice([]T{v}).Reshape() }

// Shape returns a copy of the tensor's shape.
func (t *Tensor) Shape() []int { return slices.Clone(t.shape) }

// Strides returns a copy of the tensor's strides, in elements.
func (t *Tensor) Strides() []int { return slices.Clone(t.strides) }

// Stride returns the stride of dim d in elements (negative d counts from the
// end), as PyTorch's t.stride(d).
func (t *Tensor) Stride(d int) int { return t.strides[t.realDim("Stride", d)] }

// Offset is the position of the first element in the underlying buffer.
func (t *Tensor) Offset() int { return t.offset }

// Dim is the number of dimensions (0 for a scalar).
func (t *Tensor) Dim() int { return len(t.shape) }

// Size returns the size of dimension d (negative d counts from the end).
func (t *Tensor) Size(d int) int { return t.shape[t.realDim("Size", d)] }

// Numel is the number of elements.
func (t *Tensor) Numel() int {
	n := 1
	for _, s := range t.shape {
		n *= s
	}
	return n
}

// DType is the element type.
func (t *Tensor) DType() DType { return t.st.buf.DType() }

// Backend is the backend that owns the tensor's buffer.
func (t *Tensor) Backend() Backend { return t.st.be }

// Version counts in-place writes to the tensor's storage (shared by all views).
func (t *Tensor) Version() uint64 { return t.st.version.Load() }

// BumpVersion records an in-place write made outside the tensor package.
func (t *Tensor) BumpVersion() { t.st.version.Add(1) }

// SameStorage reports whether t and u view the same buffer.
func (t *Tensor) SameStorage(u *Tensor) bool { return t.st == u.st }

// Raw returns the backend view of t (buffer, shape, strides, offset).
func (t *Tensor) Raw() View {
	return View{Buf: t.st.buf, Shape: t.shape, Strides: t.strides, Offset: t.offset}
}

// IsContiguous reports whether t is laid out row-major with no gaps.
func (t *Tensor) IsContiguous() bool {
	s := 1
	for i := len(t.shape) - 1; i >= 0; i-- {
		if t.shape[i] != 1 && t.strides[i] != s {
			return false
		}
		s *= t.shape[i]
	}
	return true
}

func (t *Tensor) normDim(op string, d int) int {
	n := len(t.shape)
	// A 0-d tensor accepts dims 0 and -1, as in PyTorch.
	if lim := max(n, 1); d < -lim || d >= lim {
		PanicHint(op, ErrIndex, "valid dims are -n..n-1 for a tensor of n dims",
			"dimension %d out of range for a %d-d tensor of shape %v", d, n, t.shape)
	}
	if n == 0 {
		return 0
	}
	if d < 0 {
		d += n
	}
	return d
}

// realDim is normDim for ops that need an actual dimension to index: it
// rejects every dim of a 0-d tensor.
func (t *Tensor) realDim(op string, d int) int {
	if len(t.shape) == 0 {
		PanicHint(op, ErrIndex, "a 0-d tensor has no dims; Unsqueeze(0) makes it 1-d",
			"dimension %d out of range for a 0-d tensor", d)
	}
	return t.normDim(op, d)
}

func (t *Tensor) view(shape, strides []int, offset int) *Tensor {
	return &Tensor{st: t.st, shape: shape, strides: strides, offset: offset}
}

// Clone returns a contiguous copy of t with its own storage.
func (t *Tensor) Clone() *Tensor {
	out := emptyUninit(t.st.be, t.DType(), t.shape...)
	t.st.be.Copy(out.Raw(), t.Raw())
	return out
}

// Contiguous returns t itself when it is contiguous, else a contiguous copy.
func (t *Tensor) Contiguous() *Tensor {
	if t.IsContiguous() {
		return t
	}
	return t.Clone()
}

// To returns t converted to dtype dt (t itself if it already has that dtype).
// Float to Int64 truncates toward zero; to Bool is "!= 0".
func (t *Tensor) To(dt DType) *Tensor {
	if t.DType() == dt {
		return t
	}
	if !dt.valid() {
		Panicf("To", ErrDType, "unknown dtype %v", dt)
	}
	out := emptyUninit(t.st.be, dt, t.shape...)
	t.st.be.Copy(out.Raw(), t.Raw())
	return out
}

// ToBackend returns a copy of t on backend be (t itself if it is already there).
func (t *Tensor) ToBackend(be Backend) *Tensor {
	if t.st.be == be {
		return t
	}
	return newTensor(be, be.FromSlice(t.st.be.ToSlice(t.Raw())), t.shape)
}

// CopyFrom copies src (broadcast to t's shape, converted to t's dtype) into t, in
// place, and bumps t's version.
func (t *Tensor) CopyFrom(src *Tensor) *Tensor {
	sameBackend("CopyFrom", t, src)
	s := src.broadcastTo("CopyFrom", t.shape)
	checkWrite("CopyFrom", t, src)
	t.st.be.Copy(t.Raw(), s.Raw())
	t.BumpVersion()
	return t
}

// Fill sets every element to v, in place, and bumps the version.
func (t *Tensor) Fill(v float64) *Tensor {
	t.st.be.Fill(t.Raw(), v)
	t.BumpVersion()
	return t
}

func sameBackend(op string, ts ...*Tensor) {
	for _, u := range ts[1:] {
		if u.st.be != ts[0].st.be {
			PanicHint(op, ErrDevice, "move tensors with ToBackend first",
				"operands live on different backends (%s and %s)", ts[0].st.be.Name(), u.st.be.Name())
		}
	}
}
