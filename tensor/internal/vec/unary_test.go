package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

var fnNames = [6]string{"Neg", "Abs", "Round", "Sign", "Floor", "Ceil"}

// fnOf is the scalar reference of f.
func fnOf[T Float](f Fn, x T) T {
	switch f {
	case Neg:
		return NegOf(x)
	case Abs:
		return AbsOf(x)
	case Round:
		return RoundOf(x)
	case Floor:
		return FloorOf(x)
	case Ceil:
		return CeilOf(x)
	}
	return SignOf(x)
}

// unaryInputs returns n values for the unary tests: withNaNs's values
// (specials, NaNs of any sign and payload, quiet and signalling), with
// halves, values next to halves and integers beyond the fraction bits
// mixed in, where rounding is delicate.
func unaryInputs[T Float](r *rand.Rand, n int) []T {
	v := withNaNs[T](r, n)
	big := T(1 << 23)
	if _, ok := any(v).([]float64); ok {
		big = T(float64(1 << 52))
	}
	delicate := []T{0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997, 0.5000001, 1e-40,
		big - 0.5, -(big - 0.5), big, big + 1, -big - 1, 2 * big, 123456.5, -7.5}
	for i := range v {
		if r.IntN(5) == 0 {
			v[i] = delicate[r.IntN(len(delicate))]
		}
	}
	return v
}

func TestUnary(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testUnary(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testUnary(t, impls64()) })
}

// testUnary holds every implementation to the scalar functions bit for
// bit, out of place and in place, over lengths that are and are not
// multiples of the vector widths (0 included), with every special value;
// Round, Floor and Ceil only have to give a NaN for a NaN (the
// instructions quiet a signalling one).
func testUnary[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(21, 22))
	check := func(t *testing.T, f Fn, what string, n, i int, x, got T) {
		want := fnOf(f, x)
		if (f == Round || f == Floor || f == Ceil) && x != x {
			if got == got {
				t.Fatalf("%s n=%d: element %d: %s(%#x) = %#x, want a NaN", what, n, i, fnNames[f], bitsOf(x), bitsOf(got))
			}
			return
		}
		if bitsOf(got) != bitsOf(want) {
			t.Fatalf("%s n=%d: element %d: %s(%#x): got %#x, want %#x", what, n, i, fnNames[f], bitsOf(x), bitsOf(got), bitsOf(want))
		}
	}
	for _, im := range impls {
		for f := range Fn(len(fnNames)) {
			t.Run(im.name+"/"+fnNames[f], func(t *testing.T) {
				for _, n := range testLengths() {
					off := n % 4
					a := unaryInputs[T](r, n+off)[off:]
					buf, d := fill[T](n, off)
					im.unary[f](ptr(d), ptr(a), n)
					checkGuards(t, fnNames[f], buf, n, off)
					for i := range d {
						check(t, f, "", n, i, a[i], d[i])
					}
					d = append([]T(nil), a...)
					im.unary[f](ptr(d), ptr(d), n)
					for i := range d {
						check(t, f, "in place", n, i, a[i], d[i])
					}
				}
			})
		}
	}
}

func TestUnaryValues(t *testing.T) {
	negZero := math.Copysign(0, -1)
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		f    Fn
		in   []float64
		want []float64
	}{
		{"neg", Neg, []float64{0, negZero, 1, -inf}, []float64{negZero, 0, -1, inf}},
		{"abs", Abs, []float64{negZero, -2, inf, -inf}, []float64{0, 2, inf, inf}},
		{"round half to even", Round, []float64{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, -0.2}, []float64{0, 2, 2, negZero, -2, -2, 0, negZero}},
		{"round specials", Round, []float64{inf, -inf, negZero, nan}, []float64{inf, -inf, negZero, nan}},
		{"sign", Sign, []float64{3, -0.1, 0, negZero, nan, inf, -inf, 1e-40, -1e-40}, []float64{1, -1, 0, negZero, nan, 1, -1, 1, -1}},
		{"floor", Floor, []float64{0.5, -0.5, 1.5, -1.5, 2, -2, -0.2, 1e-40, -1e-40}, []float64{0, -1, 1, -2, 2, -2, -1, 0, -1}},
		{"floor specials", Floor, []float64{inf, -inf, 0, negZero, nan}, []float64{inf, -inf, 0, negZero, nan}},
		{"ceil", Ceil, []float64{0.5, -0.5, 1.5, -1.5, 2, -2, -0.2, 1e-40, -1e-40}, []float64{1, negZero, 2, -1, 2, -2, negZero, 1, negZero}},
		{"ceil specials", Ceil, []float64{inf, -inf, 0, negZero, nan}, []float64{inf, -inf, 0, negZero, nan}},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/f64", func(t *testing.T) { testUnaryValues(t, tc.f, tc.in, tc.want) })
		t.Run(tc.name+"/f32", func(t *testing.T) {
			in, want := make([]float32, len(tc.in)), make([]float32, len(tc.want))
			for i := range in {
				in[i], want[i] = float32(tc.in[i]), float32(tc.want[i])
			}
			testUnaryValues(t, tc.f, in, want)
		})
	}
}

