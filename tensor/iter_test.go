package tensor

import (
	"math"
	"slices"
	"sync/atomic"
	"testing"
)

func TestCollapse(t *testing.T) {
	cases := []struct {
		name        string
		shape       []int
		strides     [][]int
		wantShape   []int
		wantStrides [][]int
	}{
		{"contiguous", []int{2, 3, 4}, [][]int{{12, 4, 1}}, []int{24}, [][]int{{1}}},
		{"transposed", []int{3, 2}, [][]int{{1, 3}}, []int{3, 2}, [][]int{{1, 3}}},
		{"size-one-dropped", []int{1, 3, 1}, [][]int{{3, 1, 1}}, []int{3}, [][]int{{1}}},
		{"scalar", []int{}, [][]int{{}}, []int{1}, [][]int{{0}}},
		{"broadcast-blocks-merge", []int{2, 3}, [][]int{{3, 1}, {0, 1}}, []int{2, 3}, [][]int{{3, 1}, {0, 1}}},
		{"all-broadcast-merges", []int{2, 3}, [][]int{{0, 0}}, []int{6}, [][]int{{0}}},
		{"partial-merge", []int{2, 3, 4}, [][]int{{12, 4, 1}, {24, 8, 2}}, []int{24}, [][]int{{1}, {2}}},
		{"narrowed", []int{2, 3, 2}, [][]int{{12, 4, 1}}, []int{6, 2}, [][]int{{4, 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, st := collapse(c.shape, c.strides)
			if !slices.Equal(s, c.wantShape) || !slices.EqualFunc(st, c.wantStrides, slices.Equal[[]int]) {
				t.Fatalf("collapse = %v %v, want %v %v", s, st, c.wantShape, c.wantStrides)
			}
		})
	}
}

func TestForEachIndexOrder(t *testing.T) {
	var got [][]int
	forEachIndex([]int{2, 2}, [][]int{{1, 2}, {2, 1}}, []int{10, 0}, func(o []int) { got = append(got, slices.Clone(o)) })
	want := [][]int{{10, 0}, {12, 1}, {11, 2}, {13, 3}}
	if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
		t.Fatalf("got %v, want %v", got, want)
	}
	n := 0
	forEachIndex([]int{3, 0}, [][]int{{0, 1}}, []int{0}, func([]int) { n++ })
	if n != 0 {
		t.Fatalf("visited %d elements of an empty space", n)
	}
}

// TestParallelPath runs element-wise ops with the parallel threshold forced low
// and compares them with the serial results.
func TestParallelPath(t *testing.T) {
	big := func(shape ...int) *Tensor {
		n := refNumel(shape)
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Sin(float64(i)) * 3
		}
		return FromSlice(d).Reshape(shape...)
	}
	ops := []struct {
		name string
		f    func() *Tensor
	}{
		{"Add/long-row", func() *Tensor { return Add(big(1, 5003), 1.5) }},
		{"Mul/rows", func() *Tensor { return Mul(big(37, 129), big(129)) }},
		{"Sub/transposed", func() *Tensor { return Sub(big(64, 33).T(), big(33, 64)) }},
		{"Exp/transposed", func() *Tensor { return big(50, 41).T().Exp() }},
		{"Tanh/f32", func() *Tensor { return big(7, 700).To(Float32).Tanh() }},
		{"Gt/broadcast", func() *Tensor { return big(40, 50).Gt(big(40, 1)) }},
		{"Where", func() *Tensor { return Where(big(30, 60).Gt(0), big(30, 60), big(60).Neg()) }},
		{"Clone/strided", func() *Tensor { return big(20, 30, 10).Permute(2, 0, 1).Clone() }},
		{"To/int64", func() *Tensor { return big(100, 70).T().To(Int64) }},
		{"Fill/strided", func() *Tensor { x := big(80, 80); x.Slice(1, 0, 80, 3).Fill(-1); return x }},
		{"AddInPlace", func() *Tensor { x := big(90, 90); x.AddInPlace(big(90)); return x }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			var serial, parallel []float64
			withParallelMin(1<<40, func() { serial = op.f().Float64s() })
			withParallelMin(2, func() { parallel = op.f().Float64s() })
			if !slices.Equal(serial, parallel) {
				t.Fatal("parallel result differs from the serial one")
			}
		})
	}
	t.Run("rows-visited-once", func(t *testing.T) {
		for _, shape := range [][]int{{1, 1000}, {1000, 1}, {7, 13, 11}, {3, 0, 5}} {
			var count atomic.Int64
			seen := make([]atomic.Int32, refNumel(shape))
			withParallelMin(1, func() {
				forEachRow(shape, [][]int{contiguousStrides(shape)}, []int{0}, func(o []int, n int, in []int) {
					for i := 0; i < n; i++ {
						seen[o[0]+i*in[0]].Add(1)
						count.Add(1)
					}
				})
			})
			if int(count.Load()) != refNumel(shape) {
				t.Fatalf("%v: visited %d elements, want %d", shape, count.Load(), refNumel(shape))
			}
			for i := range seen {
				if seen[i].Load() != 1 {
					t.Fatalf("%v: element %d visited %d times", shape, i, seen[i].Load())
				}
			}
		}
	})
}

// TestParallelMinCheapBytes holds the cheap kernels' split threshold to the
// same number of bytes in every float dtype (512 KiB by default), following
// parallelMin when tests lower it.
func TestParallelMinCheapBytes(t *testing.T) {
	for _, tc := range []struct {
		pmin     int
		dt       DType
		want     int
		wantByte int
	}{
		{1 << 16, Float32, 1 << 17, 512 << 10},
		{1 << 16, Float64, 1 << 16, 512 << 10},
		{64, Float32, 128, 512},
		{64, Float64, 64, 512},
		{1, Float64, 1, 8},
	} {
		withParallelMin(tc.pmin, func() {
			got := parallelMinCheap(tc.dt.Size())
			if got != tc.want || got*tc.dt.Size() != tc.wantByte {
				t.Errorf("parallelMin %d, %v: parallelMinCheap = %d elements (%d bytes), want %d (%d bytes)",
					tc.pmin, tc.dt, got, got*tc.dt.Size(), tc.want, tc.wantByte)
			}
		})
	}
}
