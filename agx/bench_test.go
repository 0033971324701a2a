package agx

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/goagx/agx/tensor"
)

// The workloads of docs/performance.md (bench/workloads.go). Compare the figures with PyTorch's
// measured on the same machine (the ratio is what counts); per-op metrics
// (ns/tinyop, B/tinyop) make the overhead-bound cases comparable directly.

// benchSquare is the custom Function of the overhead benchmarks.
type benchSquare struct{}

func (benchSquare) Name() string { return "Square" }

func (benchSquare) Forward(ctx *Ctx, in ...*Tensor) []*Tensor {
	ctx.SaveForBackward(in[0])
	return Outputs(in[0].Mul(in[0]))
}

func (benchSquare) Backward(ctx *Ctx, g ...*Tensor) []*Tensor {
	x := ctx.SavedTensors()[0]
	return Outputs(g[0].Mul(x).Mul(2))
}

// benchLogSumExp is log Σ exp(x) over the last dim, shifted by the row
// maximum for stability; backward g·softmax(x).
type benchLogSumExp struct{}

func (benchLogSumExp) Name() string { return "LogSumExp" }

func (benchLogSumExp) Forward(ctx *Ctx, in ...*Tensor) []*Tensor {
	x := in[0]
	m := x.AmaxKeep(-1)
	out := x.Sub(m).Exp().SumKeep(-1).Log().Add(m)
	ctx.SaveForBackward(x, out)
	return Outputs(out.Squeeze(-1))
}

func (benchLogSumExp) Backward(ctx *Ctx, g ...*Tensor) []*Tensor {
	s := ctx.SavedTensors()
	x, out := s[0], s[1]
	return Outputs(g[0].Unsqueeze(-1).Mul(x.Sub(out).Exp()))
}

// loopCPU runs f in b.Loop and reports the process's CPU time per call as
// cpu-ns/op, which other jobs on a shared machine move less than wall time.
func loopCPU(b *testing.B, f func()) {
	c0 := cpuTime()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user+system CPU time so far. On a shared machine
// it is steadier than wall time (it excludes time spent waiting for a core).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perOp reports the time, CPU time and bytes per elementary op for a
// benchmark that runs ops ops per iteration.
func perOp(b *testing.B, ops int, body func()) {
	b.ReportAllocs()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0 := cpuTime()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	b.StopTimer()
	c1 := cpuTime()
	runtime.ReadMemStats(&m1)
	total := float64(n * ops)
	b.ReportMetric(float64((c1-c0).Nanoseconds())/total, "cpu-ns/tinyop")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/tinyop")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/total, "B/tinyop")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/total, "allocs/tinyop")
}

func BenchmarkTinyOpsOverhead(b *testing.B) {
	const ops = 1000
	c := New(tensor.FromSlice([]float32{1.0001}))
	chain := func(x *Tensor) *Tensor {
		for i := 0; i < ops; i += 2 {
			x = x.Mul(c).Add(c)
		}
		return x
	}
	b.Run("fwd+bwd", func(b *testing.B) {
		perOp(b, ops, func() {
			x := FromSlice([]float32{0.5}).SetRequiresGrad(true)
			chain(x).Backward(Gradient(OnesLike(x)))
		})
	})
	b.Run("fwd", func(b *testing.B) {
		perOp(b, ops, func() {
			chain(FromSlice([]float32{0.5}).SetRequiresGrad(true))
		})
	})
	b.Run("nograd_fwd", func(b *testing.B) {
		perOp(b, ops, func() {
			chain(FromSlice([]float32{0.5}))
		})
	})
	// Inputs that require grad, under NoGrad: each op asks for the mode.
	b.Run("in_NoGrad_fwd", func(b *testing.B) {
		perOp(b, ops, func() {
			NoGrad(func() { chain(FromSlice([]float32{0.5}).SetRequiresGrad(true)) })
		})
	})
}

func BenchmarkCustomFunctionOverhead(b *testing.B) {
	x := Randn(Float32, 16).SetRequiresGrad(true)
	ones := Ones(Float32, 16)
	perOp(b, 1, func() {
		Apply(benchSquare{}, x).Backward(Gradient(ones))
		x.ZeroGrad()
	})
}

func BenchmarkGradCheckLogSumExp(b *testing.B) {
	x := New(tensor.NewGenerator(1).Randn(Float64, 4, 16)).SetRequiresGrad(true)
	b.ReportAllocs()
	for b.Loop() {
		if err := GradCheck(benchLogSumExp{}, []*Tensor{x}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGradGradCheckSquare(b *testing.B) {
	x := New(tensor.NewGenerator(2).Randn(Float64, 4, 8)).SetRequiresGrad(true)
	b.ReportAllocs()
	for b.Loop() {
		if err := GradGradCheck(benchSquare{}, []*Tensor{x}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkElementwiseChain(b *testing.B) {
	x := New(tensor.NewGenerator(3).Randn(Float32, 1_000_000)).SetRequiresGrad(true)
	b.ReportAllocs()
	for b.Loop() {
		y := x.Sigmoid().Mul(x).Add(x.Tanh())
		y.Sum().Backward()
		x.ZeroGrad()
	}
}

func BenchmarkMLPStep(b *testing.B) {
	gen := tensor.NewGenerator(4)
	x := New(gen.Randn(Float32, 64, 784))
	target := New(gen.Randint(0, 10, 64))
	w1 := New(gen.Normal(Float32, 0, 0.03, 784, 256)).SetRequiresGrad(true)
	b1 := New(tensor.Zeros(Float32, 256)).SetRequiresGrad(true)
	w2 := New(gen.Normal(Float32, 0, 0.06, 256, 10)).SetRequiresGrad(true)
	b2 := New(tensor.Zeros(Float32, 10)).SetRequiresGrad(true)
	b.ReportAllocs()
	for b.Loop() {
		h := MatMul(x, w1).Add(b1).Relu()
		loss := CrossEntropy(MatMul(h, w2).Add(b2), target)
		loss.Backward()
		for _, p := range []*Tensor{w1, b1, w2, b2} {
			p.ZeroGrad()
		}
	}
}

// BenchmarkIsGradEnabled measures the grad-mode lookup that every recording op
// makes: free while no NoGrad scope is open anywhere, a goroutine-id lookup
// while one is (in this goroutine or another).
func BenchmarkIsGradEnabled(b *testing.B) {
	b.Run("no-scope-open", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if !IsGradEnabled() {
				b.Fatal("disabled")
			}
		}
	})
	b.Run("inside-NoGrad", func(b *testing.B) {
		NoGrad(func() {
			for i := 0; i < b.N; i++ {
				if IsGradEnabled() {
					b.Fatal("enabled")
				}
			}
		})
	})
}
