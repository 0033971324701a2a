package agx_test

import (
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/gradpromise"
	"github.com/goagx/agx/tensor"
)

// recycleShape is large enough for recyclable buffers (4096 elements or more).
var recycleShape = []int{64, 96}

// churn allocates many results of recycleShape and writes into them, so that
// any recycled buffer still referred to by something visible gets overwritten.
func churn(dt tensor.DType) {
	for i := 0; i < 32; i++ {
		tensor.Full(dt, 1234.5, recycleShape...).Mul(2)
	}
}

// allClose reports whether a and b agree to tol, relative and absolute.
func allClose(a, b *tensor.Tensor, tol float64) bool {
	x, y := a.Float64s(), b.Float64s()
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		d := x[i] - y[i]
		if d < 0 {
			d = -d
		}
		m := y[i]
		if m < 0 {
			m = -m
		}
		if !(d <= tol+tol*m) {
			return false
		}
	}
	return true
}

// sameValues fails unless got holds exactly want's values.
func sameValues(t *testing.T, what string, got, want *tensor.Tensor) {
	t.Helper()
	g, w := got.Float64s(), want.Float64s()
	for i := range w {
		if g[i] != w[i] {
			t.Fatalf("%s: element %d is %v, want %v", what, i, g[i], w[i])
		}
	}
}

// The engine recycles the intermediate gradients of a chain of built-in ops
// once their consumer has run, and the leaf's gradient is still right.
func TestBackwardRecyclesGradients(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		tensor.DropRecycled()
		x := agx.New(tensor.NewGenerator(1).Randn(dt, recycleShape...)).SetRequiresGrad(true)
		x.Exp().Mul(3).Tanh().Mul(x).Sum().Backward()
		if tensor.RecycledBytes() == 0 {
			t.Fatalf("%v: no gradient buffer was recycled", dt)
		}
		// d/dx [tanh(3e^x)·x] = (1 - tanh²(3e^x))·3e^x·x + tanh(3e^x)
		xd := x.Data()
		u := xd.Exp().Mul(3)
		th := u.Tanh()
		want := tensor.Full(dt, 1, recycleShape...).Sub(th.Mul(th)).Mul(u).Mul(xd).Add(th)
		got := x.Grad().Data().Clone()
		churn(dt)
		if !allClose(got, want, 1e-5) {
			t.Fatalf("%v: wrong gradient", dt)
		}
		sameValues(t, "leaf gradient after more allocations", x.Grad().Data(), got)
	}
}

