//go:build cuda && !cudaemu

package cudafn_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/gpu/cudafn"
	"github.com/goagx/agx/gpu/gputest"
	"github.com/goagx/agx/tensor"
)

// BenchmarkAttentionStep times a training step of fused attention as a
// notebook writes it: cudafn.Attention applied to Q, K and V that require
// gradients, then Backward with an upstream gradient, through agx's
// autograd, float32, head dimension 64, at the shapes of package gpu's
// BenchmarkCUDAAttention (bench/torch_gpu.py's sdpa-step is PyTorch's
// counterpart). Each step ends by reading one element of dQ back.
func BenchmarkAttentionStep(b *testing.B) {
	be := gputest.Backend(b)
	const d = 64
	for _, sh := range []struct{ bh, l int }{{8, 128}, {8, 512}, {16, 512}, {16, 2048}} {
		on := func(shape ...int) *agx.Tensor {
			return agx.New(tensor.Randn(tensor.Float32, shape...).ToBackend(be))
		}
		q, k, v := on(sh.bh, sh.l, d), on(sh.bh, sh.l, d), on(sh.bh, sh.l, d)
		dout := on(sh.bh, sh.l, d)
		for _, t := range []*agx.Tensor{q, k, v} {
			t.SetRequiresGrad(true)
		}
		fn := cudafn.Attention{Scale: 0.125, Backend: be}
		b.Run(fmt.Sprintf("BH=%d/L=%d", sh.bh, sh.l), func(b *testing.B) {
			for b.Loop() {
				for _, t := range []*agx.Tensor{q, k, v} {
					t.ZeroGrad()
				}
				agx.Apply(fn, q, k, v).Backward(agx.Gradient(dout))
				_ = q.Grad().Data().Reshape(-1).Narrow(0, 0, 1).Float64s()
			}
		})
	}
}
