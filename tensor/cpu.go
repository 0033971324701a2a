package tensor

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/goagx/agx/tensor/internal/vec"
)

// hostBuf is a CPU buffer: a plain Go slice. Buffers hold it by pointer, so
// that storing one in the Buffer interface does not allocate a copy of the slice
// header, and a small buffer can share one allocation with its elements (and,
// through newSmallHost, with its tensor).
type hostBuf[T Elem] struct{ s []T }

func (b *hostBuf[T]) Len() int     { return len(b.s) }
func (b *hostBuf[T]) DType() DType { return DTypeOf[T]() }

// smallElems is the largest element count whose data is allocated together with
// the buffer header (0-d and tiny tensors are made by the million in autograd
// loops). Smaller buffers use blocks of 4, 16 or 32 elements.
const smallElems = 64

// allocHost returns a zeroed CPU buffer of n elements.
func allocHost[T Elem](n int) *hostBuf[T] {
	switch {
	case n <= 4:
		b := &struct {
			h hostBuf[T]
			a [4]T
		}{}
		b.h.s = b.a[:n:n]
		return &b.h
	case n <= 16:
		b := &struct {
			h hostBuf[T]
			a [16]T
		}{}
		b.h.s = b.a[:n:n]
		return &b.h
	case n <= 32:
		b := &struct {
			h hostBuf[T]
			a [32]T
		}{}
		b.h.s = b.a[:n:n]
		return &b.h
	case n <= smallElems:
		b := &struct {
			h hostBuf[T]
			a [smallElems]T
		}{}
		b.h.s = b.a[:n:n]
		return &b.h
	}
	return &hostBuf[T]{s: make([]T, n)}
}

// CPU is the pure-Go CPU backend, named "cpu". It is the default.
type CPU struct{}

var cpuBackend Backend = CPU{}

var defaultBackend atomic.Pointer[Backend]

func init() {
	defaultBackend.Store(&cpuBackend)
}

// Default returns the backend new tensors are created on (the CPU unless
// SetDefault was called).
func Default() Backend { return *defaultBackend.Load() }

// SetDefault makes be the backend for new tensors and returns the previous one.
func SetDefault(be Backend) Backend { return *defaultBackend.Swap(&be) }

// Name implements Backend.
func (CPU) Name() string { return "cpu" }

// Alloc implements Backend.
func (CPU) Alloc(dt DType, n int) Buffer {
	switch dt {
	case Float32:
		return allocHost[float32](n)
	case Float64:
		return allocHost[float64](n)
	case Bool:
		return allocHost[bool](n)
	case Int64:
		return allocHost[int64](n)
	}
	Panicf("Alloc", ErrDType, "unknown dtype %v", dt)
	return nil
}

// FromSlice implements Backend. The slice is adopted, not copied; callers that
// keep using it must pass a copy.
func (CPU) FromSlice(data any) Buffer {
	switch d := data.(type) {
	case []float32:
		return &hostBuf[float32]{s: d}
	case []float64:
		return &hostBuf[float64]{s: d}
	case []bool:
		return &hostBuf[bool]{s: d}
	case []int64:
		return &hostBuf[int64]{s: d}
	}
	Panicf("FromSlice", ErrDType, "unsupported slice type %T", data)
	return nil
}

// HostSlice returns the Go slice behind a CPU buffer ([]float32, []float64,
// []bool or []int64), or nil for another backend's buffer.
func HostSlice(b Buffer) any {
	switch h := b.(type) {
	case *hostBuf[float32]:
		return h.s
	case *hostBuf[float64]:
		return h.s
	case *hostBuf[bool]:
		return h.s
	case *hostBuf[int64]:
		return h.s
	}
	return nil
}

func host[T Elem](op string, b Buffer) []T {
	h, ok := b.(*hostBuf[T])
	if !ok {
		Panicf(op, ErrDevice, "CPU backend got a %T buffer (want %v on the CPU)", b, DTypeOf[T]())
	}
	return h.s
}

// ToSlice implements Backend.
func (c CPU) ToSlice(src View) any {
	n := 1
	for _, s := range src.Shape {
		n *= s
	}
	// A plain make'd slice, not Alloc's small-tensor block: the result is the
	// caller's own memory (it may go to cgo, which refuses Go memory that
	// holds Go pointers) and keeps no tensor header alive.
	var data any
	switch src.DType() {
	case Float32:
		data = make([]float32, n)
	case Float64:
		data = make([]float64, n)
	case Bool:
		data = make([]bool, n)
	case Int64:
		data = make([]int64, n)
	default:
		Panicf("ToSlice", ErrDType, "unknown dtype %v", src.DType())
	}
	dst := c.FromSlice(data)
	c.Copy(View{Buf: dst, Shape: src.Shape, Strides: contiguousStrides(src.Shape)}, src)
	return data
}

