//go:build cuda && !cudaemu

package gpu_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goagx/agx/gpu"
	"github.com/goagx/agx/gpu/gputest"
	"github.com/goagx/agx/gpu/kernels"
	"github.com/goagx/agx/tensor"
)

// These tests need a GPU: a binary linked with gorgonia.org/cu exits at
// start-up without one, so on other machines only `go test -c -tags cuda`
// (compile and link) is checked. The backend-independent tests (conformance,
// composed ops) are in device_test.go and composed_test.go.

// Probe, which never loads CUDA, must agree with the driver that a GPU is here.
func TestProbeFindsTheGPU(t *testing.T) {
	if err := gpu.Available(); err != nil {
		t.Fatal(err)
	}
	r := gpu.Probe()
	if !r.Found {
		t.Fatalf("Probe() = %v on a machine where CUDA initialised", r)
	}
	t.Log(r)
}

func TestDriverArch(t *testing.T) {
	d, err := gpu.OpenCUDA(0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.Arch(), "compute_") {
		t.Fatalf("Arch() = %q, want compute_XY", d.Arch())
	}
	t.Logf("device 0 compiles for %s", d.Arch())
}

func TestCompileKernels(t *testing.T) {
	for _, arch := range []string{"compute_80", "compute_90"} {
		t.Run(arch, func(t *testing.T) {
			if _, err := gpu.CompilePTX("agx.cu", kernels.Source(), arch); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// sync makes a benchmark's timing include the device work: launches do not
// wait, but reading one element of the result back (ToSlice) waits for every
// queued kernel.
func sync(be *gpu.Backend, t *tensor.Tensor) {
	be.ToSlice(tensor.View{Buf: t.Raw().Buf, Shape: []int{1}, Strides: []int{1}})
}

func BenchmarkCUDAMatMul(b *testing.B) {
	be := gputest.Backend(b)
	for _, n := range []int{256, 1024, 4096} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			b.Run(fmt.Sprintf("%v/n=%d", dt, n), func(b *testing.B) {
				x := tensor.Randn(dt, n, n).ToBackend(be)
				y := tensor.Randn(dt, n, n).ToBackend(be)
				b.ResetTimer()
				for b.Loop() {
					sync(be, x.MatMul(y))
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func BenchmarkCUDAElementwise(b *testing.B) {
	be := gputest.Backend(b)
	for _, n := range []int{1 << 16, 1 << 22, 1 << 26} {
		b.Run(fmt.Sprintf("Mul/n=%d", n), func(b *testing.B) {
			x := tensor.Randn(tensor.Float32, n).ToBackend(be)
			y := tensor.Randn(tensor.Float32, n).ToBackend(be)
			b.ResetTimer()
			for b.Loop() {
				sync(be, x.Mul(y))
			}
			b.SetBytes(int64(12 * n))
		})
	}
}

// A chain of small element-wise ops with one read-back at the end: what the
// queue (launches that do not wait) saves, per chain of 20 launches.
func BenchmarkCUDAChain(b *testing.B) {
	be := gputest.Backend(b)
	for _, n := range []int{1 << 12, 1 << 20} {
		b.Run(fmt.Sprintf("10xMulAdd/n=%d", n), func(b *testing.B) {
			x := tensor.Randn(tensor.Float32, n).ToBackend(be)
			for b.Loop() {
				y := x
				for range 10 {
					y = y.Mul(x).Add(x)
				}
				sync(be, y)
			}
		})
	}
}

// BenchmarkCUDAAttention times the fused attention kernels and the
// composite, head dimension 64, at the course's shape (exercise attention:
// batch 2 × 4 heads, 128 positions), at 4x its length, and at two larger
// ones (bench/torch_gpu.py times SDPA on the same).
func BenchmarkCUDAAttention(b *testing.B) {
	be := gputest.Backend(b)
	const d = 64
	for _, sh := range []struct{ bh, l int }{{8, 128}, {8, 512}, {16, 512}, {16, 2048}} {
		bh, l := sh.bh, sh.l
		q := tensor.Randn(tensor.Float32, bh, l, d).ToBackend(be)
		k := tensor.Randn(tensor.Float32, bh, l, d).ToBackend(be)
		v := tensor.Randn(tensor.Float32, bh, l, d).ToBackend(be)
		dout := tensor.Randn(tensor.Float32, bh, l, d).ToBackend(be)
		name := fmt.Sprintf("BH=%d/L=%d", bh, l)
		b.Run("fused/"+name, func(b *testing.B) {
			for b.Loop() {
				o, _ := be.Attention(q, k, v, 0.125, false)
				sync(be, o)
			}
		})
		b.Run("fused-backward/"+name, func(b *testing.B) {
			o, lse := be.Attention(q, k, v, 0.125, false)
			b.ResetTimer()
			for b.Loop() {
				dq, _, _ := be.AttentionBackward(q, k, v, o, lse, dout, 0.125, false)
				sync(be, dq)
			}
		})
		b.Run("fused-step/"+name, func(b *testing.B) {
			for b.Loop() {
				o, lse := be.Attention(q, k, v, 0.125, false)
				dq, _, _ := be.AttentionBackward(q, k, v, o, lse, dout, 0.125, false)
				sync(be, dq)
			}
		})
		b.Run("composite/"+name, func(b *testing.B) {
			for b.Loop() {
				sync(be, q.MatMul(k.Transpose(1, 2)).Mul(0.125).Softmax(2).MatMul(v))
			}
		})
	}
}
