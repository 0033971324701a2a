package bench

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// The idioms group (`agx bench -run idiom`): single ops as users write them
// on [256,512] float32 (one row float64), forward only, each timed against
// the same PyTorch op. They come from a sweep of about 90 ops and backward
// steps against PyTorch at one thread: these are the ones that were, or
// still are, more than 1.5x PyTorch's time there (docs/performance.md,
// "Idioms"). The inputs of Log and the fractional Pow are positive.
func init() {
	type op struct {
		name, desc string
		f          func(x, xp, y, x64 *agx.Tensor) func()
	}
	ops := []op{
		{"maximum", "x.Maximum(y)", func(x, _, y, _ *agx.Tensor) func() { return func() { x.Maximum(y) } }},
		{"amax0", "x.Amax(0), the largest of each column", func(x, _, _, _ *agx.Tensor) func() { return func() { x.Amax(0) } }},
		{"maxdim1", "x.MaxDim(1, false), values and indices of each row's largest", func(x, _, _, _ *agx.Tensor) func() { return func() { x.MaxDim(1, false) } }},
		{"pow3", "x.Pow(3)", func(x, _, _, _ *agx.Tensor) func() { return func() { x.Pow(3) } }},
		{"pow_frac", "x.Pow(1.5) of positive x", func(_, xp, _, _ *agx.Tensor) func() { return func() { xp.Pow(1.5) } }},
		{"log", "x.Log() of positive x", func(_, xp, _, _ *agx.Tensor) func() { return func() { xp.Log() } }},
		{"exp_f64", "x.Exp() on [256,512] float64", func(_, _, _, x64 *agx.Tensor) func() { return func() { x64.Exp() } }},
		{"sin", "x.Sin()", func(x, _, _, _ *agx.Tensor) func() { return func() { x.Sin() } }},
		{"gelu", "x.GELU() (the erf form; PyTorch: F.gelu)", func(x, _, _, _ *agx.Tensor) func() { return func() { x.GELU() } }},
		{"softmax0", "x.Softmax(0), over the columns", func(x, _, _, _ *agx.Tensor) func() { return func() { x.Softmax(0) } }},
		{"logsumexp0", "x.LogSumExp(0), over the columns", func(x, _, _, _ *agx.Tensor) func() { return func() { x.LogSumExp(0) } }},
		{"transpose", "x.T().Contiguous(), a transposed copy", func(x, _, _, _ *agx.Tensor) func() { return func() { x.T().Contiguous() } }},
		{"cat1", "agx.Cat(1, x, y), [256,1024]", func(x, _, y, _ *agx.Tensor) func() { return func() { agx.Cat(1, x, y) } }},
		{"to_f64", "x.To(agx.Float64)", func(x, _, _, _ *agx.Tensor) func() { return func() { x.To(agx.Float64) } }},
	}
	for _, o := range ops {
		extra = append(extra, Workload{Name: "idiom_" + o.name, Desc: o.desc + ", [256,512] f32 unless said, forward only", Ops: 1,
			Setup: func() func() {
				g := tensor.NewGenerator(13)
				x := agx.New(g.Randn(tensor.Float32, 256, 512))
				xp := agx.New(g.Rand(tensor.Float32, 256, 512)).Add(0.5)
				y := agx.New(g.Randn(tensor.Float32, 256, 512))
				x64 := agx.New(g.Randn(tensor.Float64, 256, 512))
				return o.f(x, xp, y, x64)
			}})
	}
}
