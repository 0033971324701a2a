package agx

import "testing"

// TestFastBackwardHookKeepsSlice checks that a post hook on an Add or Mul node,
// whose backward otherwise writes into the pass's reused slice, gets a slice
// of its own that still holds the gradients after the pass.
func TestFastBackwardHookKeepsSlice(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		for _, op := range []string{"Add", "Mul"} {
			t.Run(dt.String()+"/"+op, func(t *testing.T) {
				x := Full(dt, 3).SetRequiresGrad(true)
				w := Full(dt, 2).SetRequiresGrad(true)
				a := x.Mul(w).Add(w) // fast nodes that run after the hooked one
				var y *Tensor
				if op == "Add" {
					y = a.Add(w)
				} else {
					y = a.Mul(w)
				}
				var kept []*Tensor
				y.GradFn().RegisterHook(func(in, _ []*Tensor) []*Tensor {
					kept = in
					return nil
				})
				y.Mul(w).Backward()
				want := map[string][2]float64{"Add": {2, 2}, "Mul": {4, 16}}[op]
				if len(kept) != 2 || kept[0] == nil || kept[1] == nil {
					t.Fatalf("kept gradients %v", kept)
				}
				for i := range 2 {
					if got := kept[i].Item(); got != want[i] {
						t.Errorf("kept[%d] = %v, want %v", i, got, want[i])
					}
				}
			})
		}
	}
}