// testUnaryValues checks Unary, on every implementation, against written
// results (a run of 37 copies of the inputs, so that the vector loops and
// the tails see them all).
func testUnaryValues[T Float](t *testing.T, f Fn, in, want []T) {
	var a, w []T
	for range 37 {
		a, w = append(a, in...), append(w, want...)
	}
	for _, im := range implsOf[T]() {
		d := make([]T, len(a))
		im.unary[f](ptr(d), ptr(a), len(a))
		for i := range d {
			if !same(d[i], w[i]) {
				t.Fatalf("%s: %s(%v) = %v, want %v", im.name, fnNames[f], a[i], d[i], w[i])
			}
		}
	}
}

func TestClamp(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testClamp(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testClamp(t, impls64()) })
}

// testClamp holds every implementation to ClampOf bit for bit, for bounds
// that are zeros of either sign, infinite (a one-sided clamp), equal, or
// crossed (lo > hi), out of place and in place.
func testClamp[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(23, 24))
	negZero := T(math.Copysign(0, -1))
	inf := T(math.Inf(1))
	bounds := []struct {
		name   string
		lo, hi T
	}{
		{"[-1,1]", -1, 1}, {"[0,6]", 0, 6}, {"[-0,6]", negZero, 6}, {"[-3,0]", -3, 0},
		{"[-3,-0]", -3, negZero}, {"[0,0]", 0, 0}, {"[-inf,0.5]", -inf, 0.5},
		{"[-0.5,inf]", -0.5, inf}, {"[-inf,inf]", -inf, inf}, {"crossed [2,1]", 2, 1},
	}
	for _, im := range impls {
		for _, b := range bounds {
			t.Run(im.name+"/"+b.name, func(t *testing.T) {
				for _, n := range testLengths() {
					off := n % 4
					a := unaryInputs[T](r, n+off)[off:]
					buf, d := fill[T](n, off)
					im.clamp(ptr(d), ptr(a), b.lo, b.hi, n)
					checkGuards(t, "clamp", buf, n, off)
					for i := range d {
						if want := ClampOf(a[i], b.lo, b.hi); bitsOf(d[i]) != bitsOf(want) {
							t.Fatalf("n=%d: element %d: clamp(%#x): got %#x, want %#x", n, i, bitsOf(a[i]), bitsOf(d[i]), bitsOf(want))
						}
					}
					d = append([]T(nil), a...)
					im.clamp(ptr(d), ptr(d), b.lo, b.hi, n)
					for i := range d {
						if want := ClampOf(a[i], b.lo, b.hi); bitsOf(d[i]) != bitsOf(want) {
							t.Fatalf("in place n=%d: element %d: got %#x, want %#x", n, i, bitsOf(d[i]), bitsOf(want))
						}
					}
				}
			})
		}
	}
}

func TestUnaryAPI(t *testing.T) {
	a := []float32{-1.5, 2.5, -0.2}
	d := make([]float32, 3)
	Unary(Round, d, a)
	if d[0] != -2 || d[1] != 2 || !math.Signbit(float64(d[2])) {
		t.Fatalf("Unary(Round) = %v", d)
	}
	Clamp(d, a, -1, 1)
	if d[0] != -1 || d[1] != 1 || d[2] != -0.2 {
		t.Fatalf("Clamp = %v", d)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Unary with lengths 2 and 3 did not panic")
		}
	}()
	Unary(Abs, d[:2], a)
}

// implsOf is impls32 or impls64.
func implsOf[T Float]() []*impl[T] {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(impls32()).([]*impl[T])
	}
	return any(impls64()).([]*impl[T])
}
