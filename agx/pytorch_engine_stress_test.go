package agx_test

// Engine-level properties PyTorch tests too: deep graphs run without deep
// stacks (test_deep_reentrant / test_no_unnecessary_save), independent graphs
// may be differentiated concurrently, repeated steps do not leak, and saved
// tensors are released after a backward pass without RetainGraph.

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

func TestPortDeepChain(t *testing.T) {
	const depth = 150_000
	x := ptLeaf(0.5)
	y := x
	for i := 0; i < depth; i++ {
		y = y.Add(1.0)
	}
	y = y.Mul(2.0)
	// A recursive engine would need tens of megabytes of stack for this
	// chain; run the pass on a goroutine with a small stack limit.
	prev := debug.SetMaxStack(4 << 20)
	defer debug.SetMaxStack(prev)
	done := make(chan error)
	go func() { done <- agx.Try(func() { y.Backward() }) }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ptClose(t, "x.grad", x.Grad(), 2)
	ptClose(t, "y", y, 2*(0.5+depth))
}

// ptSoftplus is a small custom Function for the concurrency and memory tests:
// log(1+eˣ), derivative sigmoid(x).
type ptSoftplus struct{}

func (ptSoftplus) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Exp().Log1p())
}

func (ptSoftplus) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(ctx.SavedTensors()[0].Sigmoid()))
}

// ptMLP is loss = Σ softplus(x·W1ᵀ + b1)·W2ᵀ for fixed parameters.
type ptMLP struct{ x, w1, b1, w2 *agx.Tensor }

func newPtMLP(seed float64) ptMLP {
	vals := func(n int, scale float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = scale * math.Sin(seed+float64(i)*0.7)
		}
		return v
	}
	return ptMLP{
		x:  agx.FromSlice(vals(4*3, 1), 4, 3),
		w1: agx.FromSlice(vals(5*3, 0.5), 5, 3).SetRequiresGrad(true),
		b1: agx.FromSlice(vals(5, 0.1), 5).SetRequiresGrad(true),
		w2: agx.FromSlice(vals(2*5, 0.5), 2, 5).SetRequiresGrad(true),
	}
}

func (m ptMLP) step() *agx.Tensor {
	h := agx.Apply(ptSoftplus{}, m.x.MatMul(m.w1.T()).Add(m.b1))
	loss := h.MatMul(m.w2.T()).Pow(2.0).Mean()
	loss.Backward()
	return loss
}

func TestPortConcurrentBackward(t *testing.T) {
	const workers = 8
	// Reference gradients, computed sequentially.
	want := make([][]float64, workers)
	for w := range want {
		m := newPtMLP(float64(w))
		m.step()
		want[w] = append(m.w1.Grad().Float64s(), m.b1.Grad().Float64s()...)
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	got := make([][]float64, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := newPtMLP(float64(w))
			errs[w] = agx.Try(func() {
				for i := 0; i < 20; i++ {
					m.w1.ZeroGrad()
					m.b1.ZeroGrad()
					m.w2.ZeroGrad()
					m.step()
				}
			})
			if errs[w] == nil {
				got[w] = append(m.w1.Grad().Float64s(), m.b1.Grad().Float64s()...)
			}
		}()
	}
	wg.Wait()
	for w := 0; w < workers; w++ {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		for i := range want[w] {
			if math.Abs(got[w][i]-want[w][i]) > 1e-12 {
				t.Fatalf("worker %d: grad %d = %v, want %v", w, i, got[w][i], want[w][i])
			}
		}
	}
}

func TestPortHeapFlat(t *testing.T) {
	m := newPtMLP(1)
	heapAt := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var h200, h2000 uint64
	for step := 1; step <= 2000; step++ {
		m.w1.ZeroGrad()
		m.b1.ZeroGrad()
		m.w2.ZeroGrad()
		m.step()
		switch step {
		case 200:
			h200 = heapAt()
		case 2000:
			h2000 = heapAt()
		}
	}
	if h2000 > 2*h200+1<<20 {
		t.Fatalf("heap grew from %d B at step 200 to %d B at step 2000", h200, h2000)
	}
}

func TestPortSavedReleased(t *testing.T) {
	for _, tc := range []struct {
		name   string
		retain bool
	}{{"freed_without_retain_graph", false}, {"kept_with_retain_graph", true}} {
		t.Run(tc.name, func(t *testing.T) {
			x := ptLeaf(1, 2, 3)
			y := agx.Apply(ptSquare{}, x).Sum()
			before := agx.GraphDOT(y)
			if !strings.Contains(before, "ptSquareBackward") || !strings.Contains(before, "saved 24 B") {
				t.Fatalf("before backward:\n%s", before)
			}
			y.Backward(agx.RetainGraph(tc.retain))
			after := agx.GraphDOT(y)
			freed := strings.Contains(after, "saved: freed")
			kept := strings.Contains(after, "saved 24 B")
			if freed == tc.retain || kept != tc.retain {
				t.Fatalf("retain %v: after backward:\n%s", tc.retain, after)
			}
		})
	}
	t.Run("builtin_nodes_freed", func(t *testing.T) {
		x := ptLeaf(1, 2)
		y := x.Exp().Mul(x).Sum()
		y.Backward()
		dot := agx.GraphDOT(y)
		if n := strings.Count(dot, "saved: freed"); n != 2 {
			t.Fatalf("%d freed nodes, want 2 (ExpBackward0, MulBackward0):\n%s", n, dot)
		}
		if strings.Contains(dot, "saved ") && strings.Contains(dot, " B\"") {
			t.Fatalf("some node still holds saved tensors:\n%s", dot)
		}
	})
}

// ptCollected reports whether the garbage collector reclaims obj once the
// caller drops it, polling a bounded number of collections.
func ptCollected(obj *tensor.Tensor, keep func()) bool {
	freed := make(chan struct{})
	runtime.AddCleanup(obj, func(struct{}) { close(freed) }, struct{}{})
	for i := 0; i < 20; i++ {
		runtime.GC()
		select {
		case <-freed:
			keep()
			return true
		case <-time.After(10 * time.Millisecond):
		}
	}
	keep()
	return false
}

func TestPortSavedMemoryReclaimed(t *testing.T) {
	// After a pass without RetainGraph, a tensor saved by a Function (and not
	// otherwise referenced) can be collected while the graph's output lives.
	for _, tc := range []struct {
		name   string
		retain bool
	}{{"without_retain_graph", false}, {"with_retain_graph", true}} {
		t.Run(tc.name, func(t *testing.T) {
			a := agx.Ones(agx.Float64, 1000).SetRequiresGrad(true)
			h := a.Mul(2.0)
			data := h.Data()
			y := agx.Apply(ptSquare{}, h).Sum()
			h = nil
			y.Backward(agx.RetainGraph(tc.retain))
			if got := ptCollected(data, func() { runtime.KeepAlive(y) }); got == tc.retain {
				t.Fatalf("retain %v: saved input collected = %v", tc.retain, got)
			}
		})
	}
}

func BenchmarkPortChain(b *testing.B) {
	for _, depth := range []int{100, 10_000} {
		b.Run(fmt.Sprint(depth), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x := ptLeaf(1)
				y := x
				for i := 0; i < depth; i++ {
					y = y.Add(1.0)
				}
				y.Backward()
			}
		})
	}
}
