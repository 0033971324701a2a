//go:build cuda || cudaemu

package gpu_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/gpu/gputest"
	"github.com/goagx/agx/tensor"
)

// Ops the tensor package composes from the primitives (softmax, logsumexp,
// variance, broadcasting arithmetic, batched matmul) give the CPU's results on
// tensors moved to the GPU (or the emulator) with ToBackend.
func TestComposedOps(t *testing.T) {
	be := gputest.Backend(t)
	ops := map[string]func(x, y *tensor.Tensor) *tensor.Tensor{
		"Softmax":    func(x, _ *tensor.Tensor) *tensor.Tensor { return x.Softmax(2) },
		"LogSoftmax": func(x, _ *tensor.Tensor) *tensor.Tensor { return x.LogSoftmax(1) },
		"LogSumExp":  func(x, _ *tensor.Tensor) *tensor.Tensor { return x.LogSumExp(0, 2) },
		"Var":        func(x, _ *tensor.Tensor) *tensor.Tensor { return x.Var(true, 1) },
		"Mean":       func(x, _ *tensor.Tensor) *tensor.Tensor { return x.Mean() },
		"Broadcast":  func(x, y *tensor.Tensor) *tensor.Tensor { return x.Mul(y.Sum(0)).Add(1.5) },
		"MatMul":     func(x, y *tensor.Tensor) *tensor.Tensor { return x.MatMul(y.Transpose(1, 2)) },
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		for name, op := range ops {
			t.Run(fmt.Sprintf("%s/%v", name, dt), func(t *testing.T) {
				tensor.ManualSeed(5)
				x, y := tensor.Randn(dt, 3, 4, 5), tensor.Randn(dt, 3, 4, 5)
				want := op(x, y).Float64s()
				got := op(x.ToBackend(be), y.ToBackend(be))
				if got.Backend() != be {
					t.Fatalf("result on backend %s, want %s", got.Backend().Name(), be.Name())
				}
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 1e-5
				}
				for i, g := range got.ToBackend(tensor.CPU{}).Float64s() {
					if math.Abs(g-want[i]) > tol*(1+math.Abs(want[i])) {
						t.Fatalf("element %d: got %v, want %v", i, g, want[i])
					}
				}
			})
		}
	}
}

// agx.BatchNorm, whose CPU kernels other backends do not have, is composed
// from ops there: its output and gradients on the GPU (or the emulator) are
// the CPU's.
func TestComposedBatchNorm(t *testing.T) {
	be := gputest.Backend(t)
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			tensor.ManualSeed(6)
			xd, wd, bd, gd := tensor.Randn(dt, 4, 3, 5), tensor.Randn(dt, 3), tensor.Randn(dt, 3), tensor.Randn(dt, 4, 3, 5)
			run := func(on tensor.Backend) [][]float64 {
				x := agx.New(xd.ToBackend(on)).SetRequiresGrad(true)
				w := agx.New(wd.ToBackend(on)).SetRequiresGrad(true)
				b := agx.New(bd.ToBackend(on)).SetRequiresGrad(true)
				y := agx.BatchNorm(x, w, b, 1e-5)
				if y.Data().Backend() != on {
					t.Fatalf("result on backend %s, want %s", y.Data().Backend().Name(), on.Name())
				}
				out := [][]float64{y.Data().ToBackend(tensor.CPU{}).Float64s()}
				for _, g := range agx.Grad([]*agx.Tensor{y}, []*agx.Tensor{x, w, b}, agx.GradOutputs(agx.New(gd.ToBackend(on)))) {
					out = append(out, g.Data().ToBackend(tensor.CPU{}).Float64s())
				}
				return out
			}
			want, got := run(tensor.CPU{}), run(be)
			tol := 1e-10
			if dt == tensor.Float32 {
				tol = 1e-4
			}
			for k := range want {
				for i, g := range got[k] {
					if math.Abs(g-want[k][i]) > tol*(1+math.Abs(want[k][i])) {
						t.Fatalf("result %d (output, dx, dweight, dbias), element %d: got %v, want %v", k, i, g, want[k][i])
					}
				}
			}
		})
	}
}
