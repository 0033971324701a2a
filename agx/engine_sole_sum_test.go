package agx_test

import (
	"math/rand/v2"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/gradpromise"
	"github.com/goagx/agx/tensor"
)

// keepNone is a custom Function that declares KeepsNoGrads and returns its
// gradient unchanged for both inputs (y = a + b).
type keepNone struct{ gradpromise.Promise }

func (keepNone) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Add(in[1]))
}

func (keepNone) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0], g[0])
}

// TestSoleSumMatchesReference differentiates graphs where a slot's first
// gradient is a result of the pass that the second adds into (pass-through
// backwards, views, Cat, custom Functions, checkpoints, retained grads,
// hooks, a user root gradient), once with buffer recycling (no CreateGraph)
// and once with CreateGraph as the reference, and checks the gradients
// agree and that nothing the user holds was written.
func TestSoleSumMatchesReference(t *testing.T) {
	type graph func(x, w *agx.Tensor) *agx.Tensor
	cases := []struct {
		name string
		f    graph
	}{
		{"add_self", func(x, w *agx.Tensor) *agx.Tensor { u := x.Mul(w); return u.Add(u).Add(u) }},
		{"diamond", func(x, w *agx.Tensor) *agx.Tensor { u := x.Mul(w); return u.Exp().Add(u.Tanh()).Add(u.Mul(u)) }},
		{"views", func(x, w *agx.Tensor) *agx.Tensor {
			u := x.Mul(w)
			return u.Reshape(96, 64).Reshape(64, 96).Add(u.View(-1).View(64, 96)).Add(u.T().T())
		}},
		{"cat", func(x, w *agx.Tensor) *agx.Tensor {
			u := x.Mul(w)
			c := agx.Cat(0, u, u, u.Exp())
			return c.Narrow(0, 0, 64).Add(c.Narrow(0, 64, 64)).Mul(c.Narrow(0, 128, 64))
		}},
		{"narrow_halves", func(x, w *agx.Tensor) *agx.Tensor {
			u := x.Mul(w).Exp()
			a, b := u.Narrow(0, 0, 32), u.Narrow(0, 32, 32)
			return agx.Cat(0, a.Add(b), b.Mul(a)).Add(u)
		}},
		{"expand", func(x, w *agx.Tensor) *agx.Tensor {
			u := x.Mul(w)
			s := u.Sum(0)
			return u.Add(s.Expand(64, 96)).Add(s.Expand(64, 96).Mul(u))
		}},
		{"keeps_none", func(x, w *agx.Tensor) *agx.Tensor {
			u := x.Mul(w)
			return agx.Apply(keepNone{}, u, u).Add(agx.Apply(keepNone{}, u.Exp(), u))
		}},
		{"checkpoint", func(x, w *agx.Tensor) *agx.Tensor {
			u := agx.Checkpoint(func(in ...*agx.Tensor) *agx.Tensor {
				v := in[0].Mul(in[1])
				return v.Add(v).Mul(v.Exp()).Add(v)
			}, x, w)
			return u.Add(u.Tanh())
		}},
		{"dtype_mix", func(x, w *agx.Tensor) *agx.Tensor {
			u := x.Mul(w)
			other := tensor.Float64
			if x.DType() == tensor.Float64 {
				other = tensor.Float32
			}
			return u.Add(u.To(other).Exp().To(u.DType())).Add(u.To(other).Mul(2))
		}},
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		for _, tc := range cases {
			t.Run(dt.String()+"/"+tc.name, func(t *testing.T) {
				gen := tensor.NewGenerator(7)
				xd, wd := gen.Randn(dt, recycleShape...).Mul(0.3), gen.Randn(dt, recycleShape...).Mul(0.3)
				grads := func(create bool, extra func(y *agx.Tensor) []agx.BackwardOption) (*tensor.Tensor, *tensor.Tensor) {
					x := agx.New(xd.Clone()).SetRequiresGrad(true)
					w := agx.New(wd.Clone()).SetRequiresGrad(true)
					y := tc.f(x, w)
					opts := []agx.BackwardOption{agx.CreateGraph(create)}
					if extra != nil {
						opts = append(opts, extra(y)...)
					}
					y.Backward(opts...)
					return x.Grad().Data().Clone(), w.Grad().Data().Clone()
				}
				up := gen.Randn(dt, recycleShape...)
				upCopy := up.Clone()
				root := func(*agx.Tensor) []agx.BackwardOption {
					return []agx.BackwardOption{agx.Gradient(agx.New(up))}
				}
				wx, ww := grads(true, root)
				gx, gw := grads(false, root)
				churn(dt)
				if !allClose(gx, wx, 1e-6) || !allClose(gw, ww, 1e-6) {
					t.Fatalf("gradients differ from CreateGraph's: max |dx| %v", gx.Sub(wx).Abs().Max().Item())
				}
				sameValues(t, "root gradient", up, upCopy)
			})
		}
	}
}

