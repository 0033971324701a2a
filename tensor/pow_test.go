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

// TestPowFloat32ExpLog checks float32 Pow with exponents that have no
// cheap form against float32(math.Pow) within 1 ulp (the same bits for
// zero, negative, infinite and NaN x), on contiguous and strided data,
// whose bits must agree.
func TestPowFloat32ExpLog(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.SmallestNonzeroFloat32, math.MaxFloat32, 1, -1, -2.5, 1e-30, 1e30, 0.5, 2}
	for i := 0; i < 5000; i++ {
		xs = append(xs, float32(math.Exp(r.NormFloat64()*6)), float32(-math.Exp(r.NormFloat64())))
	}
	x := FromSlice(xs)
	strided := Stack(1, x, x).Select(1, 0)
	for _, p := range []float64{1.5, 0.25, -1.5, 1.0 / 3, 2.5, 7, -7, 10, 0.1, 100, -100, 1e-3} {
		if !powExpLog32(p) {
			t.Fatalf("Pow %v does not take e^(p·log x)", p)
		}
		got := ToSlice[float32](x.Pow(p))
		gotStrided := ToSlice[float32](strided.Pow(p))
		for i, v := range xs {
			want := float32(math.Pow(float64(v), p))
			if math.Float32bits(got[i]) != math.Float32bits(gotStrided[i]) {
				t.Fatalf("p=%v x=%v: contiguous %v, strided %v", p, v, got[i], gotStrided[i])
			}
			special := !(v > 0) || math.IsInf(float64(v), 0) || v != v
			switch {
			case want != want:
				if got[i] == got[i] {
					t.Fatalf("%v**%v = %v, want NaN", v, p, got[i])
				}
			case special && math.Float32bits(got[i]) != math.Float32bits(want):
				t.Fatalf("%v**%v = %v, want %v (bits)", v, p, got[i], want)
			case ulp32(got[i], want) > 1:
				t.Fatalf("%v**%v = %v, want %v (%d ulp)", v, p, got[i], want, ulp32(got[i], want))
			}
		}
	}
}

// ulp32 is the distance between two finite float32 (or equal infinities)
// in units in the last place.
func ulp32(a, b float32) int64 {
	ord := func(f float32) int64 {
		u := int64(math.Float32bits(f))
		if u&(1<<31) != 0 {
			return -(u &^ (1 << 31))
		}
		return u
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return d
}
