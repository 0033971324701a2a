package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloat64ExpIsMathExp holds float64 Exp to math.Exp's bits, e^1 = e
// among them, on contiguous and strided data, short and long (the kernels'
// tails and their bodies): users print and compare these values.
func TestFloat64ExpIsMathExp(t *testing.T) {
	xs := []float64{1, -1, 0.5, 2, 10, -10, 700, -700, 1e-10, 709.5, 709.79, -745.2, -744, math.Inf(1), math.Inf(-1), math.NaN()}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		xs = append(xs, (2*rng.Float64()-1)*750, (2*rng.Float64()-1)*3)
	}
	x := FromSlice(xs)
	strided := Stack(1, x, x).Select(1, 0)
	for _, in := range []*Tensor{x, strided, x.Narrow(0, 0, 9)} {
		for i, got := range in.Exp().Float64s() {
			if want := math.Exp(xs[i]); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("Exp(%v) = %v, math.Exp %v", xs[i], got, want)
			}
		}
	}
	if got := FromSlice([]float64{1}).Exp().Float64s()[0]; got != math.E {
		t.Fatalf("Exp(1) = %v, want e", got)
	}
}
