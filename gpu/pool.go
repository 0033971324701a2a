package gpu

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"time"
)

// Device memory cache.
//
// Driver allocations are slow (cuMemAlloc and cuMemFree take tens to hundreds
// of µs, and cuMemFree waits for the device), so, like PyTorch's caching
// allocator, the backend keeps the blocks of dead buffers and hands them out
// again: a block freed by one step serves the same tensor in the next.
//
// Buffers die when the Go collector finds them unreachable, but device memory
// is invisible to the collector: a loop that makes large device tensors and
// little Go garbage would fill the GPU before a collection ran. The pool
// therefore counts the bytes it has handed out and starts a collection
// whenever they have grown past gcGrowth since the last one (at least
// gcMinBytes), and on a failed driver allocation it collects, waits for the
// cleanups, gives the cached blocks back to the driver and retries, before
// reporting the device out of memory.

// gcMinBytes is the least growth of handed-out bytes that starts a collection.
const gcMinBytes = 256 << 20

// gcGrowth: a collection starts when handed-out bytes reach gcGrowth times
// their level at the previous one.
const gcGrowth = 2

// block is a device allocation of size bytes (a rounded size class).
type block struct {
	p    Ptr
	size int
}

type pool struct {
	mu       sync.Mutex
	returned []block // blocks of buffers the collector found dead; guarded by mu

	// Below: under the backend's lock.
	free    map[int][]Ptr // cached blocks by size class, most recently freed last
	cached  int64         // bytes in free
	live    int64         // bytes handed out and not yet returned
	nextGC  int64         // live level that starts a collection
	allocs  int64         // Driver.Alloc calls that succeeded
	frees   int64         // Driver.Free calls
	reuses  int64         // requests served from the cache
	gcs     int64         // collections the pool started
	oomGCs  int64         // collections after a failed driver allocation
	maxLive int64
}

func newPool() *pool { return &pool{free: map[int][]Ptr{}, nextGC: gcMinBytes} }

// sizeClass rounds bytes up to a size class: multiples of 512 bytes up to 4
// KiB, then eight classes per power of two (at most 12.5 % more than asked).
func sizeClass(bytes int) int {
	if bytes <= 4096 {
		return max((bytes+511)&^511, 512)
	}
	step := 1 << (bits.Len(uint(bytes-1)) - 4)
	return (bytes + step - 1) &^ (step - 1)
}

// give records a dead buffer's block; any goroutine may call it.
func (p *pool) give(bl block) {
	p.mu.Lock()
	p.returned = append(p.returned, bl)
	p.mu.Unlock()
}

// drain moves returned blocks into the cache.
func (p *pool) drain() {
	p.mu.Lock()
	ret := p.returned
	p.returned = nil
	p.mu.Unlock()
	for _, bl := range ret {
		p.put(bl)
	}
	if len(ret) > 0 {
		// What a collection gave back lowers the level for the next one, as
		// GOGC does for the heap.
		p.nextGC = min(p.nextGC, max(gcGrowth*p.live, gcMinBytes))
	}
}

// put caches a block that is no longer handed out.
func (p *pool) put(bl block) {
	p.free[bl.size] = append(p.free[bl.size], bl.p)
	p.cached += int64(bl.size)
	p.live -= int64(bl.size)
}

// take returns a cached block of size class size, if there is one.
func (p *pool) take(size int) (Ptr, bool) {
	l := p.free[size]
	if len(l) == 0 {
		return 0, false
	}
	ptr := l[len(l)-1]
	p.free[size] = l[:len(l)-1]
	p.cached -= int64(size)
	p.handOut(size)
	p.reuses++
	return ptr, true
}

func (p *pool) handOut(size int) {
	p.live += int64(size)
	p.maxLive = max(p.maxLive, p.live)
}