// Whatever user code, a leaf, a retained grad or Grad may keep is never
// recycled: each kept gradient still holds its values after many more
// results of the same size have been allocated and written.
func TestRecycleKeepsVisibleGradients(t *testing.T) {
	dt := tensor.Float64
	gen := tensor.NewGenerator(2)
	base := gen.Randn(dt, recycleShape...)
	for _, tc := range []struct {
		name string
		run  func(x *agx.Tensor, o ...agx.BackwardOption) []*agx.Tensor // returns the gradients to check
	}{
		{"hook keeps its argument", func(x *agx.Tensor, o ...agx.BackwardOption) []*agx.Tensor {
			var kept *agx.Tensor
			h := x.Mul(2).Exp()
			h.RegisterHook(func(g *agx.Tensor) *agx.Tensor { kept = g; return nil })
			h.Mul(h).Sin().Sum().Backward(o...)
			return []*agx.Tensor{kept, x.Grad()}
		}},
		{"retained grad", func(x *agx.Tensor, o ...agx.BackwardOption) []*agx.Tensor {
			h := x.Tanh().Mul(3)
			h.RetainGrad()
			h.Exp().Mul(x).Sum().Backward(o...)
			return []*agx.Tensor{h.Grad(), x.Grad()}
		}},
		{"Grad of an intermediate", func(x *agx.Tensor, o ...agx.BackwardOption) []*agx.Tensor {
			h := x.Sigmoid().Mul(x)
			y := h.Exp().Mul(2).Sum()
			return agx.Grad([]*agx.Tensor{y}, []*agx.Tensor{h, x}, o...)
		}},
		{"pass-through into a leaf and on", func(x *agx.Tensor, o ...agx.BackwardOption) []*agx.Tensor {
			// Add's backward hands one gradient to both operands.
			x.Exp().Mul(x).Add(x).Tanh().Sum().Backward(o...)
			return []*agx.Tensor{x.Grad()}
		}},
		{"operand used twice", func(x *agx.Tensor, o ...agx.BackwardOption) []*agx.Tensor {
			h := x.Cos()
			h.Mul(h).Add(h.Mul(3)).Sum().Backward(o...)
			return []*agx.Tensor{x.Grad()}
		}},
		{"custom Function keeps its gradient", func(x *agx.Tensor, o ...agx.BackwardOption) []*agx.Tensor {
			var kept, returned *agx.Tensor
			f := agx.Func{FuncName: "Keep",
				Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
					return agx.Outputs(agx.New(in[0].Data().Mul(2)))
				},
				Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
					kept = g[0]
					returned = agx.New(g[0].Data().Mul(2))
					return agx.Outputs(returned)
				}}
			agx.Apply(f, x.Exp()).Tanh().Mul(3).Sum().Backward(o...)
			return []*agx.Tensor{kept, returned, x.Grad()}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tensor.DropRecycled()
			x := agx.New(base.Clone()).SetRequiresGrad(true)
			gs := tc.run(x)
			var copies []*tensor.Tensor
			for i, g := range gs {
				if g == nil {
					t.Fatalf("gradient %d is nil", i)
				}
				copies = append(copies, g.Data().Clone())
			}
			churn(dt)
			for i, g := range gs {
				sameValues(t, tc.name, g.Data(), copies[i])
			}
			// And the values are those of a pass that recycles nothing.
			x2 := agx.New(base.Clone()).SetRequiresGrad(true)
			ref := tc.run(x2, agx.CreateGraph())
			for i := range gs {
				if !allClose(gs[i].Data(), ref[i].Data(), 1e-12) {
					t.Fatalf("gradient %d differs from the non-recycling pass", i)
				}
			}
		})
	}
}

// ZeroGrad gives back a leaf gradient that the pass allocated for that leaf
// alone and that no one has been handed (BorrowGrad only lends it), and the
// next pass reuses it.
func TestZeroGradRecyclesUnseenGradient(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			gen := tensor.NewGenerator(3)
			x := agx.New(gen.Randn(dt, recycleShape...)).SetRequiresGrad(true)
			w := agx.New(gen.Randn(dt, recycleShape[1], recycleShape[1]))
			step := func() { x.MatMul(w).Tanh().Sum().Backward() }
			step()
			x.BorrowGrad(func(g *agx.Tensor) {
				if g == nil || g.Data().Sum().Item() == 0 {
					t.Fatal("BorrowGrad lent no gradient")
				}
			})
			tensor.DropRecycled()
			x.ZeroGrad()
			if got, want := tensor.RecycledBytes(), x.Numel()*dt.Size(); got != want {
				t.Fatalf("ZeroGrad recycled %d bytes, want %d (the gradient's)", got, want)
			}
			step()
			// d/dx sum(tanh(x·w)) = (1 - tanh²(x·w))·wᵀ
			th := x.Data().MatMul(w.Data()).Tanh()
			want := tensor.Full(dt, 1, th.Shape()...).Sub(th.Mul(th)).MatMul(w.Data().T())
			if !allClose(x.Grad().Data(), want, 1e-5) {
				t.Fatal("wrong gradient after reusing the recycled buffer")
			}
			// Grad has handed it out: ZeroGrad now leaves it alone.
			tensor.DropRecycled()
			x.ZeroGrad()
			if got := tensor.RecycledBytes(); got != 0 {
				t.Fatalf("ZeroGrad recycled %d bytes of a gradient Grad returned", got)
			}
		})
	}
}

