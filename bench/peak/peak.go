// Package peak measures one core's floating-point peak: how many fused
// multiply-adds per second the core retires when nothing but independent
// FMAs stand in the way. It is the ceiling that GEMM speed is measured
// against (agx bench -peak).
//
// The probes are Go assembly (peak_amd64.s): a loop of 12 (AVX2) or 24
// (AVX-512) FMAs into independent accumulators, enough to cover the FMA
// latency on every current x86 core, so that the loop runs at the FMA
// units' throughput. Each vector width the CPU runs is measured, for float32
// and float64. On other architectures there are no probes.
package peak

import (
	"runtime"
	"time"
)

// Result is the peak of one vector width and element type.
type Result struct {
	Width  int     // vector width in bits: 256 (AVX2 + FMA) or 512 (AVX-512F)
	Bits   int     // element size in bits: 32 or 64
	GFLOPS float64 // 2 flops per multiply-add, per lane, per second, in 10⁹
}

type probe struct {
	Width, Bits int
	fmas        int // FMA instructions per loop iteration
	fn          func(n int)
}

// Measure runs each probe the CPU supports on the calling goroutine, locked
// to its thread, and returns the best of reps samples of about sample each
// of the thread's CPU time (see Clock; the best, because other work on the
// core only slows a sample down).
func Measure(sample time.Duration, reps int) []Result {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var res []Result
	for _, p := range probes() {
		flops := float64(p.fmas * p.Width / p.Bits * 2) // per iteration
		// Calibrate the iteration count to the sample duration.
		n := 1 << 16
		for {
			t := Clock()
			p.fn(n)
			if d := Clock() - t; d > sample/4 {
				n = int(float64(n) * float64(sample) / float64(d))
				break
			}
			n *= 4
		}
		best := 0.0
		for range reps {
			t := Clock()
			p.fn(n)
			best = max(best, flops*float64(n)/(Clock()-t).Seconds()/1e9)
		}
		res = append(res, Result{Width: p.Width, Bits: p.Bits, GFLOPS: best})
	}
	return res
}
