package solutions

import (
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Workloads from the project's performance table (docs: attention_backward,
// batchnorm_backward): forward + backward of the custom Function with a random
// upstream gradient, float32.

func BenchmarkAttentionBackward(b *testing.B) {
	b.Run("f32/B2H4S128D64", func(b *testing.B) {
		gen := tensor.NewGenerator(1)
		q := agx.New(gen.Randn(tensor.Float32, 2, 4, 128, 64)).SetRequiresGrad(true)
		k := agx.New(gen.Randn(tensor.Float32, 2, 4, 128, 64)).SetRequiresGrad(true)
		v := agx.New(gen.Randn(tensor.Float32, 2, 4, 128, 64)).SetRequiresGrad(true)
		g := agx.New(gen.Randn(tensor.Float32, 2, 4, 128, 64))
		b.ReportAllocs()
		for b.Loop() {
			q.ZeroGrad()
			k.ZeroGrad()
			v.ZeroGrad()
			ScaledDotProductAttention(q, k, v, nil).Backward(agx.Gradient(g))
		}
	})
}

func BenchmarkBatchNormBackward(b *testing.B) {
	b.Run("f32/256x512", func(b *testing.B) {
		gen := tensor.NewGenerator(2)
		x := agx.New(gen.Randn(tensor.Float32, 256, 512)).SetRequiresGrad(true)
		g := agx.New(gen.Randn(tensor.Float32, 256, 512))
		b.ReportAllocs()
		for b.Loop() {
			x.ZeroGrad()
			BatchNorm(x, 0).Backward(agx.Gradient(g))
		}
	})
}
