package nn

import (
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// The optimizers borrow gradients without writing them, so ZeroGrad can
// recycle them, and a training run that recycles gives bit for bit the
// parameters of one that does not (where every gradient is handed out with
// Grad first).
func TestOptimizersLeaveGradientsPooled(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  func(ps []Param) Optimizer
	}{
		{"sgd", func(ps []Param) Optimizer { return NewSGD(ps, 0.1) }},
		{"sgd_momentum", func(ps []Param) Optimizer { o := NewSGD(ps, 0.05); o.Momentum = 0.9; return o }},
		{"sgd_nesterov", func(ps []Param) Optimizer {
			o := NewSGD(ps, 0.05)
			o.Momentum, o.Nesterov = 0.9, true
			return o
		}},
		{"sgd_momentum_nesterov_decay", func(ps []Param) Optimizer {
			o := NewSGD(ps, 0.05)
			o.Momentum, o.Nesterov, o.WeightDecay = 0.9, true, 1e-3
			return o
		}},
		{"adam", func(ps []Param) Optimizer { o := NewAdam(ps); o.LR = 0.01; return o }},
		{"adam_amsgrad", func(ps []Param) Optimizer { o := NewAdam(ps); o.AMSGrad = true; return o }},
	} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			t.Run(tc.name+"/"+dt.String(), func(t *testing.T) {
				run := func(handOut bool) ([]*tensor.Tensor, int) {
					g := tensor.NewGenerator(9)
					x := agx.New(g.Randn(dt, 32, 64))
					y := agx.New(g.Randn(dt, 32, 96))
					m := NewSequential(NewLinear(64, 96, WithGenerator(g), WithDType(dt)), Tanh())
					opt := tc.opt(m.Parameters())
					recycled := 0
					for range 5 {
						MSELoss{}.Forward(m.Forward(x), y).Backward()
						var before []*tensor.Tensor
						for _, p := range m.Parameters() {
							p.Tensor.BorrowGrad(func(g *agx.Tensor) { before = append(before, g.Data().Clone()) })
						}
						opt.Step()
						// Step reads the gradients and writes none of them.
						for i, p := range m.Parameters() {
							p.Tensor.BorrowGrad(func(g *agx.Tensor) {
								a, b := g.Data().Float64s(), before[i].Float64s()
								for j := range a {
									if a[j] != b[j] {
										t.Fatalf("Step changed parameter %d's gradient at element %d", i, j)
									}
								}
							})
						}
						if handOut {
							for _, p := range m.Parameters() {
								p.Tensor.Grad()
							}
						}
						tensor.DropRecycled()
						opt.ZeroGrad()
						recycled += tensor.RecycledBytes()
						// Churn: results of the weight's size overwrite any
						// recycled buffer something still refers to.
						for range 4 {
							tensor.Full(dt, 7, 96, 64).Mul(3)
						}
					}
					var ps []*tensor.Tensor
					for _, p := range m.Parameters() {
						ps = append(ps, p.Tensor.Data().Clone())
					}
					return ps, recycled
				}
				pooled, recycled := run(false)
				kept, none := run(true)
				if min := 5 * 96 * 64 * dt.Size(); recycled < min {
					t.Errorf("ZeroGrad recycled %d bytes over 5 steps, want at least %d (the weight's gradients)", recycled, min)
				}
				if none != 0 {
					t.Errorf("ZeroGrad recycled %d bytes of gradients that Grad had handed out", none)
				}
				for i := range kept {
					a, b := pooled[i].Float64s(), kept[i].Float64s()
					for j := range a {
						if a[j] != b[j] {
							t.Fatalf("parameter %d element %d: %v with recycling, %v without", i, j, a[j], b[j])
						}
					}
				}
			})
		}
	}
}
