package team

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDoRunsEveryPartOnce checks that every part runs exactly once and has
// finished when Do returns, for part and worker counts around the team's
// size, with the helpers awake (back-to-back calls) and parked (after a
// pause longer than Spin).
func TestDoRunsEveryPartOnce(t *testing.T) {
	for _, pause := range []time.Duration{0, 2 * Spin} {
		for _, workers := range []int{0, 1, 2, 3, 8} {
			for _, n := range []int{0, 1, 2, 3, 7, 64} {
				time.Sleep(pause)
				counts := make([]int32, n)
				var badWorker atomic.Int32
				Do(n, workers, func(i, w int) {
					if w < 0 || w >= max(workers, 1) {
						badWorker.Store(int32(w) + 1000)
					}
					if i%3 == 0 {
						time.Sleep(10 * time.Microsecond) // uneven parts
					}
					atomic.AddInt32(&counts[i], 1)
				})
				if b := badWorker.Load(); b != 0 {
					t.Fatalf("workers %d: a part ran on worker %d", workers, b-1000)
				}
				for i, c := range counts {
					// Plain reads: Do must have published every part's
					// writes (the race detector checks this too).
					if c != 1 {
						t.Fatalf("pause %v, workers %d, n %d: part %d ran %d times", pause, workers, n, i, c)
					}
				}
			}
		}
	}
}

// TestDoPlainLoopWithOneWorker checks that one worker (or one part) runs
// the parts in order on the calling goroutine.
func TestDoPlainLoopWithOneWorker(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{5, 1}, {1, 4}} {
		var order []int
		Do(tc.n, tc.workers, func(i, _ int) { order = append(order, i) }) // no lock: must be serial
		for i, v := range order {
			if v != i {
				t.Fatalf("n %d, workers %d: order %v", tc.n, tc.workers, order)
			}
		}
		if len(order) != tc.n {
			t.Fatalf("n %d, workers %d: ran %d parts", tc.n, tc.workers, len(order))
		}
	}
}

// TestDoHelpersShareTheWork checks that awake helpers take parts: with
// parts that each wait until two of them are running at once, Do can only
// return if a helper runs one next to the caller. (With one CPU the
// helpers still get the P when the caller yields in its wait.)
func TestDoHelpersShareTheWork(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2")
	}
	Do(2, 2, func(_, _ int) {}) // start the team
	var running atomic.Int32
	met := make(chan struct{})
	var once sync.Once
	done := make(chan struct{})
	go func() {
		defer close(done)
		Do(2, 2, func(_, _ int) {
			if running.Add(1) == 2 {
				once.Do(func() { close(met) })
			}
			select {
			case <-met:
			case <-time.After(time.Second):
			}
		})
	}()
	select {
	case <-met:
	case <-time.After(5 * time.Second):
		t.Fatal("no helper ran a part next to the caller")
	}
	<-done
}

// TestDoNestedAndConcurrent calls Do from several goroutines at once and
// from inside parts; every call must complete its own parts.
func TestDoNestedAndConcurrent(t *testing.T) {
	var total atomic.Int64
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 50 {
				Do(3+g, 4, func(_, _ int) {
					Do(4, 2, func(_, _ int) { total.Add(1) })
				})
				if r%10 == 0 {
					time.Sleep(Spin)
				}
			}
		}()
	}
	wg.Wait()
	want := int64(0)
	for g := range 4 {
		want += int64(50 * (3 + g) * 4)
	}
	if got := total.Load(); got != want {
		t.Fatalf("ran %d parts, want %d", got, want)
	}
}

// TestHelpersPark checks that the helpers stop polling once Spin has
// passed without work: afterwards they are parked, and a new Do wakes them.
func TestHelpersPark(t *testing.T) {
	Do(4, 4, func(_, _ int) {})
	deadline := time.Now().Add(5 * time.Second)
	for {
		parked := 0
		hs := *helpers.Load()
		for _, h := range hs {
			if h.parked.Load() {
				parked++
			}
		}
		if parked == len(hs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d helpers still polling long after Spin", len(hs)-parked, len(hs))
		}
		time.Sleep(Spin)
	}
	var n atomic.Int32
	Do(8, 4, func(_, _ int) { n.Add(1) })
	if n.Load() != 8 {
		t.Fatalf("ran %d parts after parking, want 8", n.Load())
	}
}

func BenchmarkDo(b *testing.B) {
	w := runtime.GOMAXPROCS(0)
	for b.Loop() {
		Do(w, w, func(_, _ int) {})
	}
}

// TestNestedDoRestoresOuterKernel checks that a Do called from within a
// part puts the outer kernel back on the board while it has parts left, so
// that the helpers go on with it (a batch of products that each split
// again).
func TestNestedDoRestoresOuterKernel(t *testing.T) {
	var checked, failed atomic.Int32
	var mu sync.Mutex // one nested call at a time, so that the board is ours
	Do(64, 2, func(i, _ int) {
		mu.Lock()
		defer mu.Unlock()
		outer := board.Load()
		Do(2, 2, func(_, _ int) {})
		if outer == nil || outer.next.Load() >= int64(outer.n) {
			return // nothing left to restore
		}
		checked.Add(1)
		if board.Load() != outer {
			failed.Add(1)
		}
	})
	if checked.Load() == 0 {
		t.Fatal("no part saw the outer kernel with parts left")
	}
	if failed.Load() != 0 {
		t.Fatalf("%d of %d nested calls left the outer kernel off the board", failed.Load(), checked.Load())
	}
}

// TestDoWaitsForSlowHelpers checks that Do returns only after a helper's
// long part (longer than the caller's polling, so the caller blocks) has
// finished, and that its writes are visible.
func TestDoWaitsForSlowHelpers(t *testing.T) {
	for range 20 {
		done := make([]bool, 4)
		Do(4, 2, func(i, w int) {
			if w != 0 {
				time.Sleep(2 * time.Millisecond)
			}
			done[i] = true // plain writes, published by Do
		})
		for i, d := range done {
			if !d {
				t.Fatalf("Do returned before part %d finished", i)
			}
		}
	}
}
