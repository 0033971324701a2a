package agx

import (
	"runtime"
	"testing"
	"weak"

	"github.com/goagx/agx/tensor"
)

// After a backward without RetainGraph, a node's saved tensors must be
// unreachable from the graph (the outputs, and so the nodes, may live on).
// The ops here keep their input only as a saved tensor (their backward
// closures capture no tensors).
func TestOpsReleaseSavedTensors(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(x *Tensor) *Tensor
	}{
		{"Log", func(x *Tensor) *Tensor { return x.Add(1).Log() }},
		{"Sin", func(x *Tensor) *Tensor { return x.Add(1).Sin() }},
		{"Pow", func(x *Tensor) *Tensor { return x.Add(1).Pow(3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := FromSlice([]float64{1, 2}).SetRequiresGrad(true)
			y := tc.f(x)
			// The intermediate x+1 is saved by the last op and referenced
			// only through its node.
			var ref weak.Pointer[tensor.Tensor]
			for _, s := range y.GradFn().saved {
				if s.t != nil && s.t != x && s.t != y {
					ref = weak.Make(s.t.data)
				}
			}
			if ref.Value() == nil {
				t.Fatal("no intermediate saved tensor")
			}
			y.Sum().Backward()
			runtime.GC()
			runtime.GC()
			if ref.Value() != nil {
				t.Fatalf("%s: a saved intermediate is still reachable after backward", y.GradFn().Name())
			}
			runtime.KeepAlive(y)
		})
	}
}
