package agx

import (
	"fmt"
	"math"
	"testing"
)

// A backward that records nothing (several ops then work on the data
// alone: MatMul, Transpose, Relu, LogSoftmax, Gather, a broadcast Add's
// sum) gives the same gradients, bit for bit, as one that records the
// backward graph, per dtype and operand layout.
func TestBackwardRecordedOrNot(t *testing.T) {
	target := FromSlice([]int64{2, 0, 3, 3, 1})
	cases := []struct {
		name   string
		ashape []int
		bshape []int
		f      func(a, b *Tensor) *Tensor
	}{
		{"MatMul/a_b", []int{5, 7}, []int{7, 4}, MatMul},
		{"MatMul/a_bT", []int{5, 7}, []int{4, 7}, func(a, b *Tensor) *Tensor { return MatMul(a, b.T()) }},
		{"MatMul/aT_b", []int{7, 5}, []int{7, 4}, func(a, b *Tensor) *Tensor { return MatMul(a.T(), b) }},
		{"MatMul/aT_bT", []int{7, 5}, []int{4, 7}, func(a, b *Tensor) *Tensor { return MatMul(a.MT(), b.MT()) }},
		{"MatMul/batched_broadcast", []int{2, 1, 5, 7}, []int{3, 7, 4}, MatMul},
		{"MatMul/batched_bT", []int{3, 5, 7}, []int{4, 7}, func(a, b *Tensor) *Tensor { return MatMul(a, b.MT()) }},
		{"Add/bias", []int{5, 4}, []int{4}, func(a, b *Tensor) *Tensor { return a.Add(b) }},
		{"Add/leading_and_kept", []int{3, 5, 4}, []int{5, 1}, func(a, b *Tensor) *Tensor { return a.Add(b) }},
		{"Relu", []int{5, 40}, []int{5, 40}, func(a, b *Tensor) *Tensor { return a.Mul(b).Relu() }},
		{"LogSoftmax", []int{5, 4}, []int{4}, func(a, b *Tensor) *Tensor { return a.Add(b).LogSoftmax(1) }},
		{"Gather", []int{5, 4}, []int{5, 4}, func(a, b *Tensor) *Tensor { return a.Mul(b).Gather(1, target.Unsqueeze(1)) }},
		{"CrossEntropy", []int{5, 7}, []int{4, 7}, func(a, b *Tensor) *Tensor {
			return CrossEntropy(MatMul(a, b.T()).Relu(), target)
		}},
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%v/%s", dt, tc.name), func(t *testing.T) {
				a := Randn(dt, tc.ashape...).SetRequiresGrad(true)
				b := Randn(dt, tc.bshape...).SetRequiresGrad(true)
				loss := func() *Tensor { y := tc.f(a, b); return y.Mul(y).Sum() }
				plain := Grad([]*Tensor{loss()}, []*Tensor{a, b})
				recorded := Grad([]*Tensor{loss()}, []*Tensor{a, b}, CreateGraph())
				for i, name := range []string{"a", "b"} {
					if !recorded[i].RequiresGrad() {
						t.Fatalf("%s: the create-graph gradient records no graph", name)
					}
					if plain[i].RequiresGrad() {
						t.Fatalf("%s: the plain gradient records a graph", name)
					}
					if fmt.Sprint(plain[i].Shape()) != fmt.Sprint(recorded[i].Shape()) {
						t.Fatalf("%s: shape %v, want %v", name, plain[i].Shape(), recorded[i].Shape())
					}
					p, r := plain[i].Data().Float64s(), recorded[i].Data().Float64s()
					for j := range r {
						if math.Float64bits(p[j]) != math.Float64bits(r[j]) {
							t.Fatalf("%s[%d] = %v, want %v", name, j, p[j], r[j])
						}
					}
				}
			})
		}
	}
}
