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
