package tensor

import (
	"fmt"
	"math"
	"testing"
)

// TestSoftmaxRowsBits: Softmax and LogSoftmax give the composites' bits,
// fused or not, per float dtype, for rows shorter and longer than a vector
// block, with infinities and NaNs in them, at one worker and split over
// several; the composite is run under the same settings and under the
// defaults.
func TestSoftmaxRowsBits(t *testing.T) {
	shapes := [][]int{{}, {1}, {5}, {3, 7}, {4, 16}, {64}, {2, 3, 128}, {33, 100}, {7, 1000}, {2, 5000}}
	fns := []struct {
		name              string
		public, composite func(*Tensor, int) *Tensor
	}{
		{"Softmax", (*Tensor).Softmax, (*Tensor).softmaxComposite},
		{"LogSoftmax", (*Tensor).LogSoftmax, (*Tensor).logSoftmaxComposite},
	}
	same := func(t *testing.T, got, want []float64) {
		t.Helper()
		for i := range want {
			a, b := got[i], want[i]
			if math.Float64bits(a) != math.Float64bits(b) && !(a != a && b != b) {
				t.Fatalf("element %d: %v, composite %v", i, a, b)
			}
		}
	}
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
			for _, f := range fns {
				want := f.composite(x, -1).Float64s()
				for _, procs := range []int{1, 2, 3, 5} {
					t.Run(fmt.Sprintf("%s/%v/%v/procs%d", f.name, dt, sh, procs), func(t *testing.T) {
						var got, wantHere []float64
						withParallelMin(64, func() {
							withProcs(procs, func() {
								got = f.public(x, -1).Float64s()
								wantHere = f.composite(x, -1).Float64s()
							})
						})
						same(t, got, want)
						same(t, got, wantHere)
					})
				}
			}
		}
	}
	// Which take the fused path: rows of 64 or more (128 for LogSoftmax),
	// and for a large tensor at least a row a worker.
	for _, c := range []struct {
		shape   []int
		procs   int
		d       int
		log     bool
		strided bool
		fused   bool
	}{
		{[]int{64}, 1, 0, false, false, true},
		{[]int{64}, 1, 0, true, false, false},
		{[]int{3, 128}, 1, 1, true, false, true},
		{[]int{7, 1000}, 5, 1, true, false, true},
		{[]int{4, 16}, 1, 1, false, false, false},      // short rows
		{[]int{2, 1 << 16}, 3, 1, false, false, false}, // fewer rows than workers
		{[]int{2, 1 << 16}, 2, 1, true, false, true},
		{[]int{100, 100}, 1, 0, false, false, false}, // not the last dim
		{[]int{100, 100}, 1, 1, true, true, false},   // strided
	} {
		x := Ones(Float32, c.shape...)
		if c.strided {
			x = x.Transpose(0, 1)
		}
		var fused bool
		withProcs(c.procs, func() { _, fused = softmaxRows(x, c.d, c.log) })
		if fused != c.fused {
			t.Errorf("%v over dim %d at %d workers (strided %v): fused %v, want %v", c.shape, c.d, c.procs, c.strided, fused, c.fused)
		}
	}
}
