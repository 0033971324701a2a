package tensor

import (
	"fmt"
	"math"
	"testing"
)

// TestLogSumExpFused checks that sumExpShifted's sums give LogSumExp the
// bits of the composed ops, over the layouts it takes and the ones it
// leaves to them, with NaN and infinite entries, serially and split over
// the cores.
func TestLogSumExpFused(t *testing.T) {
	cases := []struct {
		shape []int
		dims  []int
		fused bool // whether sumExpShifted applies at one worker
	}{
		{[]int{256, 512}, []int{0}, true},
		{[]int{256, 512}, []int{1}, true},
		{[]int{256, 512}, nil, false}, // two reduced dims
		{[]int{3, 50, 40}, []int{0}, true},
		{[]int{3, 50, 40}, []int{1}, true},
		{[]int{3, 50, 40}, []int{2}, true},
		{[]int{2, 90, 17}, []int{1}, true},
		{[]int{4, 70, 1}, []int{1}, true},  // a trailing dim of one: rows
		{[]int{5, 33, 8}, []int{1}, false}, // inner 8: composed
		{[]int{1, 3000}, nil, true},        // the size-one dim reduced too
		{[]int{2000}, []int{0}, true},
		{[]int{7, 1}, []int{1}, false}, // one entry: composed
		{[]int{1, 20, 4100}, []int{1}, true},
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, tc := range cases {
			x := lseInput(dt, tc.shape)
			for _, procs := range []int{1, 2, 3, 8} {
				for _, pmin := range []int{parallelMin, 64} {
					name := fmt.Sprintf("%v/%v/dims%v/procs%d/pmin%d", dt, tc.shape, tc.dims, procs, pmin)
					t.Run(name, func(t *testing.T) {
						old := parallelMin
						parallelMin = pmin
						defer func() { parallelMin = old }()
						withProcs(procs, func() {
							if procs == 1 {
								ds := x.reduceDims("LogSumExp", tc.dims)
								m := x.reduce("LogSumExp", OpMax, tc.dims, true)
								ok := false
								if r := onlyReduced(x.shape, ds); r >= 0 {
									_, ok = sumExpShifted(x, m, r)
								}
								if ok != tc.fused {
									t.Fatalf("sumExpShifted applied: %v, want %v", ok, tc.fused)
								}
							}
							for _, keep := range []bool{false, true} {
								got := x.logSumExp(tc.dims, keep)
								composeLogSumExp = true
								want := x.logSumExp(tc.dims, keep)
								composeLogSumExp = false
								if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
									t.Fatalf("keep %v: shape %v, want %v", keep, got.Shape(), want.Shape())
								}
								g, w := got.Float64s(), want.Float64s()
								for i := range w {
									if !sameBits(g[i], w[i]) {
										t.Fatalf("keep %v: element %d is %v, composed %v", keep, i, g[i], w[i])
									}
								}
							}
						})
					})
				}
			}
		}
	}
}

// lseInput is a tensor of normal values with spread 10, with a NaN, ±Inf
// and large values in a few places, its last slice along dim 0 all
// -Inf and its first entry along the last dim -Inf everywhere (so that
// either way some sums are of -Inf alone).
func lseInput(dt DType, shape []int) *Tensor {
	x := NewGenerator(7).Randn(Float64, shape...).Mul(10)
	v := x.Float64s()
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 3e4, -3e4}
	for k, sp := range specials {
		v[(2*k+1)*len(v)/11] = sp
	}
	last := shape[len(shape)-1]
	for i := range v {
		if i%last == 0 {
			v[i] = math.Inf(-1)
		}
	}
	if shape[0] > 1 {
		slab := len(v) / shape[0]
		for i := len(v) - slab; i < len(v); i++ {
			v[i] = math.Inf(-1)
		}
	}
	return FromSlice(v, shape...).To(dt)
}

// BenchmarkLogSumExp times LogSumExp over each dim of a [256,512] float32
// tensor, with sumExpShifted and with the composed ops.
func BenchmarkLogSumExp(b *testing.B) {
	x := NewGenerator(1).Randn(Float32, 256, 512)
	for _, dim := range []int{0, 1} {
		for _, composed := range []bool{false, true} {
			b.Run(fmt.Sprintf("dim%d/composed=%v", dim, composed), func(b *testing.B) {
				composeLogSumExp = composed
				defer func() { composeLogSumExp = false }()
				for b.Loop() {
					x.LogSumExp(dim)
				}
			})
		}
	}
}
