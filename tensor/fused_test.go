package tensor

import (
	"fmt"
	"math"
	"testing"
)

// TestFusedGradMatchesComposite checks SigmoidGrad and TanhGrad against the
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