// TestSoleSumKeptGradients checks that gradients user code keeps (a hook's
// argument, a retained grad, Grad's results, a leaf's Grad over two passes
// with RetainGraph) hold the right sums and are not written by later sums.
func TestSoleSumKeptGradients(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			gen := tensor.NewGenerator(3)
			xd := gen.Randn(dt, recycleShape...).Mul(0.3)
			build := func() (x, u, y *agx.Tensor) {
				x = agx.New(xd.Clone()).SetRequiresGrad(true)
				u = x.Exp()
				v := u.Mul(2)
				y = v.Add(v).Add(u).Add(u.Tanh()).Sum()
				return x, u, y
			}
			// Reference: du = 2·2 + 1 + (1 - tanh²u); dx = du·e^x.
			e := xd.Exp()
			th := e.Tanh()
			wantU := tensor.Full(dt, 6, recycleShape...).Sub(th.Mul(th))
			wantX := wantU.Mul(e)

			// A hook on u keeps its argument; a retained grad on u.
			x, u, y := build()
			var hooked *agx.Tensor
			u.RegisterHook(func(g *agx.Tensor) *agx.Tensor { hooked = g; return nil })
			u.RetainGrad()
			y.Backward(agx.RetainGraph())
			churn(dt)
			if !allClose(hooked.Data(), wantU, 1e-5) || !allClose(u.Grad().Data(), wantU, 1e-5) {
				t.Fatalf("hooked or retained gradient of u is wrong")
			}
			if !allClose(x.Grad().Data(), wantX, 1e-5) {
				t.Fatalf("x.Grad wrong after the first pass")
			}
			first := x.Grad().Data().Clone()
			y.Backward()
			churn(dt)
			if !allClose(x.Grad().Data(), first.Mul(2), 1e-5) {
				t.Fatalf("x.Grad wrong after the second pass")
			}
			if !allClose(hooked.Data(), wantU, 1e-5) {
				t.Fatalf("a gradient the first pass's hook kept was written by the second")
			}

			// Grad with an intermediate and the leaf as inputs.
			x, u, y = build()
			gs := agx.Grad([]*agx.Tensor{y}, []*agx.Tensor{u, x})
			churn(dt)
			if !allClose(gs[0].Data(), wantU, 1e-5) || !allClose(gs[1].Data(), wantX, 1e-5) {
				t.Fatalf("Grad's results are wrong")
			}
		})
	}
}

