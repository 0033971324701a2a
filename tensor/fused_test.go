package tensor

import (
	"fmt"
	"math"
	"testing"
)

// TestFusedGradMatchesComposite checks SigmoidGrad, TanhGrad and ReluGrad against the
// same operations composed from Binary, bit for bit, over the layouts the
// fused path takes (dense g, broadcast g, strided g, 0-d, empty) and the
// ones it leaves to the composite path (mixed dtypes, broadcasting shapes).
func TestFusedGradMatchesComposite(t *testing.T) {
	ops := []struct {
		name  string
		fused func(g, y *Tensor) *Tensor
		ref   func(g, y *Tensor) *Tensor
	}{
		{"SigmoidGrad", SigmoidGrad, func(g, y *Tensor) *Tensor { return Mul(g, Mul(y, Sub(1.0, y))) }},
		{"TanhGrad", TanhGrad, func(g, y *Tensor) *Tensor { return Mul(g, Sub(1.0, Mul(y, y))) }},
		{"ReluGrad", ReluGrad, func(g, y *Tensor) *Tensor { return Where(y.Gt(0), g, 0.0) }},
	}
	for _, dt := range []DType{Float32, Float64} {
		gen := NewGenerator(5)
		y := gen.Uniform(dt, -1, 1, 3, 70)
		layouts := []struct {
			name string
			g, y *Tensor
		}{
			{"dense", gen.Randn(dt, 3, 70), y},
			{"broadcast_scalar", Full(dt, 0.75).Expand(3, 70), y},
			{"broadcast_row", gen.Randn(dt, 70).Expand(3, 70), y},
			{"transposed", gen.Randn(dt, 70, 3).T(), y},
			{"zero_dim", Full(dt, 1.5), Full(dt, 0.25)},
			{"empty", Empty(dt, 0, 4), Empty(dt, 0, 4)},
			{"large", gen.Randn(dt, 1<<17), gen.Uniform(dt, -1, 1, 1<<17)}, // split across goroutines
			{"mixed_dtype", gen.Randn(Float64, 3, 70), y},
			{"broadcasting_shapes", gen.Randn(dt, 70), y},
		}
		for _, op := range ops {
			for _, l := range layouts {
				t.Run(fmt.Sprintf("%v/%s/%s", dt, op.name, l.name), func(t *testing.T) {
					got, want := op.fused(l.g, l.y), op.ref(l.g, l.y)
					if got.DType() != want.DType() || fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
						t.Fatalf("got %v %v, want %v %v", got.DType(), got.Shape(), want.DType(), want.Shape())
					}
					gv, wv := got.Float64s(), want.Float64s()
					for i := range wv {
						if math.Float64bits(gv[i]) != math.Float64bits(wv[i]) {
							t.Fatalf("[%d] = %v, want %v", i, gv[i], wv[i])
						}
					}
				})
			}
		}
	}
}

// TestReluGradSpecials checks ReluGrad where y or g is special, on a row
// long enough for the vectorised loop and on a short one: zero where y is
// zero (of either sign), negative or a NaN, whatever g is there, and g's
// bits where y is positive.
func TestReluGradSpecials(t *testing.T) {
	nan, inf, negZero := math.NaN(), math.Inf(1), math.Copysign(0, -1)
	ys := []float64{1, -1, 0, negZero, nan, 2, 0.5, -inf, inf}
	gs := []float64{3, nan, inf, nan, 4, nan, negZero, 5, -6}
	want := []float64{3, 0, 0, 0, 0, nan, negZero, 0, -6}
	for _, dt := range []DType{Float32, Float64} {
		for _, reps := range []int{1, 40} {
			t.Run(fmt.Sprintf("%v/%d", dt, len(ys)*reps), func(t *testing.T) {
				var y, g []float64
				for range reps {
					y, g = append(y, ys...), append(g, gs...)
				}
				got := ReluGrad(FromSlice(g).To(dt), FromSlice(y).To(dt)).Float64s()
				for i, v := range got {
					w := want[i%len(want)]
					if v != w && !(math.IsNaN(v) && math.IsNaN(w)) || math.Signbit(v) != math.Signbit(w) && !math.IsNaN(w) {
						t.Fatalf("[%d]: y=%v g=%v: got %v, want %v", i, y[i], g[i], v, w)
					}
				}
			})
		}
	}
}
