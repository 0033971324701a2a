package tensor

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
)

// The heap floor.
//
// Go's collector starts a cycle when the heap has grown by GOGC percent
// (100 by default) over what the last cycle found live, and never below
// about 4 MiB. A tensor program's live heap is often small (a few MiB of
// parameters and inputs) while each step allocates several MiB of results
// that die at once: a [256,512] float32 batch-norm forward and backward
// allocates 4 MiB. Each cycle costs sweeping, preemption signals and, under
// Go's default GODEBUG=madvdontneed=1, returning pages to the OS that the
// next step faults back in and zeroes. Without a floor that made
// batchnorm_backward about 3x slower on the project's first machines and
// matmul, mlp_step and attention_backward 10-20 % slower; too large a floor
// costs cache instead (below).
//
// At start-up the package therefore makes one allocation of HeapFloorMiB
// mebibytes that it never reads or writes. It counts as live heap, so the
// collector's target becomes about twice the floor plus the real live
// heap; its pages are never touched, so it costs address space, not
// memory. The price is that about that much garbage (plus the live heap)
// may accumulate between cycles. Programs with large live heaps are hardly affected (the
// floor is then a small fraction of the target).
//
// The environment variable AGX_HEAP_FLOOR_MB overrides the default (0 turns
// the floor off; GOGC and GOMEMLIMIT keep their usual meaning on top of
// it), which depends on GOMAXPROCS at start-up (defaultHeapFloorMiB).
//
// On one P the floor's price is the cache: every fresh result lands in the
// memory that about the floor plus the live heap of garbage spans between
// two cycles, so the smaller that span, the likelier a result's memory is
// still in cache, and the larger, the fewer cycles. The default is 4 MiB:
// on a Zen 5 VM (1 MiB of L2 a core) it took the course rows to 0.96 of
// their times with 2 MiB (geometric mean; three alternating runs of `agx
// bench` per floor, all rows 0.97, none slower beyond the noise), and on a
// Zen 3 VM (512 KiB of L2) to 0.93-0.99 of them in every harness tried.
// On that Zen 3, 2 MiB had also come out ahead of 0, 1, 8 and 16 (16 by
// 7-11 %), slower only where a step allocates many small objects
// (tiny_ops_overhead); on a Zen 4, 4 and 8 measured about 3 % slower
// than 16.
//
// On more than one P a cycle costs more: the collector sweeps and returns
// freed pages to the OS on the idle core, and the two stop-the-world
// phases took 40-130 µs of wall time a cycle on the project's 2-vCPU VMs
// against under 10 µs on one P (GODEBUG=gctrace=1). There 64 MiB beat 16
// on most element-wise workloads by 10-35 % on the Zen 4; on the Zen 3, 2,
// 4 and 16 were within 3 % of 64 over the whole set (docs/performance.md,
// "The heap floor").

// defaultHeapFloorMiB is the heap floor without AGX_HEAP_FLOOR_MB: 4 MiB
// on one P, 64 MiB on more (see above).
func defaultHeapFloorMiB() int {
	if runtime.GOMAXPROCS(0) > 1 {
		return 64
	}
	return 4
}

var (
	heapFloorMu  sync.Mutex
	heapFloor    []byte
	heapFloorMiB int
)

func init() {
	n, err := parseHeapFloor(os.LookupEnv("AGX_HEAP_FLOOR_MB"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "agx: ignoring AGX_HEAP_FLOOR_MB: %v\n", err)
	}
	heapFloorMiB = n
	if n > 0 {
		heapFloor = make([]byte, n<<20)
	}
}

// parseHeapFloor reads the value of AGX_HEAP_FLOOR_MB; without one, or
// with an invalid one (reported), it returns the default.
func parseHeapFloor(s string, set bool) (int, error) {
	def := defaultHeapFloorMiB()
	if !set || s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return def, fmt.Errorf("%q is not a whole number of MiB", s)
	case n < 0 || n > 1<<16:
		return def, fmt.Errorf("%d MiB is outside 0..65536", n)
	}
	return n, nil
}

// HeapFloorMiB reports the size of the heap floor in MiB (0 when it is
// off): an allocation the package holds, untouched, so that the garbage
// collector does not run on every step of a program with a small live heap.
// See AGX_HEAP_FLOOR_MB in the package documentation.
func HeapFloorMiB() int {
	heapFloorMu.Lock()
	defer heapFloorMu.Unlock()
	return heapFloorMiB
}

// SetHeapFloorMiB replaces the heap floor by one of n MiB (0 releases it
// for the collector to reclaim) and returns the previous size, so that a
// program can turn off the allocation this package makes at start-up
// without setting AGX_HEAP_FLOOR_MB in its environment. n outside 0..65536
// panics with ErrArg. It is safe to call at any time; the collector's
// target follows at its next cycle.
func SetHeapFloorMiB(n int) int {
	if n < 0 || n > 1<<16 {
		Panicf("SetHeapFloorMiB", ErrArg, "%d MiB is outside 0..65536", n)
	}
	heapFloorMu.Lock()
	defer heapFloorMu.Unlock()
	prev := heapFloorMiB
	if n == prev {
		return prev
	}
	heapFloor = nil
	if n > 0 {
		heapFloor = make([]byte, n<<20)
	}
	heapFloorMiB = n
	return prev
}
