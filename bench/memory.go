package bench

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/goagx/agx/tensor"
)

// MemResult is the memory profile of one workload (agx only).
type MemResult struct {
	Name string
	// Steps is the number of calls measured.
	Steps int
	// BytesPerStep and AllocsPerStep are the heap bytes and objects allocated
	// per call (runtime.MemStats TotalAlloc and Mallocs).
	BytesPerStep  float64
	AllocsPerStep float64
	// LiveBefore is the live heap after setup and one warm-up call, after a
	// full GC; LiveAfter the same after all the steps. Equal values mean the
	// loop retains nothing from step to step. Heap figures leave out the
	// tensor package's heap floor (tensor.HeapFloorMiB), an allocation that
	// is never touched: it steers the collector but occupies no memory.
	LiveBefore uint64
	LiveAfter  uint64
	// PeakHeap is the largest HeapAlloc seen while the steps ran (sampled every
	// 100 µs, default GC settings): what the loop needs with Go's collector.
	PeakHeap uint64
}

// Memory runs each workload's call steps times and reports its allocation
// per call, its live heap before and after, and the peak heap.
func Memory(ws []Workload, steps int) []MemResult {
	var out []MemResult
	for _, w := range ws {
		out = append(out, memoryOf(w, steps))
	}
	return out
}

func memoryOf(w Workload, steps int) MemResult {
	call := w.Setup()
	call()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	floor := uint64(tensor.HeapFloorMiB()) << 20
	r := MemResult{Name: w.Name, Steps: steps, LiveBefore: m0.HeapAlloc - floor}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	for range steps {
		call()
	}
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&m1)
	r.BytesPerStep = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(steps)
	r.AllocsPerStep = float64(m1.Mallocs-m0.Mallocs) / float64(steps)
	r.PeakHeap = max(peak, m1.HeapAlloc) - floor
	runtime.GC()
	runtime.ReadMemStats(&m1)
	r.LiveAfter = m1.HeapAlloc - floor
	runtime.KeepAlive(call) // the workload's data counts in both live figures
	return r
}

// WriteMemTable prints memory results as an aligned table.
func WriteMemTable(w io.Writer, rs []MemResult) error {
	if f := tensor.HeapFloorMiB(); f > 0 {
		fmt.Fprintf(w, "heap figures exclude the %d MiB heap floor (untouched; AGX_HEAP_FLOOR_MB)\n", f)
	}
	tw := newTable(w, "WORKLOAD\tSTEPS\tALLOC/STEP\tALLOCS/STEP\tLIVE BEFORE\tLIVE AFTER\tPEAK HEAP")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f\t%s\t%s\t%s\n", r.Name, r.Steps, fmtBytes(r.BytesPerStep),
			r.AllocsPerStep, fmtBytes(float64(r.LiveBefore)), fmtBytes(float64(r.LiveAfter)), fmtBytes(float64(r.PeakHeap)))
	}
	return tw.Flush()
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}
