package agx

import (
	"slices"
	"testing"

	"github.com/goagx/agx/tensor"
)

// TestAccumulateInPlaceKeepsInputs checks that when three or more gradients
// meet in one slot, the engine adds into its own sum but never into a
// tensor a backward function handed over (here the upstream gradient, which
// Sub and Add pass through unchanged).
func TestAccumulateInPlaceKeepsInputs(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			x := New(tensor.FromSlice([]float64{1, 2, 3}).To(dt)).SetRequiresGrad(true)
			h := x.Mul(1.0) // one node whose output slot receives four gradients
			y := h.Add(h).Sub(h.Neg()).Add(h)
			up := tensor.FromSlice([]float64{1, 10, 100}).To(dt)
			y.Backward(Gradient(New(up)))
			if got, want := x.Grad().Data().Float64s(), []float64{4, 40, 400}; !slices.Equal(got, want) {
				t.Fatalf("grad = %v, want %v", got, want)
			}
			if got := up.Float64s(); !slices.Equal(got, []float64{1, 10, 100}) {
				t.Fatalf("upstream gradient was modified: %v", got)
			}
		})
	}
}

// TestDepositAddsIntoSoleGradient checks the buffer policy's sums: the
// second gradient to reach a slot is added into the first when the pass
// allocated the first and only that slot refers to it (no fresh sum), and
// a fresh sum is made when another slot still refers to the first.
func TestDepositAddsIntoSoleGradient(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		for _, tc := range []struct {
			name     string
			shared   bool // a is also held by a second slot
			wantSame bool // the sum is a itself
		}{
			{"sole", false, true},
			{"shared", true, false},
		} {
			t.Run(dt.String()+"/"+tc.name, func(t *testing.T) {
				var b gradBuffers
				b.start(false)
				a := New(tensor.Full(dt, 1, 64, 96).Mul(1)) // results of this pass
				g := New(tensor.Full(dt, 2, 64, 96).Mul(1))
				b.arrive(a)
				b.arrive(g)
				slot := Edge{Node: &Node{nOut: 1}, Input: 0}
				var in, other inbox
				b.deposit(&in, slot, a)
				if tc.shared {
					b.arrive(a)
					b.deposit(&other, Edge{Node: &Node{nOut: 1}, Input: 0}, a)
				}
				b.deposit(&in, slot, g)
				sum := in.buf[0]
				if same := sum == a; same != tc.wantSame {
					t.Fatalf("sum is the first gradient: %v, want %v", same, tc.wantSame)
				}
				if got := sum.Data().Float64s(); got[0] != 3 || got[len(got)-1] != 3 {
					t.Fatalf("sum = %v..., want 3", got[0])
				}
				if tc.shared {
					if got := a.Data().Float64s(); got[0] != 1 {
						t.Fatalf("a gradient another slot holds was changed to %v", got[0])
					}
				}
				b.reset()
			})
		}
	}
}
