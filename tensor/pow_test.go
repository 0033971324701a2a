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

// TestPowTensorExponent holds a float32 Pow with a tensor exponent to the
// scalar Pow element by element: where the exponent takes e^(p·log x)
// (powExpLog32) and x is positive and finite, the bits of x.Pow(p); else
// math.Pow's (x·x for p = 2); everywhere within 1 ulp of math.Pow. Dense,
// with one exponent per row broadcast over the row, strided (an exponent
// every other element, a transposed base), and as a flat op below the
// split size.
func TestPowTensorExponent(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	ps := []float32{1.5, -2.25, 0.1, 1.0 / 3, 7.5, 100.5, 7, 2, 3, -1, 0.5, -0.5, 0, 1,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), -1e-3}
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.SmallestNonzeroFloat32, math.MaxFloat32, 1, -1, -2.5, 1e-30, 1e30, 0.5, 2}
	const rows, cols = 18, 300
	xv, pv := make([]float32, rows*cols), make([]float32, rows*cols)
	for i := range xv {
		if i%5 == 0 {
			xv[i] = xs[r.IntN(len(xs))]
		} else {
			xv[i] = float32(math.Exp(r.NormFloat64() * 4))
		}
		pv[i] = ps[r.IntN(len(ps))]
	}
	// 70225^1.5 = 265³ = 18609625, halfway between two float32s: math.Pow
	// rounds it to even, e^(p·log x) lands on either side.
	xv[1], pv[1] = 70225, 1.5
	want := func(x, p float32) float32 {
		if x > 0 && x <= math.MaxFloat32 && powExpLog32(float64(p)) {
			return ToSlice[float32](FromSlice([]float32{x}).Pow(float64(p)))[0]
		}
		if p == 2 {
			return x * x
		}
		return float32(math.Pow(float64(x), float64(p)))
	}
	check := func(what string, got []float32, p func(i int) float32) {
		t.Helper()
		for i, x := range xv[:len(got)] {
			if w := want(x, p(i)); math.Float32bits(got[i]) != math.Float32bits(w) && !(got[i] != got[i] && w != w) {
				t.Fatalf("%s: %v**%v = %v, want %v", what, x, p(i), got[i], w)
			}
			if m := float32(math.Pow(float64(x), float64(p(i)))); got[i] == got[i] && ulp32(got[i], m) > 1 {
				t.Fatalf("%s: %v**%v = %v, %d ulp from math.Pow's %v", what, x, p(i), got[i], ulp32(got[i], m), m)
			}
		}
	}
	x, p := FromSlice(xv).Reshape(rows, cols), FromSlice(pv).Reshape(rows, cols)
	check("dense", ToSlice[float32](x.Pow(p)), func(i int) float32 { return pv[i] })
	perRow := FromSlice(ps).Reshape(rows, 1)
	check("a row's exponent", ToSlice[float32](x.Pow(perRow)), func(i int) float32 { return ps[i/cols] })
	strided := Stack(2, p, p).Select(2, 0) // exponents 2 apart
	check("a strided exponent", ToSlice[float32](x.Pow(strided)), func(i int) float32 { return pv[i] })
	check("a transposed base", ToSlice[float32](x.T().Contiguous().T().Pow(p)), func(i int) float32 { return pv[i] })
	small := FromSlice(xv[:cols])
	check("flat", ToSlice[float32](small.Pow(FromSlice(pv[:cols]))), func(i int) float32 { return pv[i] })
	for i, got := range ToSlice[float64](x.To(Float64).Pow(p.To(Float64))) {
		if w := math.Pow(float64(xv[i]), float64(pv[i])); math.Float64bits(got) != math.Float64bits(w) && !(got != got && w != w) {
			if pv[i] != 2 || got != float64(xv[i])*float64(xv[i]) {
				t.Fatalf("float64 %v**%v = %v, want math.Pow's %v", xv[i], pv[i], got, w)
			}
		}
	}
}

// TestPowExpLog32 holds powExpLog32 to its definition: p finite, without
// a cheap form (powForm).
func TestPowExpLog32(t *testing.T) {
	for _, p := range []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1, -1, 2, -2, 3, 4, 5, -5, 5.5, -5.5, 6, -6, 7, 1.5, 0.25, 1e-300,
		1e300, -1e300, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 0.5000000000000001, 4.999999999999999} {
		want := !math.IsNaN(p) && !math.IsInf(p, 0) && powForm[float32](p) == nil
		if got := powExpLog32(p); got != want {
			t.Errorf("powExpLog32(%v) = %v, want %v", p, got, want)
		}
	}
}
