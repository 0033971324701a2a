package tensor

import (
	"fmt"
	"slices"
	"testing"
)

// TestTransposeCopy checks copies whose source is transposed (the tiled
// path) against element-by-element indexing, for shapes around the tile
// and the thresholds, 3-d views that collapse to a transpose, and dtypes.
func TestTransposeCopy(t *testing.T) {
	for _, dt := range []DType{Float32, Float64, Int64, Bool} {
		for _, sh := range [][2]int{{31, 33}, {32, 32}, {16, 64}, {300, 517}, {1, 2000}, {2000, 1}, {1024, 70}} {
			t.Run(fmt.Sprintf("%v/%v", dt, sh), func(t *testing.T) {
				m, n := sh[0], sh[1]
				v := make([]float64, m*n)
				for i := range v {
					v[i] = float64(i%97 - 40)
				}
				x := FromSlice(v, m, n).To(dt)
				y := x.T().Contiguous()
				got, want, xs := y.Float64s(), make([]float64, m*n), x.Float64s()
				for i := 0; i < n; i++ {
					for j := 0; j < m; j++ {
						want[i*m+j] = xs[j*n+i]
					}
				}
				for k := range want {
					if got[k] != want[k] {
						t.Fatalf("element %d: got %v, want %v", k, got[k], want[k])
					}
				}
			})
		}
	}
	// A [4, 40, 30] tensor permuted to [4, 30, 40] (three dims after
	// collapsing: the row loop), and the transpose of a column slice (the
	// tiles, with src rows 80 apart).
	x := Arange(Float64, 0, 4*40*30, 1).Reshape(4, 40, 30)
	p := x.Permute(0, 2, 1).Contiguous().Float64s()
	for a := 0; a < 4; a++ {
		for b := 0; b < 30; b++ {
			for c := 0; c < 40; c++ {
				if got, want := p[(a*30+b)*40+c], float64((a*40+c)*30+b); got != want {
					t.Fatalf("permuted [%d,%d,%d] = %v, want %v", a, b, c, got, want)
				}
			}
		}
	}
	s := Arange(Float64, 0, 64*80, 1).Reshape(64, 80).Slice(1, 8, 72, 1)
	st := s.T().Contiguous().Float64s()
	for i := 0; i < 64; i++ {
		for j := 0; j < 64; j++ {
			if got, want := st[i*64+j], float64(j*80+8+i); got != want {
				t.Fatalf("sliced transpose [%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}

// TestBroadcastCopy checks copies of a source broadcast along its columns
// (strides [1, 0] after collapsing, which look like a transpose whose
// rows overlap) and along a batch, in every dtype and past the tiles'
// threshold: each element is its row's value.
func TestBroadcastCopy(t *testing.T) {
	for _, dt := range []DType{Float32, Float64, Int64, Bool} {
		for _, sh := range [][]int{{64, 64}, {300, 517}, {2, 64, 64}} {
			t.Run(fmt.Sprintf("%v/%v", dt, sh), func(t *testing.T) {
				col := append(append([]int{}, sh[:len(sh)-1]...), 1)
				n := 1
				for _, d := range col {
					n *= d
				}
				x := Arange(Float64, 0, float64(n), 1).Reshape(col...).To(dt)
				got := x.Expand(sh...).Contiguous().Float64s()
				xs, m := x.Float64s(), sh[len(sh)-1]
				for k, v := range got {
					if v != xs[k/m] {
						t.Fatalf("element %d: got %v, want %v", k, v, xs[k/m])
					}
				}
				dst := Zeros(dt, sh...)
				dst.CopyFrom(x)
				if !slices.Equal(dst.Float64s(), got) {
					t.Fatalf("CopyFrom differs from Contiguous")
				}
			})
		}
	}
}
