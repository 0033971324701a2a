package tensor

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// TestReduceSplitBits: a reduction split across workers along a kept dim,
// whichever reduceT picks, gives the bits of the serial one, per dtype, for
// dense sources and views. A max gives them also when no kept dim can feed
// every worker and the reduced dim is split instead, and so does a sum of a
// dense source whose reduced dims come after its kept ones (sumRuns);
// other sums and products then combine the workers' partial results, in a
// fixed order but not the serial one.
func TestReduceSplitBits(t *testing.T) {
	cases := []struct {
		shape []int
		dims  []int
		view  func(*Tensor) *Tensor
	}{
		{[]int{32, 64, 64}, []int{1}, nil},
		{[]int{32, 64, 64}, []int{2}, nil},
		{[]int{32, 64, 64}, []int{0}, nil},
		{[]int{32, 64, 64}, []int{0, 2}, nil},
		{[]int{3, 1000}, []int{1}, nil},
		{[]int{1000, 3}, []int{0}, nil},
		{[]int{5, 9, 70}, []int{1}, nil},
		{[]int{2, 3, 500}, []int{1}, nil},
		{[]int{64, 32, 48}, []int{1}, func(x *Tensor) *Tensor { return x.Permute(2, 0, 1) }},
		{[]int{40, 50, 30}, []int{0}, func(x *Tensor) *Tensor { return x.Slice(2, 1, 29, 2) }},
		// Reduced dims that do not merge into one run, and a kept dim of the
		// smallest stride whose parts can be single entries (2 of 2 at two
		// workers; 21 at five: 5, 4, 4, 4, 4): a part must still walk its
		// dims as the whole source does.
		{[]int{512, 300, 2}, []int{0, 1}, func(x *Tensor) *Tensor { return x.Slice(1, 0, 256, 1) }},
		{[]int{40, 3, 5, 21}, []int{1, 2}, func(x *Tensor) *Tensor { return x.Slice(2, 0, 4, 1).Permute(3, 1, 2, 0) }},
		{[]int{40, 3, 5, 2}, []int{1, 2}, func(x *Tensor) *Tensor { return x.Slice(2, 0, 4, 1).Permute(3, 1, 2, 0) }},
		// Full sums and sums over trailing dims with no kept dim to split:
		// a run's top levels are shared out.
		{[]int{9000}, []int{0}, nil},
		{[]int{2, 4100}, []int{1}, nil},
		{[]int{4, 5, 700}, []int{1, 2}, nil},
		{[]int{1, 3, 1, 2500}, []int{1, 2, 3}, nil},
		{[]int{3, 3000}, []int{0, 1}, nil},
		{[]int{3, 3, 3, 50}, []int{3}, nil}, // more runs than workers
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, c := range cases {
			x := splitTestTensor(dt, c.shape)
			if c.view != nil {
				x = c.view(x)
			}
			for _, op := range []ReduceOp{OpSum, OpProd, OpMax} {
				var want []float64
				withProcs(1, func() { want = x.reduce("Reduce", op, c.dims, false).Float64s() })
				for _, procs := range []int{2, 3, 5, 8} {
					if op != OpMax && !keptDimFeeds(x.Shape(), c.dims, procs) && !(op == OpSum && denseTrailing(x, c.dims)) {
						continue
					}
					t.Run(fmt.Sprintf("%v/%v/%v/%v/procs%d", dt, c.shape, c.dims, op, procs), func(t *testing.T) {
						var got []float64
						withParallelMin(64, func() {
							withProcs(procs, func() { got = x.reduce("Reduce", op, c.dims, false).Float64s() })
						})
						if !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
							t.Fatalf("split result differs from the serial one")
						}
					})
				}
			}
		}
	}
}

// keptDimFeeds reports whether a dim of shape not in dims has at least w
// entries, so that reduceT splits along a kept dim.
func keptDimFeeds(shape, dims []int, w int) bool {
	for i, n := range shape {
		if !slices.Contains(dims, i) && n >= w {
			return true
		}
	}
	return false
}

// denseTrailing reports whether x is dense and its dims of more than one
// entry in dims come after those not in dims, so that a sum over dims is
// one dense run per result.
func denseTrailing(x *Tensor, dims []int) bool {
	if !x.IsContiguous() {
		return false
	}
	seen := false
	for i, n := range x.Shape() {
		switch {
		case n == 1:
		case slices.Contains(dims, i):
			seen = true
		case seen:
			return false
		}
	}
	return true
}

// TestSumRunsDestinations: a split sum of dense runs writes each run's
// serial bits where the destination view puts it: dense or strided, with
// an offset, for more runs than workers and for fewer.
func TestSumRunsDestinations(t *testing.T) {
	cases := []struct {
		shape        []int // source, dense; the sum is over its last dim
		dstStrides   []int
		dstOff, dstN int
	}{
		{[]int{3, 3, 50}, []int{3, 1, 1}, 0, 9},   // dense
		{[]int{3, 3, 50}, []int{6, 2, 1}, 1, 19},  // every other element
		{[]int{3, 3, 50}, []int{1, 3, 1}, 2, 11},  // column-major
		{[]int{2, 3000}, []int{1, 1}, 3, 5},       // fewer runs than workers
		{[]int{2, 3000}, []int{-1, 1}, 1, 2},      // reversed
		{[]int{1, 1, 5000}, []int{7, 1, 1}, 0, 1}, // a full sum
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, c := range cases {
			src := splitTestTensor(dt, c.shape).Raw()
			dshape := slices.Clone(c.shape)
			dshape[len(dshape)-1] = 1
			run := func() []float64 {
				d := Zeros(dt, c.dstN)
				dst := View{Buf: d.Raw().Buf, Shape: dshape, Strides: c.dstStrides, Offset: c.dstOff}
				CPU{}.Reduce(OpSum, dst, src, []int{len(c.shape) - 1})
				return d.Float64s()
			}
			var want []float64
			withProcs(1, func() { want = run() })
			for _, procs := range []int{2, 5} {
				t.Run(fmt.Sprintf("%v/%v/%v/procs%d", dt, c.shape, c.dstStrides, procs), func(t *testing.T) {
					var got []float64
					withParallelMin(64, func() { withProcs(procs, func() { got = run() }) })
					if !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
						t.Fatalf("split %v, serial %v", got, want)
					}
				})
			}
		}
	}
}

// splitTestTensor is a dense tensor of the shape whose values differ in
// sign and span several binades, so that sums in another order round
// differently.
func splitTestTensor(dt DType, shape []int) *Tensor {
	v := make([]float64, refNumel(shape))
	for i := range v {
		v[i] = math.Sin(float64(i)*0.37) * math.Exp(float64(i%13))
	}
	return FromSlice(v, shape...).To(dt)
}
