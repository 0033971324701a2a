package tensor

import (
	"fmt"
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