// A gradient that someone may hold is never recycled or added into: each
// case keeps gradients (keep copies their values at that moment), clears
// them with ZeroGrad or runs more passes, and at the end, after more
// results of the same size have been allocated and written, what it kept
// must still hold the values it had when kept.
func TestZeroGradKeepsGradientsHandedOut(t *testing.T) {
	dt := tensor.Float64
	base := tensor.NewGenerator(4).Randn(dt, recycleShape...)
	for _, tc := range []struct {
		name string
		run  func(x, y *agx.Tensor, keep func(*agx.Tensor))
	}{
		{"Grad, then ZeroGrad and another pass", func(x, y *agx.Tensor, keep func(*agx.Tensor)) {
			x.Exp().Mul(y).Sum().Backward()
			keep(x.Grad())
			x.ZeroGrad()
			x.Sin().Mul(y).Sum().Backward()
		}},
		{"Grad, then one more pass accumulates out of place", func(x, y *agx.Tensor, keep func(*agx.Tensor)) {
			x.Exp().Mul(y).Sum().Backward()
			x.Exp().Mul(y).Sum().Backward() // the leaf now owns a sum
			keep(x.Grad())
			x.Sin().Mul(y).Sum().Backward()
		}},
		{"leaf hook keeps its argument", func(x, y *agx.Tensor, keep func(*agx.Tensor)) {
			x.RegisterHook(func(g *agx.Tensor) *agx.Tensor { keep(g); return nil })
			x.Exp().Mul(y).Sum().Backward()
			x.ZeroGrad()
		}},
		{"one gradient reaches two leaves", func(x, y *agx.Tensor, keep func(*agx.Tensor)) {
			// Add's backward hands the same gradient to both operands.
			x.Add(y).Tanh().Sum().Backward()
			keep(y.Grad())
			x.ZeroGrad()
		}},
		{"custom Function hands its gradient on", func(x, y *agx.Tensor, keep func(*agx.Tensor)) {
			f := agx.Func{FuncName: "Keep",
				Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
					return agx.Outputs(agx.New(in[0].Data().Mul(2)))
				},
				Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
					r := agx.New(g[0].Data().Mul(2))
					keep(r)
					return agx.Outputs(r)
				}}
			agx.Apply(f, x).Mul(y).Sum().Backward()
			x.ZeroGrad()
			x.Cos().Mul(y).Sum().Backward()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func() ([]*agx.Tensor, []*tensor.Tensor) {
				tensor.DropRecycled()
				x := agx.New(base.Clone()).SetRequiresGrad(true)
				y := agx.New(base.Mul(0.5)).SetRequiresGrad(true)
				var kept []*agx.Tensor
				var copies []*tensor.Tensor
				tc.run(x, y, func(g *agx.Tensor) {
					kept = append(kept, g)
					copies = append(copies, g.Data().Clone())
				})
				return kept, copies
			}
			gs, copies := run()
			if len(gs) == 0 {
				t.Fatal("the case kept nothing")
			}
			churn(dt)
			run() // another graph of the same sizes
			for i, g := range gs {
				sameValues(t, tc.name, g.Data(), copies[i])
			}
		})
	}
}

// Gradients accumulate in place into a sum the leaf owns, and the result
// is the sum of every pass.
func TestAccumulateIntoPooledGradient(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			x := agx.New(tensor.NewGenerator(5).Randn(dt, recycleShape...)).SetRequiresGrad(true)
			for i := 0; i < 4; i++ {
				x.Exp().Mul(float64(i + 1)).Sum().Backward()
			}
			want := x.Data().Exp().Mul(10) // (1+2+3+4)·eˣ
			if !allClose(x.Grad().Data(), want, 1e-5) {
				t.Fatal("accumulated gradient is wrong")
			}
		})
	}
}

// keeper is a Function, y = 2x, whose Backward returns a new gradient or
// passes the one it gets through (so its gradients are 2 and 1).
type keeper struct{ pass bool }

