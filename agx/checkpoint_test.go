package agx

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/goagx/agx/tensor"
)

// ckMLP is a small MLP whose layers close over their weights, as nn layers
// do: the weights are not inputs of the checkpointed segments.
type ckMLP struct {
	ws, bs []*Tensor
}

func newCkMLP(dt DType, depth, width int, seed uint64) *ckMLP {
	g := tensor.NewGenerator(seed)
	m := &ckMLP{}
	for range depth {
		m.ws = append(m.ws, New(g.Randn(Float64, width, width).To(dt)).Mul(0.4).Detach().SetRequiresGrad(true))
		m.bs = append(m.bs, New(g.Randn(Float64, width).To(dt)).Mul(0.1).Detach().SetRequiresGrad(true))
	}
	return m
}

// layer l: tanh(x·W + b), with a dropout-like mask drawn from the default
// generator when drop is set.
func (m *ckMLP) layer(l int, drop bool) func(in ...*Tensor) *Tensor {
	return func(in ...*Tensor) *Tensor {
		h := in[0].MatMul(m.ws[l]).Add(m.bs[l]).Tanh()
		if drop {
			keep := New(tensor.Rand(h.DType(), h.Shape()...)).Gt(0.3).To(h.DType())
			h = h.Mul(keep).Div(0.7)
		}
		return h
	}
}

// forward runs the layers in segments of seg layers, checkpointed when ck.
func (m *ckMLP) forward(x *Tensor, seg int, ck, drop bool) *Tensor {
	h := x
	for l0 := 0; l0 < len(m.ws); l0 += seg {
		l1 := min(l0+seg, len(m.ws))
		run := func(in ...*Tensor) *Tensor {
			h := in[0]
			for l := l0; l < l1; l++ {
				h = m.layer(l, drop)(h)
			}
			return h
		}
		if ck {
			h = Checkpoint(run, h)
		} else {
			h = run(h)
		}
	}
	return h.Mul(h).Sum()
}

func (m *ckMLP) params() []*Tensor { return append(append([]*Tensor{}, m.ws...), m.bs...) }

// savedBytesOf sums the bytes held by the saved tensors of every node out
// reaches.
func savedBytesOf(out *Tensor) int {
	seen := map[*Node]bool{}
	stack := []*Node{out.GradFn()}
	total := 0
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil || seen[n] {
			continue
		}
		seen[n] = true
		total += n.savedBytes()
		for _, e := range n.next {
			stack = append(stack, e.Node)
		}
	}
	return total
}

func assertSame(t *testing.T, what string, got, want *Tensor) {
	t.Helper()
	if got == nil || want == nil {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	g, w := got.Float64s(), want.Float64s()
	if len(g) != len(w) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("%s[%d] = %v, want %v (bit-identical to the plain call)", what, i, g[i], w[i])
		}
	}
}

