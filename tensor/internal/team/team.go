// Package team runs the parts of one parallel kernel (the stripes of a
// matrix product, the chunks of an element-wise loop or a reduction) on the
// calling goroutine and a team of resident helper goroutines.
//
// Starting a goroutine per part wakes an idle thread, and on the project's
// VMs the first instructions of a woken vCPU come tens of µs later: more
// than splitting a 256³ float32 product (about 200 µs on one core) saves.
// A helper instead stays awake for a while after its last part, polling for
// the next kernel, and only then parks. A kernel that finds a helper awake
// hands it work at the cost of an atomic store; one that finds it parked
// wakes it but does not wait for it: the caller claims parts itself, in
// order, and a helper takes whatever is left when it arrives. So a parallel
// kernel is never slower than the serial loop by more than the wake-up call,
// and back-to-back kernels (a training step) find the helpers awake.
//
// A polling helper holds its P, yielding it only every 100 µs, for at most
// Spin after its last part. Parts must not block on each other.
package team

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Spin is how long a helper polls for work after its last part before it
// parks: longer than the gaps between the products of a training step,
// short enough that an idle program gives its cores back almost at once.
const Spin = 200 * time.Microsecond

// osYieldAfter is how long a thread polls before it also yields its CPU to
// other threads at every poll (osYield): if the scheduler put the caller
// and a helper on one CPU, polling would keep the CPU from the one that
// has work.
const osYieldAfter = 20 * time.Microsecond

// waitSpin is how long a caller that has run out of parts polls for the
// helpers' last ones before it blocks: well beyond a part's usual length
// (blocking sooner, after 50 µs, cost attention_backward's batches the
// wake-up of the caller), short enough not to burn a core through a long
// stall, such as a helper preempted on a busy machine.
const waitSpin = time.Millisecond

// yieldEvery is how often a polling helper yields its P (runtime.Gosched),
// so that goroutines waiting for one, the collector's background worker
// among them, are not held up for a whole Spin while the caller and the
// helpers are busy. `agx bench`, matmul_f32_256, five interleaved runs:
// 196-243 µs without yielding, 182-230 µs (four of them 182-187) with a
// yield every 100 µs. Yielding at every poll let the runtime move helpers
// around and cost more than it saved.
const yieldEvery = 100 * time.Microsecond

// job is one kernel's parts: they are claimed in order by whoever is free.
type job struct {
	seq  uint64 // from seqs, to tell kernels apart without keeping them
	n    int
	next atomic.Int64 // parts claimed
	done atomic.Int64 // parts finished
	// left counts the parts not finished, for a caller that stops
	// polling done and blocks.
	left sync.WaitGroup
	run  func(part, worker int)
}

// helper is one resident goroutine.
type helper struct {
	id     int // worker number, from 1
	parked atomic.Bool
	wake   chan struct{}
}

var (
	board   atomic.Pointer[job] // the newest kernel, nil when none
	seqs    atomic.Uint64
	mu      sync.Mutex // guards helpers' growth
	helpers atomic.Pointer[[]*helper]
)

// Do runs run(0, w), …, run(n-1, w) on the calling goroutine (worker
// w = 0) and up to workers-1 helpers (w = 1, 2, …; a helper keeps its
// number, so per-worker buffers stay in one core's caches), and returns
// when all have returned. With workers < 2 or n < 2 it is a plain loop. Do may be called from several goroutines at once, and
// from within a part: each call completes its own parts, and after a nested
// call the helpers return to the outer one.
func Do(n, workers int, run func(part, worker int)) {
	if n <= 0 {
		return
	}
	if workers < 2 || n < 2 {
		for i := range n {
			run(i, 0)
		}
		return
	}
	hs := team(workers - 1)
	j := &job{seq: seqs.Add(1), n: n, run: run}
	j.left.Add(n)
	// A Do called from within a part (a batch of products, each split
	// again) replaces the outer kernel on the board until it returns.
	prev := board.Swap(j)
	for _, h := range hs[:min(len(hs), workers-1, n-1)] {
		if h.parked.Load() && h.parked.CompareAndSwap(true, false) {
			h.wake <- struct{}{}
		}
	}
	j.work(0)
	// The parts not yet finished were claimed by helpers, which are
	// running them. Poll for waitSpin (they usually finish within µs of
	// the caller), then block, so that a long wait (a helper preempted on
	// a busy machine, uneven parts) does not burn the core it may need.
	if j.done.Load() < int64(n) {
		start := time.Now()
		yield := false
		for spins := 0; j.done.Load() < int64(n); spins++ {
			if yield {
				osYield()
			}
			if spins%64 == 63 {
				el := time.Since(start)
				if el > waitSpin {
					j.left.Wait()
					break
				}
				yield = el > osYieldAfter
			}
		}
	}
	// Put the outer kernel back while it has parts left, so that the
	// helpers go on taking them.
	var back *job
	if prev != nil && prev.next.Load() < int64(prev.n) {
		back = prev
	}
	board.CompareAndSwap(j, back)
}

// team returns at least k helpers (fewer only if k exceeds what was asked
// before and they are being started), starting the missing ones.
func team(k int) []*helper {
	if p := helpers.Load(); p != nil && len(*p) >= k {
		return *p
	}
	mu.Lock()
	defer mu.Unlock()
	var hs []*helper
	if p := helpers.Load(); p != nil {
		hs = *p
	}
	for len(hs) < k {
		h := &helper{id: len(hs) + 1, wake: make(chan struct{}, 1)}
		hs = append(hs, h)
		go h.loop()
	}
	helpers.Store(&hs)
	return hs
}

// work claims and runs parts of j on worker w until none is left.
func (j *job) work(w int) {
	for {
		i := int(j.next.Add(1)) - 1
		if i >= j.n {
			return
		}
		j.run(i, w)
		j.done.Add(1)
		j.left.Done()
	}
}

// loop is a helper's life: run the board's kernels, poll for Spin after the
// last one, then park until a kernel wakes it.
func (h *helper) loop() {
	var last uint64 // the last kernel seen
	for {
		now := time.Now()
		idle := now // polling since
		deadline, yield := now.Add(Spin), now.Add(yieldEvery)
		for {
			if j := board.Load(); j != nil && j.seq != last {
				last = j.seq
				j.work(h.id)
				now = time.Now()
				idle = now
				deadline, yield = now.Add(Spin), now.Add(yieldEvery)
				continue
			}
			now = time.Now()
			if now.After(deadline) {
				break
			}
			if now.After(yield) {
				runtime.Gosched()
				yield = time.Now().Add(yieldEvery)
			}
			if now.Sub(idle) > osYieldAfter {
				osYield()
			}
		}
		h.parked.Store(true)
		// A kernel published before parked was set did not wake us: look
		// once more, and take back the parked flag if no caller has.
		if j := board.Load(); j != nil && j.seq != last && h.parked.CompareAndSwap(true, false) {
			continue
		}
		<-h.wake
	}
}