func (keeper) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(agx.New(in[0].Data().Mul(2)))
}

func (k keeper) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	if k.pass {
		return agx.Outputs(g[0])
	}
	return agx.Outputs(agx.New(g[0].Data().Mul(2)))
}

// keepsNone is keeper declaring KeepsNoGrads.
type keepsNone struct {
	keeper
	gradpromise.Promise
}

// A Function that declares KeepsNoGrads takes part in recycling like a
// built-in op: its incoming gradient is recycled once it has run (unless
// it passed it on), and the gradient it returns to a leaf becomes the
// leaf's own, which ZeroGrad recycles. One that does not declare it takes
// no part. Either way the gradients are right and stay right.
func TestKeepsNoGradsFunctionRecycles(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		for _, tc := range []struct {
			name          string
			f             agx.Function
			inPass, leaf  bool    // recycled during the pass, by ZeroGrad
			gradientScale float64 // the Function's own gradient
		}{
			{"declared", keepsNone{}, true, true, 2},
			{"declared, passes through", keepsNone{keeper: keeper{pass: true}}, false, true, 1},
			{"undeclared", keeper{}, false, false, 2},
		} {
			t.Run(dt.String()+"/"+tc.name, func(t *testing.T) {
				x := agx.New(tensor.NewGenerator(6).Randn(dt, recycleShape...)).SetRequiresGrad(true)
				want := x.Data().Mul(2).Exp().Mul(tc.gradientScale)
				for round := 0; round < 2; round++ {
					tensor.DropRecycled()
					agx.Apply(tc.f, x).Exp().Sum().Backward()
					inPass := tensor.RecycledBytes()
					if (inPass > 0) != tc.inPass {
						t.Fatalf("round %d: %d bytes recycled during the pass, want some: %v", round, inPass, tc.inPass)
					}
					var got *tensor.Tensor
					x.BorrowGrad(func(g *agx.Tensor) { got = g.Data().Clone() })
					if !allClose(got, want, 1e-6) {
						t.Fatalf("round %d: wrong gradient", round)
					}
					churn(dt)
					x.BorrowGrad(func(g *agx.Tensor) { sameValues(t, "leaf gradient after churn", g.Data(), got) })
					tensor.DropRecycled()
					x.ZeroGrad()
					if got, size := tensor.RecycledBytes(), x.Numel()*dt.Size(); (got == size) != tc.leaf || (got != 0 && got != size) {
						t.Fatalf("round %d: ZeroGrad recycled %d bytes (the gradient has %d), want it recycled: %v", round, got, size, tc.leaf)
					}
				}
			})
		}
	}
}

// split2 returns (2x, 3x) and keeps no gradients.
type split2 struct{ gradpromise.Promise }

func (split2) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(agx.New(in[0].Data().Mul(2)), agx.New(in[0].Data().Mul(3)))
}

func (split2) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(agx.New(g[0].Data().Mul(2).Add(g[1].Data().Mul(3))))
}

// A Function with two outputs that declares KeepsNoGrads gives back both
// incoming gradients.
func TestKeepsNoGradsTwoOutputs(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		x := agx.New(tensor.NewGenerator(8).Randn(dt, recycleShape...)).SetRequiresGrad(true)
		outs := agx.ApplyN(split2{}, x)
		tensor.DropRecycled()
		outs[0].Exp().Add(outs[1].Sin()).Sum().Backward()
		// Exp's and Sin's gradients, and the intermediate 2·g0 and 3·g1.
		if got, min := tensor.RecycledBytes(), 2*x.Numel()*dt.Size(); got < min {
			t.Fatalf("%v: %d bytes recycled, want at least %d (both incoming gradients)", dt, got, min)
		}
		xd := x.Data()
		want := xd.Mul(2).Exp().Mul(2).Add(xd.Mul(3).Cos().Mul(3))
		if !allClose(x.Grad().Data(), want, 1e-6) {
			t.Fatalf("%v: wrong gradient", dt)
		}
	}
}