// TestCheckpointMatchesPlain: gradients through checkpointed segments are
// those of the plain graph, bit for bit, for Backward and Grad, with and
// without random draws inside the segments, in both float dtypes; and the
// graph between forward and backward holds less.
func TestCheckpointMatchesPlain(t *testing.T) {
	for _, dt := range []DType{Float64, Float32} {
		for _, drop := range []bool{false, true} {
			for _, seg := range []int{1, 2, 3} {
				t.Run(fmt.Sprintf("%v/drop=%v/seg=%d", dt, drop, seg), func(t *testing.T) {
					m := newCkMLP(dt, 6, 8, 1)
					x := New(tensor.NewGenerator(2).Randn(dt, 5, 8)).SetRequiresGrad(true)
					leaves := append([]*Tensor{x}, m.params()...)

					ManualSeed(11)
					plain := m.forward(x, seg, false, drop)
					plainBytes := savedBytesOf(plain)
					want := Grad([]*Tensor{plain}, leaves)
					afterPlain := tensor.Rand(Float64, 3).Float64s()

					ManualSeed(11)
					ck := m.forward(x, seg, true, drop)
					ckBytes := savedBytesOf(ck)
					if ck.Item() != plain.Item() {
						t.Fatalf("forward %v, plain %v", ck.Item(), plain.Item())
					}
					got := Grad([]*Tensor{ck}, leaves)
					for i := range leaves {
						assertSame(t, fmt.Sprintf("grad %d", i), got[i], want[i])
					}
					// The recomputation restored the caller's stream afterwards.
					if after := tensor.Rand(Float64, 3).Float64s(); fmt.Sprint(after) != fmt.Sprint(afterPlain) {
						t.Errorf("default generator after backward: %v, want %v", after, afterPlain)
					}
					if ckBytes*2 > plainBytes {
						t.Errorf("checkpointed graph holds %d saved bytes, plain %d: want under half", ckBytes, plainBytes)
					}

					// Backward accumulates the same into the leaves.
					ManualSeed(11)
					m.forward(x, seg, true, drop).Backward()
					for i, l := range leaves {
						assertSame(t, fmt.Sprintf("Backward grad %d", i), l.Grad(), want[i])
						l.ZeroGrad()
					}
				})
			}
		}
	}
}

// TestCheckpointRecomputesOncePerPass counts the calls of fn.
func TestCheckpointRecomputesOncePerPass(t *testing.T) {
	calls := 0
	x := FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	fn := func(in ...*Tensor) *Tensor {
		calls++
		return in[0].Exp().Mul(in[0]).Sin()
	}
	y := Checkpoint(fn, x).Sum()
	if calls != 1 {
		t.Fatalf("forward called fn %d times", calls)
	}
	y.Backward(RetainGraph())
	if calls != 2 {
		t.Fatalf("after one backward fn ran %d times, want 2", calls)
	}
	g1 := x.Grad().Clone()
	x.ZeroGrad()
	y.Backward() // retained: the recomputed tensors are still there
	if calls != 2 {
		t.Errorf("second backward with the graph retained recomputed again (%d calls)", calls)
	}
	assertSame(t, "second grad", x.Grad(), g1)
	err := Try(func() { y.Backward() })
	if !errors.Is(err, ErrGraph) || !strings.Contains(fmt.Sprint(err), "second time") {
		t.Errorf("third backward after a pass that freed the graph: %v", err)
	}
}

// TestCheckpointDoubleBackward: CreateGraph through a checkpoint gives
// differentiable gradients equal to the plain ones, and GradCheck and
// GradGradCheck pass through it.
func TestCheckpointDoubleBackward(t *testing.T) {
	w := FromSlice([]float64{0.3, -0.7, 1.1}).SetRequiresGrad(true)
	seg := func(in ...*Tensor) *Tensor { return in[0].Mul(w).Tanh().Mul(in[0]).Exp() }
	derivs := func(ck bool) (g *Tensor, gg []*Tensor) {
		x := FromSlice([]float64{0.5, -1, 2}).SetRequiresGrad(true)
		var y *Tensor
		if ck {
			y = Checkpoint(seg, x)
		} else {
			y = seg(x)
		}
		g = Grad([]*Tensor{y.Sum()}, []*Tensor{x}, CreateGraph())[0]
		if !g.RequiresGrad() {
			t.Fatalf("checkpoint=%v: gradient with CreateGraph does not require grad", ck)
		}
		return g, Grad([]*Tensor{g.Mul(g).Sum()}, []*Tensor{x, w})
	}
	g, gg := derivs(false)
	g2, gg2 := derivs(true)
	assertSame(t, "first derivative", g2, g)
	assertSame(t, "second derivative wrt x", gg2[0], gg[0])
	assertSame(t, "second derivative wrt closed-over w", gg2[1], gg[1])

	x := FromSlice([]float64{0.5, -1, 2}).SetRequiresGrad(true)
	f := func(in ...*Tensor) *Tensor { return Checkpoint(seg, in[0]) }
	if err := GradCheck(f, []*Tensor{x}); err != nil {
		t.Errorf("GradCheck through Checkpoint: %v", err)
	}
	if err := GradGradCheck(f, []*Tensor{x}); err != nil {
		t.Errorf("GradGradCheck through Checkpoint: %v", err)
	}
	// With a wrong custom backward inside the segment, GradCheck still fails:
	// the checkpoint does not hide the error.
	bad := Func{FuncName: "BadSquare",
		Fwd: func(c *Ctx, in ...*Tensor) []*Tensor { c.SaveForBackward(in[0]); return Outputs(in[0].Mul(in[0])) },
		Bwd: func(c *Ctx, g ...*Tensor) []*Tensor { return Outputs(g[0].Mul(c.SavedTensors()[0])) }}
	fb := func(in ...*Tensor) *Tensor {
		return Checkpoint(func(in ...*Tensor) *Tensor { return Apply(bad, in[0]) }, in[0])
	}
	if err := GradCheck(fb, []*Tensor{x}); !errors.Is(err, ErrGradCheck) {
		t.Errorf("GradCheck of a wrong backward through Checkpoint: %v", err)
	}
}