// Fill implements Backend.
func (CPU) Fill(dst View, v float64) {
	switch dst.DType() {
	case Float32:
		fillT(host[float32]("Fill", dst.Buf), dst, float32(v))
	case Float64:
		fillT(host[float64]("Fill", dst.Buf), dst, v)
	case Int64:
		fillT(host[int64]("Fill", dst.Buf), dst, int64(v))
	case Bool:
		fillT(host[bool]("Fill", dst.Buf), dst, v != 0)
	}
}

func fillT[T Elem](d []T, dst View, v T) {
	if n, ok := flatLayout(dst); ok && n < parallelMin {
		// Dense and small (0-d scalars from Go numbers, mostly): no iterator.
		s := d[dst.Offset : dst.Offset+n]
		for i := range s {
			s[i] = v
		}
		return
	}
	forEachRow(dst.Shape, [][]int{dst.Strides}, []int{dst.Offset}, func(o []int, n int, in []int) {
		if in[0] == 1 {
			s := d[o[0] : o[0]+n]
			for i := range s {
				s[i] = v
			}
			return
		}
		for i, p := 0, o[0]; i < n; i, p = i+1, p+in[0] {
			d[p] = v
		}
	})
}

// Copy implements Backend.
func (CPU) Copy(dst, src View) {
	switch dst.DType() {
	case Float32:
		copyTo(host[float32]("Copy", dst.Buf), dst, src)
	case Float64:
		copyTo(host[float64]("Copy", dst.Buf), dst, src)
	case Int64:
		copyTo(host[int64]("Copy", dst.Buf), dst, src)
	case Bool:
		copyTo(host[bool]("Copy", dst.Buf), dst, src)
	default:
		panic(fmt.Sprintf("tensor: Copy to dtype %v", dst.DType()))
	}
}

func copyTo[D Elem](d []D, dst, src View) {
	switch src.DType() {
	case Float32:
		copyConv(d, host[float32]("Copy", src.Buf), dst, src)
	case Float64:
		copyConv(d, host[float64]("Copy", src.Buf), dst, src)
	case Int64:
		copyConv(d, host[int64]("Copy", src.Buf), dst, src)
	case Bool:
		copyConv(d, host[bool]("Copy", src.Buf), dst, src)
	}
}

// convert returns v as a D, with PyTorch's conversion rules (bool ↔ 0/1, float
// to int truncates toward zero, non-zero to bool is true).
func convert[D, S Elem](v S) D {
	var out D
	switch o := any(&out).(type) {
	case *bool:
		switch x := any(v).(type) {
		case bool:
			*o = x
		case float32:
			*o = x != 0
		case float64:
			*o = x != 0
		case int64:
			*o = x != 0
		}
	case *float32:
		*o = float32(toF64(v))
	case *float64:
		*o = toF64(v)
	case *int64:
		switch x := any(v).(type) {
		case bool:
			if x {
				*o = 1
			}
		case float32:
			*o = int64(x)
		case float64:
			*o = int64(x)
		case int64:
			*o = x
		}
	}
	return out
}

