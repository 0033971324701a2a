package tensor

import (
	"os"
	"unsafe"
)

// Uninitialised results.
//
// make zeroes what it allocates, and for a large buffer that the collector
// has recycled the zeroing is a full pass over memory that is usually no
// longer in cache: runtime.memclrNoHeapPointers was 10-13 % of the profiles
// of mlp_step, attention_backward and elementwise_chain. Most results are
// then overwritten entirely by the kernel that computes them (element-wise
// ops, Where, MatMul with beta = 0, copies and casts), so for those the
// zeroing is wasted. PyTorch's torch.empty does not zero either.
//
// emptyUninit therefore allocates float buffers through the runtime's
// non-zeroing allocator (internal/bytealg.MakeNoZero, which strings.Builder
// and bytes.Buffer use for the same reason). Only call sites whose kernel
// writes every element of the result use it; everything else, including
// Empty and Zeros, still returns zeroed memory. The memory is pointer-free
// (float32/float64 only), so the collector is not affected.
//
// With AGX_DEBUG_UNINIT=1 in the environment, such buffers are filled with
// NaN instead: a kernel that leaves an element unwritten then shows up as a
// NaN in results and makes tests fail. `make test` runs the tensor, agx and
// functions tests a second time that way.

//go:linkname makeNoZero internal/bytealg.MakeNoZero
func makeNoZero(n int) []byte

// uninitMin is the smallest element count allocated without zeroing;
// smaller buffers share one zeroed allocation with their header (see
// allocHost), where zeroing costs nothing measurable.
const uninitMin = smallElems + 1

// poisonUninit fills uninitialised buffers with NaN (AGX_DEBUG_UNINIT=1).
var poisonUninit = os.Getenv("AGX_DEBUG_UNINIT") == "1"

// allocHostUninit returns a CPU buffer of n elements whose contents are
// unspecified (NaN when poisonUninit is set). The caller must write every
// element before the buffer is read.
func allocHostUninit[T float32 | float64](n int) *hostBuf[T] {
	if n < uninitMin {
		return allocHost[T](n)
	}
	var z T
	size := int(unsafe.Sizeof(z))
	raw := makeNoZero(n * size)
	s := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(raw))), n)
	if poisonUninit {
		fillNaN(s)
	}
	return &hostBuf[T]{s: s}
}

// EmptyUninit returns a tensor of the given dtype and shape on the default
// backend whose contents are unspecified, like PyTorch's torch.empty: for a
// result that the caller's kernel overwrites entirely before anything reads
// it. Large float32 and float64 tensors skip the zeroing, and may reuse a
// buffer that an autograd pass has recycled while it is still in cache
// (see Recycle); other dtypes and sizes are zeroed as by Empty. With
// AGX_DEBUG_UNINIT=1 the skipped ones are filled with NaN, so a kernel that
// leaves an element unwritten shows up in its results.
func EmptyUninit(dt DType, shape ...int) *Tensor {
	if !dt.valid() {
		Panicf("EmptyUninit", ErrDType, "unknown dtype %v", dt)
	}
	return emptyUninit(Default(), dt, shape...)
}

// EmptyUninitOn is EmptyUninit on a given backend. Backends other than the
// CPU skip the zeroing when they implement UninitAllocator.
func EmptyUninitOn(be Backend, dt DType, shape ...int) *Tensor {
	if !dt.valid() {
		Panicf("EmptyUninit", ErrDType, "unknown dtype %v", dt)
	}
	return emptyUninit(be, dt, shape...)
}

// UninitAllocator is implemented by backends that can hand out a buffer
// without zeroing it (the gpu backend: a block from its memory cache). The
// tensor package asks for such buffers only for results that their kernel
// overwrites entirely, as with EmptyUninit.
type UninitAllocator interface {
	// AllocUninit returns a buffer of n elements whose contents are unspecified.
	AllocUninit(dt DType, n int) Buffer
}

// emptyUninit is EmptyOn for a result that the caller overwrites entirely:
// on the CPU, float tensors of at least uninitMin elements are not zeroed,
// and those of at least recycleMin elements reuse a recycled buffer when
// one of their size is free (recycle.go). A backend implementing
// UninitAllocator gets its AllocUninit; other backends, dtypes and sizes get
// EmptyOn's zeroed tensor.
func emptyUninit(be Backend, dt DType, shape ...int) *Tensor {
	if ua, ok := be.(UninitAllocator); ok {
		n := checkAlloc("Empty", dt, shape)
		return newTensor(be, ua.AllocUninit(dt, n), shape)
	}
	if _, cpu := be.(CPU); cpu && (dt == Float32 || dt == Float64) {
		n := checkAlloc("Empty", dt, shape)
		if n < uninitMin {
			return EmptyOn(be, dt, shape...)
		}
		var buf Buffer
		if n >= recycleMin {
			buf = takeRecycled(dt, n)
		}
		if buf == nil {
			if dt == Float32 {
				buf = allocHostUninit[float32](n)
			} else {
				buf = allocHostUninit[float64](n)
			}
		}
		t := newTensor(be, buf, shape)
		if n >= recycleMin {
			t.st.id = allocSeq.Add(1)
		}
		return t
	}
	return EmptyOn(be, dt, shape...)
}

// cpuAllocUninit is CPU.Alloc for a buffer that the caller overwrites
// entirely (float dtypes are not zeroed; see emptyUninit).
func cpuAllocUninit(dt DType, n int) Buffer {
	switch dt {
	case Float32:
		return allocHostUninit[float32](n)
	case Float64:
		return allocHostUninit[float64](n)
	}
	return CPU{}.Alloc(dt, n)
}
