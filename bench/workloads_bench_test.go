package bench

import "testing"

// BenchmarkWorkloads runs every workload of the harness as a Go benchmark,
// agx side only, so that the standard tools apply to them, for example
//
//	go test ./bench -run '^$' -bench 'Workloads/attention' -cpuprofile cpu.out
func BenchmarkWorkloads(b *testing.B) {
	for _, w := range All() {
		b.Run(w.Name, func(b *testing.B) {
			f := w.Setup()
			f()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				f()
			}
			if w.Flops > 0 {
				b.ReportMetric(w.Flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			}
		})
	}
}
