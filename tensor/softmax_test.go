package tensor

import (
	"fmt"
	"math"
	"testing"
)

// TestSoftmaxRowsBits: the fused Softmax and LogSoftmax over a dense last
// dim give the composites' bits, per float dtype, for rows shorter and longer than a
// vector block, with infinities and NaNs in them, at one worker and split
// over several.
func TestSoftmaxRowsBits(t *testing.T) {
	shapes := [][]int{{}, {1}, {5}, {3, 7}, {4, 16}, {2, 3, 128}, {33, 100}, {7, 1000}}
	for _, dt := range []DType{Float32, Float64} {
		for _, sh := range shapes {
			n := refNumel(sh)
			v := make([]float64, n)
			for i := range v {
				v[i] = math.Sin(float64(i)*0.37) * math.Exp(float64(i%17)-4)
			}
			if n >= 21 { // a row of its own: -Inf everywhere but one +Inf
				v[3], v[10], v[n-1] = math.Inf(-1), math.NaN(), math.Inf(1)
			}
			if len(sh) == 2 && sh[1] == 7 {
				for i := 7; i < 14; i++ {
					v[i] = math.Inf(-1) // a row of -Inf only: NaNs, as the composite
				}
			}
			x := FromSlice(v, sh...).To(dt)
			for _, f := range []struct {
				name            string
				fused, composed func(*Tensor, int) *Tensor
				log             bool
			}{
				{"Softmax", (*Tensor).Softmax, (*Tensor).softmaxComposite, false},
				{"LogSoftmax", (*Tensor).LogSoftmax, (*Tensor).logSoftmaxComposite, true},
			} {
				want := f.composed(x, -1).Float64s()
				for _, procs := range []int{1, 2, 3, 5} {
					t.Run(fmt.Sprintf("%s/%v/%v/procs%d", f.name, dt, sh, procs), func(t *testing.T) {
						var y *Tensor
						withParallelMin(64, func() { withProcs(procs, func() { y = f.fused(x, -1) }) })
						if _, fused := softmaxRows(x, max(0, x.Dim()-1), f.log); !fused {
							t.Fatal("the fused path does not apply")
						}
						got := y.Float64s()
						for i := range want {
							a, b := got[i], want[i]
							if math.Float64bits(a) != math.Float64bits(b) && !(a != a && b != b) {
								t.Fatalf("element %d: fused %v, composite %v", i, a, b)
							}
						}
					})
				}
			}
		}
	}
	// Not fused: another dim, a strided view; they take the composite.
	x := FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	if _, ok := softmaxRows(x, 0, false); ok {
		t.Fatal("fused over dim 0")
	}
	if _, ok := softmaxRows(x.Transpose(0, 1), 1, true); ok {
		t.Fatal("fused over a strided view")
	}
}