// TestCheckpointCustomFunction: a custom Function inside the segment gets
// its saved tensors (and ctx values) back, with its double backward.
func TestCheckpointCustomFunction(t *testing.T) {
	cube := Func{FuncName: "Cube",
		Fwd: func(c *Ctx, in ...*Tensor) []*Tensor {
			c.SaveForBackward(in[0])
			c.Set("k", 3.0)
			return Outputs(in[0].Pow(3))
		},
		Bwd: func(c *Ctx, g ...*Tensor) []*Tensor {
			x := c.SavedTensors()[0]
			return Outputs(g[0].Mul(x.Mul(x)).Mul(CtxValue[float64](c, "k")))
		}}
	seg := func(in ...*Tensor) *Tensor { return Apply(cube, in[0].Sin()).Mul(in[1]) }
	x := FromSlice([]float64{0.2, 0.9}).SetRequiresGrad(true)
	b := FromSlice([]float64{2, -1}).SetRequiresGrad(true)
	want := Grad([]*Tensor{seg(x, b).Sum()}, []*Tensor{x, b})
	y := Checkpoint(seg, x, b)
	if sv := y.GradFn().NextFunctions()[0].Node.SavedValues(); sv == nil || sv[0] != nil {
		t.Errorf("the Function's node still holds its saved input before backward: %v", sv)
	}
	got := Grad([]*Tensor{y.Sum()}, []*Tensor{x, b})
	assertSame(t, "dx", got[0], want[0])
	assertSame(t, "db", got[1], want[1])
	if err := GradGradCheck(func(in ...*Tensor) *Tensor { return Checkpoint(seg, in...) }, []*Tensor{x, b}); err != nil {
		t.Error(err)
	}
}

// TestCheckpointNested: a checkpoint inside a checkpointed fn.
func TestCheckpointNested(t *testing.T) {
	inner := func(in ...*Tensor) *Tensor { return in[0].Sigmoid().Mul(in[0]) }
	outer := func(in ...*Tensor) *Tensor {
		h := in[0].Exp()
		h = Checkpoint(inner, h)
		return h.Tanh().Mul(in[0])
	}
	x := FromSlice([]float64{0.1, -0.4, 1.3}).SetRequiresGrad(true)
	want := Grad([]*Tensor{outer(x).Sum()}, []*Tensor{x})[0]
	got := Grad([]*Tensor{Checkpoint(outer, x).Sum()}, []*Tensor{x})[0]
	assertSame(t, "nested", got, want)
	if err := GradGradCheck(func(in ...*Tensor) *Tensor { return Checkpoint(outer, in...) }, []*Tensor{x}); err != nil {
		t.Error(err)
	}
}

