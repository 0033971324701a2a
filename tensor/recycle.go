package tensor

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Recycling result buffers.
//
// Go frees memory only when the collector finds it unreachable, so a fresh
// result lands in memory that the collector recycled a cycle or more ago:
// out of cache, and on the project's VMs often returned to the OS and
// faulted back in. PyTorch's allocator instead hands back the block freed
// a moment ago. An autograd engine knows, during backward, when an
// intermediate gradient is dead: it gave it to exactly one consumer, the
// consumer has run, and nothing else saw it. For such buffers the engine
// calls Recycle, and the next result of the same dtype and size (see
// emptyUninit) reuses the buffer while it is still in cache.
//
// Only large CPU float buffers take part: those of at least recycleMin
// elements allocated for results that their kernel overwrites. Each gets a
// number, increasing with allocation order (AllocID), so that an engine can
// tell buffers allocated during its pass from older ones. The free buffers
// are kept per dtype and size, newest first, up to recycleMaxBytes in all;
// a buffer that does not fit is left to the collector, and so is one that
// waited through a whole collection cycle without being reused (a program
// that has moved on to other sizes does not keep them).

// recycleMin is the smallest element count of a recyclable buffer.
const recycleMin = 4096

// recycleMaxBytes bounds the memory held by free buffers.
const recycleMaxBytes = 32 << 20

// allocSeq numbers recyclable buffers; AllocSeq reads it.
var allocSeq atomic.Uint64

type recycleKey struct {
	dt DType
	n  int
}

// freeBuf is a free buffer and the collection cycle it was freed in.
type freeBuf struct {
	buf   Buffer
	cycle uint32
}

var recycled struct {
	mu    sync.Mutex
	free  map[recycleKey][]freeBuf
	bytes int
	cycle uint32 // collections seen (see afterGC)
	off   bool   // SetRecycling(false)
	armed bool   // a gcSentinel is waiting for the next collection
}

func init() {
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	armGCSentinelLocked()
}

// gcSentinel is an object nothing refers to: its finalizer runs after each
// collection cycle, calls afterGC and arms the next one, unless recycling
// was turned off meanwhile.
type gcSentinel struct{ _ [16]byte }

// armGCSentinelLocked arms a sentinel; recycled.mu is held.
func armGCSentinelLocked() {
	recycled.armed = true
	runtime.SetFinalizer(new(gcSentinel), func(*gcSentinel) {
		if afterGC() {
			recycled.mu.Lock()
			armGCSentinelLocked()
			recycled.mu.Unlock()
		}
	})
}

// SetRecycling turns the recycling of result buffers on or off for the
// whole process and returns the previous setting. It is on from start-up.
// Off, Recycle takes no buffer (it returns false), the free buffers are
// dropped at once, and the finalizer that ages them after each collection
// is not re-armed, so the package keeps nothing between collections. A
// program that does its own memory accounting, or that wants no finalizer
// of this package running, turns it off before its first step.
func SetRecycling(on bool) bool {
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	prev := !recycled.off
	recycled.off = !on
	if !on {
		clear(recycled.free)
		recycled.bytes = 0
	} else if !recycled.armed {
		armGCSentinelLocked()
	}
	return prev
}

// Recycling reports whether buffer recycling is on (see SetRecycling).
func Recycling() bool {
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	return !recycled.off
}

// afterGC drops the free buffers that were already free before the
// previous collection: nothing reused them for a whole cycle. It reports
// whether the sentinel should be armed again (recycling is on); when not,
// it records that none is armed.
func afterGC() bool {
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	if recycled.off {
		recycled.armed = false
		return false
	}
	recycled.cycle++
	for key, bs := range recycled.free {
		keep := bs[:0]
		for _, b := range bs {
			if recycled.cycle-b.cycle <= 1 {
				keep = append(keep, b)
			} else {
				recycled.bytes -= key.n * key.dt.Size()
			}
		}
		clear(bs[len(keep):])
		if len(keep) == 0 {
			delete(recycled.free, key)
		} else {
			recycled.free[key] = keep
		}
	}
	return true
}

// AllocSeq returns the number of the most recently allocated recyclable
// buffer: every buffer allocated afterwards has a larger AllocID.
func AllocSeq() uint64 { return allocSeq.Load() }

// AllocID returns the number of t's buffer if it is recyclable (a CPU float
// buffer of at least 4096 elements allocated for an op's result), else 0.
// Views share their base's number.
func (t *Tensor) AllocID() uint64 { return t.st.id }

// Recycle hands the buffer of t back for reuse by a later result of the
// same dtype and size, and reports whether it was taken. It is meant for
// autograd engines: the caller guarantees that neither t nor any other
// view of its storage will be read or written again. Buffers that are not
// recyclable (AllocID 0) are left alone. With AGX_DEBUG_UNINIT=1 the buffer
// is filled with NaN at once, so a use after Recycle shows up in results.
// With recycling off (SetRecycling) it takes nothing.
func Recycle(t *Tensor) bool {
	st := t.st
	if st.id == 0 {
		return false
	}
	var size int
	switch b := st.buf.(type) {
	case *hostBuf[float32]:
		if poisonUninit {
			fillNaN(b.s)
		}
		size = 4 * len(b.s)
	case *hostBuf[float64]:
		if poisonUninit {
			fillNaN(b.s)
		}
		size = 8 * len(b.s)
	default:
		return false
	}
	key := recycleKey{st.buf.DType(), st.buf.Len()}
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	if recycled.off || recycled.bytes+size > recycleMaxBytes {
		return false
	}
	if recycled.free == nil {
		recycled.free = make(map[recycleKey][]freeBuf)
	}
	recycled.free[key] = append(recycled.free[key], freeBuf{st.buf, recycled.cycle})
	recycled.bytes += size
	st.id = 0 // the storage no longer owns a recyclable buffer
	return true
}

// RecycledBytes returns the memory held by free recycled buffers.
func RecycledBytes() int {
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	return recycled.bytes
}

// DropRecycled lets the collector have every free recycled buffer.
func DropRecycled() {
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	clear(recycled.free)
	recycled.bytes = 0
}

// takeRecycled returns a free buffer of dt and n elements, or nil.
func takeRecycled(dt DType, n int) Buffer {
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	key := recycleKey{dt, n}
	bs := recycled.free[key]
	if len(bs) == 0 {
		return nil
	}
	b := bs[len(bs)-1].buf
	bs[len(bs)-1] = freeBuf{}
	recycled.free[key] = bs[:len(bs)-1]
	recycled.bytes -= n * dt.Size()
	return b
}

func fillNaN[T float32 | float64](s []T) {
	nan := T(math.NaN())
	for i := range s {
		s[i] = nan
	}
}