// TestSoleSumRandomGraphs differentiates random graphs of fan-out, views,
// Cat of Narrows, self-sums, broadcasts and dtype round trips with buffer
// recycling and against CreateGraph, as TestSoleSumMatchesReference.
func TestSoleSumRandomGraphs(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		dt := tensor.Float32
		if seed%2 == 1 {
			dt = tensor.Float64
		}
		gen := tensor.NewGenerator(seed)
		xd := gen.Randn(dt, 64, 96).Mul(0.2)
		wd := gen.Randn(dt, 64, 96).Mul(0.2)
		build := func(x, w *agx.Tensor) *agx.Tensor {
			r := rand.New(rand.NewPCG(seed, 1))
			pool := []*agx.Tensor{x, w}
			pick := func() *agx.Tensor { return pool[r.IntN(len(pool))] }
			for i := 0; i < 12; i++ {
				a, b := pick(), pick()
				var y *agx.Tensor
				switch r.IntN(11) {
				case 0:
					y = a.Add(b)
				case 1:
					y = a.Mul(b)
				case 2:
					y = a.Sub(b)
				case 3:
					y = a.Tanh()
				case 4:
					y = a.Reshape(96, 64).Reshape(64, 96)
				case 5:
					y = agx.Cat(0, a.Narrow(0, 32, 32), b.Narrow(0, 0, 32))
				case 6:
					y = a.T().Mul(0.5).T()
				case 7:
					y = a.Add(a)
				case 8:
					y = a.Sum(0).Expand(64, 96).Mul(0.01).Add(b)
				case 9:
					other := tensor.Float64
					if dt == tensor.Float64 {
						other = tensor.Float32
					}
					y = a.To(other).Mul(1.5).To(dt)
				case 10:
					y = a.Reshape(-1).View(64, 96).Exp().Mul(0.1)
				}
				pool = append(pool, y)
			}
			s := pool[len(pool)-1]
			for _, p := range pool[2 : len(pool)-1] {
				if r.IntN(3) == 0 {
					s = s.Add(p)
				}
			}
			return s
		}
		up := gen.Randn(dt, 64, 96)
		upc := up.Clone()
		grads := func(create bool) (*tensor.Tensor, *tensor.Tensor) {
			x := agx.New(xd.Clone()).SetRequiresGrad(true)
			w := agx.New(wd.Clone()).SetRequiresGrad(true)
			build(x, w).Backward(agx.Gradient(agx.New(up)), agx.CreateGraph(create))
			gx, gw := tensor.ZerosLike(xd), tensor.ZerosLike(wd)
			if x.Grad() != nil {
				gx = x.Grad().Data().Clone()
			}
			if w.Grad() != nil {
				gw = w.Grad().Data().Clone()
			}
			return gx, gw
		}
		wx, ww := grads(true)
		gx, gw := grads(false)
		churn(dt)
		if !allClose(gx, wx, 1e-6) || !allClose(gw, ww, 1e-6) {
			t.Fatalf("seed %d: gradients differ from CreateGraph's", seed)
		}
		sameValues(t, "root gradient", up, upc)
	}
}

// twoOut is a two-output KeepsNoGrads Function: (2x, 3x).
type twoOut struct{ gradpromise.Promise }

func (twoOut) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Mul(2), in[0].Mul(3))
}

func (twoOut) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	var s *agx.Tensor
	if g[0] != nil {
		s = g[0].Mul(2)
	}
	if g[1] != nil {
		if s == nil {
			s = g[1].Mul(3)
		} else {
			s = s.Add(g[1].Mul(3))
		}
	}
	return agx.Outputs(s)
}

// TestSoleSumMultiOutput differentiates through a two-output Function
// whose outputs' slots each take several gradients, with one output listed
// twice among the roots and an output captured by Grad, with buffer
// recycling and against CreateGraph.
func TestSoleSumMultiOutput(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		xd := tensor.NewGenerator(1).Randn(dt, 64, 96)
		up := tensor.NewGenerator(2).Randn(dt, 64, 96)
		upc := up.Clone()
		run := func(create bool) *tensor.Tensor {
			x := agx.New(xd.Clone()).SetRequiresGrad(true)
			os := agx.ApplyN(twoOut{}, x)
			a, b := os[0], os[1]
			y := a.Add(a).Add(b.Tanh()).Add(b.Mul(a)).Add(b)
			z := a.Exp().Mul(0.01)
			gs := agx.Grad([]*agx.Tensor{y, z, y}, []*agx.Tensor{x, a}, agx.GradOutputs(agx.New(up), agx.New(up), agx.New(up)), agx.CreateGraph(create), agx.RetainGraph())
			y.Add(z).Backward(agx.Gradient(agx.New(up)), agx.CreateGraph(create))
			return tensor.Cat(0, gs[0].Data(), gs[1].Data(), x.Grad().Data()).Clone()
		}
		want := run(true)
		got := run(false)
		churn(dt)
		if !allClose(got, want, 1e-6) {
			t.Fatalf("%v: gradients differ from CreateGraph's", dt)
		}
		sameValues(t, "root", up, upc)
	}
}
