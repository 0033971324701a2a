package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPowCheapFormsBlocked checks Pow with an exponent that has a cheap
// form (powForm) on lengths around vecPow's blocks, in place and not,
// against powForm's scalar function bit for bit, in both float dtypes.
func TestPowCheapFormsBlocked(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testPowCheapForms[float32](t) })
	t.Run("float64", func(t *testing.T) { testPowCheapForms[float64](t) })
}

func testPowCheapForms[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	ps := []float64{-5, -4, -3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 4, 5}
	ns := []int{16, 17, powBlock - 1, powBlock, powBlock + 1, powBlock + vecMin - 1, powBlock + vecMin, 3*powBlock + 7, 1 << 17}
	for _, p := range ps {
		f := powForm[T](p)
		if f == nil {
			t.Fatalf("Pow %v has no cheap form", p)
		}
		for _, n := range ns {
			src := make([]T, n)
			for i := range src {
				switch r.IntN(8) {
				case 0:
					src[i] = T([]float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN()}[r.IntN(5)])
				default:
					src[i] = T(r.NormFloat64() * 3)
				}
			}
			for _, inPlace := range []bool{false, true} {
				t.Run(fmt.Sprintf("p=%v/n=%d/inplace=%v", p, n, inPlace), func(t *testing.T) {
					d := make([]T, n)
					for i := range d {
						d[i] = T(math.NaN())
					}
					s := src
					if inPlace {
						copy(d, src)
						s = d
					}
					if !vecPow(d, s, p) {
						if inPlace && (p == 3 || p == -3 || p == 5 || p == -5) {
							return // left to powForm, as documented
						}
						t.Fatal("vecPow took no form")
					}
					for i, x := range src {
						if got, want := d[i], f(x); !(got == want && math.Signbit(float64(got)) == math.Signbit(float64(want)) || got != got && want != want) {
							t.Fatalf("element %d: %v**%v = %v, want %v", i, x, p, got, want)
						}
					}
				})
			}
		}
	}
}
