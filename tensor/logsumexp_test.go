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
		{[]int{3, 50, 130}, []int{0}, true},
		{[]int{3, 50, 130}, []int{1}, true},
		{[]int{3, 50, 130}, []int{2}, true},
		{[]int{3, 50, 130}, []int{-2}, true},
		{[]int{2, 90, 129}, []int{1}, true},
		{[]int{4, 70, 1}, []int{1}, true},  // a trailing dim of one: rows
		{[]int{5, 33, 8}, []int{1}, false}, // 8 columns: composed
		{[]int{200, 63}, []int{1}, false},  // rows of 63: composed
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
							if procs == 1 && pmin == old {
								m := x.reduce("LogSumExp", OpMax, tc.dims, true)
								ok := sumExpShifted(x, m, x.reduceDims("LogSumExp", tc.dims)) != nil
								if ok != tc.fused {
									t.Fatalf("sumExpShifted applied: %v, want %v", ok, tc.fused)
								}
							}
							checkLogSumExpBits(t, x, tc.dims)
						})
					})
				}
			}
		}
	}
	// A large reduction over an earlier dim with no kept dim of an entry
	// per worker is split along the reduced dim, into partial sums:
	// composed, for their bits. Over the last dim the reduction shares out
	// whole rows whatever the kept dims: blocked.
	t.Run("no kept dim for every worker", func(t *testing.T) {
		old := parallelMin
		parallelMin = 64
		defer func() { parallelMin = old }()
		for _, dt := range []DType{Float32, Float64} {
			x := lseInput(dt, []int{600, 8, 16})
			withProcs(17, func() {
				m := x.reduce("LogSumExp", OpMax, []int{0}, true)
				if sumExpShifted(x, m, []int{0}) != nil {
					t.Fatalf("%v: sumExpShifted applied at 17 workers", dt)
				}
				checkLogSumExpBits(t, x, []int{0})
			})
			withProcs(16, func() {
				m := x.reduce("LogSumExp", OpMax, []int{0}, true)
				if sumExpShifted(x, m, []int{0}) == nil {
					t.Fatalf("%v: sumExpShifted did not apply at 16 workers", dt)
				}
				checkLogSumExpBits(t, x, []int{0})
			})
			x = lseInput(dt, []int{16, 16, 1000})
			withProcs(17, func() {
				m := x.reduce("LogSumExp", OpMax, []int{2}, true)
				if sumExpShifted(x, m, []int{2}) == nil {
					t.Fatalf("%v: sumExpShifted did not apply to rows at 17 workers", dt)
				}
				checkLogSumExpBits(t, x, []int{2})
			})
		}
	})
}

// checkLogSumExpBits checks that x's LogSumExp and LogSumExpKeep over dims
// have the bits of the composed ops.
func checkLogSumExpBits(t *testing.T, x *Tensor, dims []int) {
	t.Helper()
	for _, keep := range []bool{false, true} {
		got := x.logSumExp(dims, keep)
		composeLogSumExp = true
		want := x.logSumExp(dims, keep)
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
}

// lseInput is a tensor of normal values with spread 10, with a NaN, ±Inf
// and large values in a few places, its last slice along dim 0 all
// -Inf and, where the last dim has more than one entry, its first entry
// along it -Inf everywhere (so that some sums are of -Inf alone).
func lseInput(dt DType, shape []int) *Tensor {
	x := NewGenerator(7).Randn(Float64, shape...).Mul(10)
	v := x.Float64s()
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 3e4, -3e4}
	for k, sp := range specials {
		v[(2*k+1)*len(v)/11] = sp
	}
	if last := shape[len(shape)-1]; last > 1 {
		for i := range v {
			if i%last == 0 {
				v[i] = math.Inf(-1)
			}
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
