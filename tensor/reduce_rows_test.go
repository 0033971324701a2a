package tensor

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/tensor/internal/vec"
)

// TestSumShortRowsBits holds float sums over many rows, the soft-rank
// exercise's shapes among them, to the bits of the plain definitions:
// a sum over the last dim is package vec's Sum of each row (added to +0),
// a sum over an outer dim adds the rows in order. Rows of -0 (whose sum
// is +0 either way) and NaN are included, and a permuted view whose rows
// stay contiguous.
func TestSumShortRowsBits(t *testing.T) {
	cases := []struct {
		shape []int
		dim   int
		perm  []int // applied to the tensor before summing (nil: none)
	}{
		{[]int{32, 64, 64}, 2, nil},
		{[]int{32, 64, 64}, 1, nil},
		{[]int{7, 3, 1000}, 2, nil},
		{[]int{5, 17}, 1, nil},
		{[]int{5, 17}, 0, nil},
		{[]int{300, 40}, 1, nil},
		{[]int{4, 6, 33}, 2, []int{1, 0, 2}},
		{[]int{4, 6, 33}, 0, []int{1, 0, 2}},
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%v/%v/dim%d/perm%v", dt, c.shape, c.dim, c.perm), func(t *testing.T) {
				n := 1
				for _, s := range c.shape {
					n *= s
				}
				data := make([]float64, n)
				g := NewGenerator(uint64(n))
				copy(data, g.Randn(Float64, n).Float64s())
				last := c.shape[len(c.shape)-1]
				for i := 0; i < last; i++ {
					data[i] = math.Copysign(0, -1) // first row: all -0
				}
				data[2*last+1] = math.NaN()
				x := FromSlice(data, c.shape...).To(dt)
				if c.perm != nil {
					x = x.Permute(c.perm...)
				}
				got := x.Sum(c.dim)
				var want *Tensor
				if dt == Float32 {
					want = refSum[float32](x, c.dim)
				} else {
					want = refSum[float64](x, c.dim)
				}
				gb, wb := got.Float64s(), want.Float64s()
				for i := range wb {
					if math.Float64bits(gb[i]) != math.Float64bits(wb[i]) && !(math.IsNaN(gb[i]) && math.IsNaN(wb[i])) {
						t.Fatalf("element %d: got %v (%#x), want %v (%#x)", i, gb[i], math.Float64bits(gb[i]), wb[i], math.Float64bits(wb[i]))
					}
				}
			})
		}
	}
}

// refSum sums x over dim by the definitions TestSumShortRowsBits states,
// on a contiguous copy moved so that dim is last (for the last dim) or
// first (for any other).
func refSum[T float32 | float64](x *Tensor, dim int) *Tensor {
	shape := x.Shape()
	if dim == len(shape)-1 {
		c := x.Contiguous()
		s := Data[T](c)
		m := shape[dim]
		out := make([]T, len(s)/m)
		for i := range out {
			var z T
			out[i] = z + vec.Sum(s[i*m:(i+1)*m])
		}
		return FromSlice(out, shape[:dim]...)
	}
	perm := []int{dim}
	for i := range shape {
		if i != dim {
			perm = append(perm, i)
		}
	}
	c := x.Permute(perm...).Contiguous()
	s := Data[T](c)
	m := shape[dim]
	k := len(s) / m
	out := make([]T, k)
	for r := 0; r < m; r++ {
		for i := range out {
			out[i] += s[r*k+i]
		}
	}
	rest := append([]int(nil), shape[:dim]...)
	return FromSlice(out, append(rest, shape[dim+1:]...)...)
}