// TestCheckpointRNG: PreserveRNG(false) recomputes with other draws (so the
// gradient is that of another mask), and CheckpointGenerators restores a
// generator of the caller's own.
func TestCheckpointRNG(t *testing.T) {
	x := New(tensor.NewGenerator(5).Randn(Float64, 64)).SetRequiresGrad(true)
	mine := tensor.NewGenerator(9)
	drop := func(gen *tensor.Generator) func(in ...*Tensor) *Tensor {
		return func(in ...*Tensor) *Tensor {
			keep := New(gen.Rand(Float64, 64)).Gt(0.5).To(Float64)
			return in[0].Exp().Mul(keep)
		}
	}
	cases := []struct {
		name  string
		gen   *tensor.Generator
		opts  []CheckpointOption
		equal bool
	}{
		{"default_preserved", tensor.DefaultGenerator(), nil, true},
		{"default_not_preserved", tensor.DefaultGenerator(), []CheckpointOption{PreserveRNG(false)}, false},
		{"own_generator_named", mine, []CheckpointOption{CheckpointGenerators(mine)}, true},
		{"own_generator_not_named", mine, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.gen.State()
			want := Grad([]*Tensor{drop(tc.gen)(x).Sum()}, []*Tensor{x})[0]
			tc.gen.SetState(st)
			y := CheckpointWith(func(in ...*Tensor) []*Tensor { return Outputs(drop(tc.gen)(in...)) }, []*Tensor{x}, tc.opts...)[0]
			got := Grad([]*Tensor{y.Sum()}, []*Tensor{x})[0]
			same := fmt.Sprint(got.Float64s()) == fmt.Sprint(want.Float64s())
			if same != tc.equal {
				t.Errorf("gradient equal to the plain one: %v, want %v", same, tc.equal)
			}
		})
	}
}

// TestCheckpointEdgeCases covers inputs without grad, NoGrad, a backward
// run inside NoGrad, nil inputs, and several outputs.
func TestCheckpointEdgeCases(t *testing.T) {
	w := FromSlice([]float64{1.5, -2}).SetRequiresGrad(true)
	t.Run("input_without_grad_param_with", func(t *testing.T) {
		x := FromSlice([]float64{0.3, 0.6}) // does not require grad
		y := Checkpoint(func(in ...*Tensor) *Tensor { return in[0].Mul(w).Exp() }, x)
		g := Grad([]*Tensor{y.Sum()}, []*Tensor{w})[0]
		want := Grad([]*Tensor{x.Mul(w).Exp().Sum()}, []*Tensor{w})[0]
		assertSame(t, "dw", g, want)
	})
	t.Run("no_grad_runs_fn_once", func(t *testing.T) {
		calls := 0
		NoGrad(func() {
			y := Checkpoint(func(in ...*Tensor) *Tensor { calls++; return in[0].Mul(w) }, FromSlice([]float64{1, 2}))
			if y.RequiresGrad() {
				t.Error("output under NoGrad requires grad")
			}
		})
		if calls != 1 {
			t.Errorf("fn ran %d times", calls)
		}
	})
	t.Run("backward_inside_nograd", func(t *testing.T) {
		x := FromSlice([]float64{0.3, 0.6}).SetRequiresGrad(true)
		y := Checkpoint(func(in ...*Tensor) *Tensor { return in[0].Mul(w).Sin() }, x).Sum()
		var g *Tensor
		NoGrad(func() { g = Grad([]*Tensor{y}, []*Tensor{x})[0] })
		want := Grad([]*Tensor{x.Mul(w).Sin().Sum()}, []*Tensor{x})[0]
		assertSame(t, "dx", g, want)
		if !IsGradEnabled() {
			t.Error("grad mode left disabled")
		}
	})
	t.Run("nil_input_and_two_outputs", func(t *testing.T) {
		x := FromSlice([]float64{0.3, 0.6}).SetRequiresGrad(true)
		fn := func(in ...*Tensor) []*Tensor {
			if in[1] != nil {
				panic("expected nil")
			}
			a := in[0].Exp()
			return Outputs(a.Mul(w), a.Sin())
		}
		outs := CheckpointN(fn, x, nil)
		g := Grad([]*Tensor{outs[0].Sum().Add(outs[1].Sum())}, []*Tensor{x})[0]
		p := fn(x, nil)
		want := Grad([]*Tensor{p[0].Sum().Add(p[1].Sum())}, []*Tensor{x})[0]
		assertSame(t, "dx", g, want)
	})
}

