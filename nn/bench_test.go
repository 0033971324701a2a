package nn

import (
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Forward of a 256→256 layer on a batch of 64: float32 Linear against the int8
// layers (the int8 path is a plain Go loop with int32 accumulation).
func BenchmarkLinearForward(b *testing.B) {
	g := tensor.NewGenerator(1)
	l := NewLinear(256, 256, WithGenerator(g))
	x := agx.New(g.Randn(tensor.Float32, 64, 256))
	static := PrepareStatic(NewSequential(l))
	static.Forward(x)
	sq, _ := Convert(static)
	for _, bc := range []struct {
		name string
		m    Module
	}{{"f32", l}, {"int8_dynamic", quantizeLinear(l)}, {"int8_static", sq}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				agx.NoGrad(func() { bc.m.Forward(x) })
			}
		})
	}
}

func BenchmarkTraceAndExport(b *testing.B) {
	g := tensor.NewGenerator(1)
	m := NewSequential(NewLinear(10, 5, WithGenerator(g)), ReLU())
	x := agx.New(g.Randn(tensor.Float32, 1, 10))
	b.ReportAllocs()
	for b.Loop() {
		gr, err := Trace(m, x)
		if err != nil {
			b.Fatal(err)
		}
		if err := gr.WriteONNX(discard{}, ONNXOptions{DynamicBatch: true}); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// One training step of mlp_step's model (784→256→ReLU→10, batch 64,
// cross-entropy) with each optimizer: ZeroGrad, forward, backward, Step.
func BenchmarkTrainStep(b *testing.B) {
	for _, bc := range []struct {
		name string
		opt  func([]Param) Optimizer
	}{
		{"sgd", func(ps []Param) Optimizer { return NewSGD(ps, 0.01) }},
		{"sgd_momentum", func(ps []Param) Optimizer { o := NewSGD(ps, 0.01); o.Momentum = 0.9; return o }},
		{"adam", func(ps []Param) Optimizer { return NewAdam(ps) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			g := tensor.NewGenerator(2)
			x := agx.New(g.Randn(tensor.Float32, 64, 784))
			y := agx.New(g.Randint(0, 10, 64))
			m := NewSequential(NewLinear(784, 256, WithGenerator(g)), ReLU(), NewLinear(256, 10, WithGenerator(g)))
			opt := bc.opt(m.Parameters())
			b.ReportAllocs()
			for b.Loop() {
				opt.ZeroGrad()
				CrossEntropyLoss{}.Forward(m.Forward(x), y).Backward()
				opt.Step()
			}
		})
	}
}