// release gives every cached block back to the driver.
func (p *pool) release(d Driver) error {
	var first error
	for size, l := range p.free {
		for _, ptr := range l {
			if err := d.Free(ptr); err != nil && first == nil {
				first = err
			}
			p.frees++
			p.cached -= int64(size)
		}
		delete(p.free, size)
	}
	return first
}

// get returns a block of at least bytes and whether it is fresh from the
// driver (and so zeroed). It runs under the backend's lock.
func (p *pool) get(d Driver, bytes int) (block, bool, error) {
	size := sizeClass(bytes)
	p.drain()
	if ptr, ok := p.take(size); ok {
		return block{ptr, size}, false, nil
	}
	if p.live+int64(size) > p.nextGC {
		// The blocks of tensors that died since the last collection come
		// back through their cleanups, in time for later requests.
		p.gcs++
		go runtime.GC()
		p.nextGC = max(gcGrowth*(p.live+int64(size)), gcMinBytes)
	}
	ptr, err := d.Alloc(size)
	for try := 0; err != nil && try < 4; try++ {
		// Out of memory, most likely: first the cache, then what the
		// collector can find.
		if try > 0 {
			p.oomGCs++
			runtime.GC()
			time.Sleep(time.Millisecond << try) // cleanups run on their own goroutine
		}
		p.drain()
		if ptr, ok := p.take(size); ok {
			return block{ptr, size}, false, nil
		}
		if p.cached > 0 {
			_ = p.release(d)
		}
		ptr, err = d.Alloc(size)
	}
	if err != nil {
		return block{}, false, fmt.Errorf("out of device memory allocating %d bytes (%d held by live or not yet collected tensors, %d cached): %w",
			size, p.live, p.cached, err)
	}
	p.allocs++
	p.handOut(size)
	return block{ptr, size}, true, nil
}

// MemStats describes a backend's device memory, like torch.cuda.memory_stats.
type MemStats struct {
	// Allocated is the bytes held by buffers: live tensors, and dead ones
	// whose cleanup has not run yet (torch.cuda.memory_allocated).
	Allocated int64
	// MaxAllocated is the highest Allocated so far.
	MaxAllocated int64
	// Cached is the bytes of free blocks kept for reuse; Allocated + Cached
	// is what the backend holds from the driver (torch.cuda.memory_reserved).
	Cached int64
	// DriverAllocs and DriverFrees count Driver.Alloc and Driver.Free calls;
	// Reuses counts requests served from the cache.
	DriverAllocs, DriverFrees, Reuses int64
	// Collections counts the garbage collections the backend started because
	// its device memory grew (GCs) or a driver allocation failed (OOMGCs).
	GCs, OOMGCs int64
}

func (s MemStats) String() string {
	return fmt.Sprintf("allocated %.1f MiB (max %.1f), cached %.1f MiB; driver allocs %d, frees %d; reuses %d; collections %d (+%d out of memory)",
		float64(s.Allocated)/(1<<20), float64(s.MaxAllocated)/(1<<20), float64(s.Cached)/(1<<20),
		s.DriverAllocs, s.DriverFrees, s.Reuses, s.GCs, s.OOMGCs)
}

// MemStats returns the backend's device memory figures, after taking in the
// buffers the collector has found dead so far.
func (b *Backend) MemStats() MemStats {
	var s MemStats
	b.do(func() {
		p := b.pool
		p.drain()
		s = MemStats{Allocated: p.live, MaxAllocated: p.maxLive, Cached: p.cached,
			DriverAllocs: p.allocs, DriverFrees: p.frees, Reuses: p.reuses, GCs: p.gcs, OOMGCs: p.oomGCs}
	})
	return s
}

// EmptyCache gives the cached blocks back to the driver (torch.cuda.empty_cache),
// so that other programs on the GPU can use them. Tensors keep their memory.
func (b *Backend) EmptyCache() {
	b.do(func() {
		b.pool.drain()
		check("EmptyCache", b.pool.release(b.drv))
	})
}