// TestCheckpointErrors: clear failures for misuse.
func TestCheckpointErrors(t *testing.T) {
	x := func() *Tensor { return FromSlice([]float64{0.3, 0.6}).SetRequiresGrad(true) }
	cases := []struct {
		name string
		run  func()
		is   error
		msg  string
	}{
		{"nil_fn", func() { Checkpoint(nil, x()) }, tensor.ErrArg, "fn is nil"},
		{"nil_output", func() { CheckpointN(func(...*Tensor) []*Tensor { return []*Tensor{nil} }, x()) }, tensor.ErrArg, "nil as output 0"},
		{"no_outputs", func() { CheckpointN(func(...*Tensor) []*Tensor { return nil }, x()) }, tensor.ErrArg, "no outputs"},
		{"nil_generator", func() {
			CheckpointWith(func(in ...*Tensor) []*Tensor { return in }, []*Tensor{x()}, CheckpointGenerators(nil))
		}, tensor.ErrArg, "generator 0"},
		{"nondeterministic_ops", func() {
			calls := 0
			y := Checkpoint(func(in ...*Tensor) *Tensor {
				calls++
				h := in[0].Exp()
				if calls > 1 {
					h = h.Sin()
				}
				return h
			}, x())
			y.Sum().Backward()
		}, ErrGraph, "recomputation of the checkpointed function differs from its forward: it recorded 2 ops, the forward 1"},
		{"nondeterministic_shapes", func() {
			calls := 0
			y := Checkpoint(func(in ...*Tensor) *Tensor {
				calls++
				h := in[0]
				if calls > 1 {
					h = h.Narrow(0, 0, 1)
				}
				return h.Exp().Sum()
			}, x())
			y.Backward()
		}, ErrGraph, "differs from its forward"},
		{"input_modified_in_place", func() {
			a := x()
			h := a.Mul(1) // a non-leaf input that may be modified in place
			y := Checkpoint(func(in ...*Tensor) *Tensor { return in[0].Exp() }, h)
			h.MulInPlace(2)
			y.Sum().Backward()
		}, ErrInplace, "input 0 of the checkpointed function"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Try(tc.run)
			if !errors.Is(err, tc.is) || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Fatalf("got %v, want %v containing %q", err, tc.is, tc.msg)
			}
		})
	}
}

// TestCheckpointConcurrent: independent checkpointed graphs in several
// goroutines (run with -race), some of them inside NoGrad scopes.
func TestCheckpointConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for k := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := FromSlice([]float64{0.1 * float64(k), 0.5, -0.3}).SetRequiresGrad(true)
			seg := func(in ...*Tensor) *Tensor { return in[0].Tanh().Mul(in[0]).Exp() }
			want := Grad([]*Tensor{seg(x).Sum()}, []*Tensor{x})[0]
			var got *Tensor
			run := func() { got = Grad([]*Tensor{Checkpoint(seg, x).Sum()}, []*Tensor{x})[0] }
			if k%2 == 0 {
				y := Checkpoint(seg, x).Sum()
				NoGrad(func() { got = Grad([]*Tensor{y}, []*Tensor{x})[0] })
			} else {
				run()
			}
			if fmt.Sprint(got.Float64s()) != fmt.Sprint(want.Float64s()) {
				errs <- fmt.Errorf("goroutine %d: %v, want %v", k, got.Float64s(), want.Float64s())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