func toF64[S Elem](v S) float64 {
	switch x := any(v).(type) {
	case bool:
		if x {
			return 1
		}
		return 0
	case float32:
		return float64(x)
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return 0
}

func copyConv[D, S Elem](d []D, s []S, dst, src View) {
	same := DTypeOf[D]() == DTypeOf[S]()
	if same && transposeCopy(any(d).([]D), any(s).([]D), dst, src) {
		return
	}
	forEachRow(dst.Shape, [][]int{dst.Strides, src.Strides}, []int{dst.Offset, src.Offset}, func(o []int, n int, in []int) {
		if same {
			ds := any(d).([]D)
			ss := any(s).([]D)
			if in[0] == 1 && in[1] == 1 {
				copyCached(ds[o[0]:o[0]+n], ss[o[1]:o[1]+n])
				return
			}
			for i, p, q := 0, o[0], o[1]; i < n; i, p, q = i+1, p+in[0], q+in[1] {
				ds[p] = ss[q]
			}
			return
		}
		switch dd := any(d).(type) {
		case []float64:
			if sf, ok := any(s).([]float32); ok && in[0] == 1 && in[1] == 1 {
				vec.Float32To64(dd[o[0]:o[0]+n], sf[o[1]:o[1]+n])
				return
			}
			if sb, ok := any(s).([]bool); ok && in[0] == 1 && in[1] == 1 {
				boolsTo(dd[o[0]:o[0]+n], sb[o[1]:o[1]+n])
				return
			}
		case []float32:
			if sf, ok := any(s).([]float64); ok && in[0] == 1 && in[1] == 1 {
				vec.Float64To32(dd[o[0]:o[0]+n], sf[o[1]:o[1]+n])
				return
			}
			if sb, ok := any(s).([]bool); ok && in[0] == 1 && in[1] == 1 {
				boolsTo(dd[o[0]:o[0]+n], sb[o[1]:o[1]+n])
				return
			}
		}
		for i, p, q := 0, o[0], o[1]; i < n; i, p, q = i+1, p+in[0], q+in[1] {
			d[p] = convert[D](s[q])
		}
	})
}

// Go's memmove writes with non-temporal stores from 1 MiB on, which
// bypass the cache: right for a copy much larger than the cache, but a
// result that fits is then read back from memory by the op that uses it.
// copyCached therefore copies runs of 1 to cachedCopyMax bytes in pieces
// of copyPiece, each below that threshold. On a Zen 5 core (L2 1 MiB, L3
// 32 MiB), a 1 MiB float32 Clone took 35 µs and takes 28, and the Clone
// followed by a Sum 69 µs and 38 (4 MiB: 295 and 225); from 8 MiB the
// non-temporal stores were faster.
const (
	copyPiece     = 512 << 10
	cachedCopyMax = 4 << 20
)

// copyCached is copy(d, s) for len(d) == len(s), keeping results of up to
// cachedCopyMax bytes in cache (see copyPiece). Overlapping d and s take
// copy's memmove whole.
func copyCached[T any](d, s []T) {
	var z T
	size := int(unsafe.Sizeof(z))
	bytes := len(d) * size
	dp, sp := uintptr(unsafe.Pointer(unsafe.SliceData(d))), uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	if bytes < 1<<20 || bytes > cachedCopyMax || (dp < sp+uintptr(bytes) && sp < dp+uintptr(bytes)) {
		copy(d, s)
		return
	}
	step := copyPiece / size
	for lo := 0; lo < len(d); lo += step {
		hi := min(lo+step, len(d))
		copy(d[lo:hi], s[lo:hi])
	}
}

// transposeVec runs vec.Transpose for float elements (8×8 float32 or 4×4
// float64 blocks in registers) and reports whether it applied: not for
// other dtypes, nor where src's rows overlap (ls < rows: a source
// broadcast along its columns has ls = 0).
func transposeVec[T Elem](d []T, ld int, s []T, ls, rows, cols int) bool {
	if ls < rows || ld < cols {
		return false
	}
	switch dd := any(d).(type) {
	case []float32:
		vec.Transpose(dd, ld, any(s).([]float32), ls, rows, cols)
	case []float64:
		vec.Transpose(dd, ld, any(s).([]float64), ls, rows, cols)
	default:
		return false
	}
	return true
}

// transposeCopy copies src into dst, of the same dtype, tile by tile when
// the copy is a transpose: after collapsing, two dims, dst dense along the
// second and src along the first (x.T().Contiguous(), a matrix's
// transpose). The row-by-row loop reads src with a stride per element and
// takes a cache line for each; a tile of transposeTile×transposeTile
// elements reads and writes whole lines; float tiles go through
// vec.Transpose, 8×8 float32 or 4×4 float64 blocks in registers. It
// reports whether it applied: from transposeMin elements, splitting the
// tile rows over the cores from parallelMin. On one Zen 5 core,
// x.T().Contiguous() of [256,512] float32 took 145 µs row by row, 77 with
// the tiles' Go loop (32 the best side of 8, 16, 32 and 64), and takes
// about 24 with vec's blocks.
func transposeCopy[T Elem](d, s []T, dst, src View) bool {
	sh, st := collapse(dst.Shape, [][]int{dst.Strides, src.Strides})
	if len(sh) != 2 || sh[0]*sh[1] < transposeMin || st[0][1] != 1 || st[1][0] != 1 || st[1][1] == 1 {
		return false
	}
	rows, cols, dRow, sCol := sh[0], sh[1], st[0][0], st[1][1]
	d, s = d[dst.Offset:], s[src.Offset:]
	tiles := func(lo, hi int) { // tile rows [lo, hi) of dst, transposeTile rows each
		for i0 := lo * transposeTile; i0 < min(hi*transposeTile, rows); i0 += transposeTile {
			i1 := min(i0+transposeTile, rows)
			for j0 := 0; j0 < cols; j0 += transposeTile {
				j1 := min(j0+transposeTile, cols)
				if transposeVec(d[i0*dRow+j0:], dRow, s[j0*sCol+i0:], sCol, i1-i0, j1-j0) {
					continue
				}
				for j := j0; j < j1; j++ {
					sj := s[j*sCol:]
					for i := i0; i < i1; i++ {
						d[i*dRow+j] = sj[i]
					}
				}
			}
		}
	}
	n := (rows + transposeTile - 1) / transposeTile
	if w := workers(); rows*cols >= parallelMin && w > 1 && n > 1 {
		parallelChunks(n, w, tiles)
	} else {
		tiles(0, n)
	}
	return true
}

// transposeTile is the side of transposeCopy's tiles, and transposeMin the
// smallest copy it takes.
const (
	transposeTile = 32
	transposeMin  = 1024
)
