package nn

import (
	"math"
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
		{"adam_decay", func(ps []Param) Optimizer { o := NewAdam(ps); o.WeightDecay = 0.1; return o }},
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

// Adam gives its temporaries back (tensor.Recycle) as soon as it is done
// with them; on parameters large enough for recycled buffers it must still
// follow the update rule, step after step (with AGX_DEBUG_UNINIT=1 a
// recycled buffer read again is NaN).
func TestAdamRecycledTemporaries(t *testing.T) {
	for _, decay := range []float64{0, 0.1} {
		for _, ams := range []bool{false, true} {
			g := tensor.NewGenerator(3)
			w := agx.New(g.Randn(tensor.Float64, 64, 96)).SetRequiresGrad(true)
			v := agx.New(g.Randn(tensor.Float64, 80, 70)).SetRequiresGrad(true)
			o := NewAdam([]Param{{"w", w}, {"v", v}})
			o.LR, o.WeightDecay, o.AMSGrad = 0.01, decay, ams
			type ref struct{ x, m, s, smax []float64 }
			refs := []*ref{{x: w.Data().Float64s()}, {x: v.Data().Float64s()}}
			for _, r := range refs {
				r.m, r.s, r.smax = make([]float64, len(r.x)), make([]float64, len(r.x)), make([]float64, len(r.x))
			}
			for step := 1; step <= 4; step++ {
				for i, p := range []*agx.Tensor{w, v} {
					gr := g.Randn(tensor.Float64, p.Shape()...)
					p.SetGrad(agx.New(gr))
					r, gs := refs[i], gr.Float64s()
					bc1, bc2 := 1-math.Pow(o.Beta1, float64(step)), 1-math.Pow(o.Beta2, float64(step))
					for j := range r.x {
						d := gs[j] + decay*r.x[j]
						r.m[j] = o.Beta1*r.m[j] + (1-o.Beta1)*d
						r.s[j] = o.Beta2*r.s[j] + (1-o.Beta2)*d*d
						s := r.s[j]
						if ams {
							r.smax[j] = math.Max(r.smax[j], r.s[j])
							s = r.smax[j]
						}
						r.x[j] -= o.LR / bc1 * r.m[j] / (math.Sqrt(s)/math.Sqrt(bc2) + o.Eps)
					}
				}
				o.Step()
				for i, p := range []*agx.Tensor{w, v} {
					got := p.Data().Float64s()
					for j, want := range refs[i].x {
						if math.Abs(got[j]-want) > 1e-12*(1+math.Abs(want)) || math.IsNaN(got[j]) {
							t.Fatalf("decay %v, amsgrad %v, step %d, param %d, element %d: %v, want %v", decay, ams, step, i, j, got[j], want)
						}
					}
				}
			}
		}
	}
}
