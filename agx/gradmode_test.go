package agx_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/goagx/agx/agx"
)

// TestNoGradPerGoroutine is the scenario of issue #23 item 10: one goroutine
// trains (each step must record its graph and produce a gradient) while
// another evaluates under NoGrad (which must record nothing). With a
// process-wide NoGrad most training steps failed. Run it with -race too.
func TestNoGradPerGoroutine(t *testing.T) {
	const steps = 2000
	for _, dt := range []agx.DType{agx.Float64, agx.Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			var failedTrain, recordedEval atomic.Int32
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // evaluation
				defer wg.Done()
				w := agx.Ones(dt, 4).SetRequiresGrad(true)
				for {
					select {
					case <-stop:
						return
					default:
					}
					agx.NoGrad(func() {
						y := w.Mul(agx.Ones(dt, 4)).Sum()
						if y.RequiresGrad() || agx.IsGradEnabled() {
							recordedEval.Add(1)
						}
					})
				}
			}()
			w := agx.Ones(dt, 4).SetRequiresGrad(true)
			for i := 0; i < steps; i++ {
				err := agx.Try(func() {
					w.ZeroGrad()
					y := w.Mul(agx.Full(dt, 2, 4)).Sum()
					y.Backward()
					if w.Grad() == nil || !agx.IsGradEnabled() {
						failedTrain.Add(1)
					}
				})
				if err != nil {
					failedTrain.Add(1)
				}
			}
			close(stop)
			wg.Wait()
			if n := failedTrain.Load(); n != 0 {
				t.Errorf("%d of %d training steps failed while another goroutine ran NoGrad", n, steps)
			}
			if n := recordedEval.Load(); n != 0 {
				t.Errorf("%d evaluations under NoGrad recorded a graph", n)
			}
		})
	}
}

// TestNoGradScope: nesting, restoring after a panic, and goroutines started
// inside NoGrad not inheriting it (as threads in PyTorch).
func TestNoGradScope(t *testing.T) {
	x := ptLeaf(1, 2)
	records := func() bool { return x.Mul(2.0).RequiresGrad() }
	for _, tc := range []struct {
		name string
		run  func() bool // reports whether the checks inside held
	}{
		{"nested", func() bool {
			ok := true
			agx.NoGrad(func() {
				agx.NoGrad(func() { ok = ok && !records() })
				ok = ok && !records() && !agx.IsGradEnabled()
			})
			return ok
		}},
		{"restored after panic", func() bool {
			_ = agx.Try(func() { agx.NoGrad(func() { x.Reshape(3) }) })
			return true
		}},
		{"goroutine started inside does not inherit", func() bool {
			var inner bool
			agx.NoGrad(func() {
				done := make(chan struct{})
				go func() { inner = records() && agx.IsGradEnabled(); close(done) }()
				<-done
			})
			return inner
		}},
		{"Grad with CreateGraph inside NoGrad records, as PyTorch's engine", func() bool {
			ok := true
			agx.NoGrad(func() {
				y := x.Mul(x).Mul(x).Sum() // not recorded: under NoGrad
				ok = ok && !y.RequiresGrad()
			})
			y := x.Mul(x).Mul(x).Sum()
			agx.NoGrad(func() {
				agx.NoGrad(func() {
					g := agx.Grad([]*agx.Tensor{y}, []*agx.Tensor{x}, agx.CreateGraph(), agx.RetainGraph())
					ok = ok && g[0].RequiresGrad() && g[0].GradFn() != nil && !records()
				})
				ok = ok && !records()
				// a panicking backward restores the scope too
				_ = agx.Try(func() { agx.Grad([]*agx.Tensor{y}, []*agx.Tensor{ptLeaf(1)}, agx.CreateGraph()) })
				ok = ok && !records() && !agx.IsGradEnabled()
			})
			return ok
		}},
		{"Backward with CreateGraph inside NoGrad records", func() bool {
			x := ptLeaf(1, 2)
			y := x.Mul(x).Mul(x).Sum()
			agx.NoGrad(func() { y.Backward(agx.CreateGraph()) })
			return x.Grad().RequiresGrad()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.run() {
				t.Fatal("grad mode inside the scope was wrong")
			}
			if !agx.IsGradEnabled() || !records() {
				t.Fatal("grad mode not restored after the scope")
			}
		})
	}
}

// TestEnableGrad: EnableGrad records inside NoGrad, nests, and restores
// the scope after f, also after a panic.
func TestEnableGrad(t *testing.T) {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	for _, tc := range []struct {
		name  string
		run   func(record func()) // how EnableGrad is entered
		want  bool                // whether ops inside record
		after bool                // grad mode after it
	}{
		{"outside NoGrad", func(r func()) { agx.EnableGrad(r) }, true, true},
		{"inside NoGrad", func(r func()) { agx.NoGrad(func() { agx.EnableGrad(r) }) }, true, true},
		{"NoGrad inside EnableGrad", func(r func()) { agx.EnableGrad(func() { agx.NoGrad(r) }) }, false, true},
		{"nested NoGrad scopes", func(r func()) { agx.NoGrad(func() { agx.NoGrad(func() { agx.EnableGrad(r) }) }) }, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got bool
			tc.run(func() { got = x.Mul(2).RequiresGrad() })
			if got != tc.want || agx.IsGradEnabled() != tc.after {
				t.Errorf("recorded %v (want %v), enabled after: %v", got, tc.want, agx.IsGradEnabled())
			}
		})
	}
	// A panic inside EnableGrad leaves the NoGrad scope in force.
	agx.NoGrad(func() {
		func() {
			defer func() { recover() }()
			agx.EnableGrad(func() { panic("boom") })
		}()
		if agx.IsGradEnabled() {
			t.Error("after a panic in EnableGrad, NoGrad is no longer in force")
		}
	})
}
