package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Lengths to test: every length up to 100 (all the tail cases of both vector
// sizes), around the unrolled and leaf block sizes, and a few large ones.
func testLengths() []int {
	var ls []int
	for n := 0; n <= 100; n++ {
		ls = append(ls, n)
	}
	return append(ls, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2047, 3000, 4099, 10007)
}

// specials returns values that arithmetic treats specially.
func specials[T Float]() []T {
	inf := T(math.Inf(1))
	var sub, maxSub, minNorm, maxF T
	var z T
	if _, ok := any(z).(float32); ok {
		sub, maxSub = T(math.Float32frombits(1)), T(math.Float32frombits(0x007fffff))
		maxF32 := float32(math.MaxFloat32)
		minNorm, maxF = T(math.Float32frombits(0x00800000)), T(maxF32)
	} else {
		sub, maxSub = T(math.Float64frombits(1)), T(math.Float64frombits(0x000fffffffffffff))
		maxF64 := math.MaxFloat64
		minNorm, maxF = T(math.Float64frombits(0x0010000000000000)), T(maxF64)
	}
	negZero := T(math.Copysign(0, -1))
	return []T{0, negZero, inf, -inf, T(math.NaN()), sub, -sub, maxSub, -maxSub, minNorm, -minNorm,
		maxF, -maxF, 1, -1, 3, T(1) / 3, 0.1}
}

// values returns n values: mostly random of varied magnitude, a quarter
// special.
func values[T Float](r *rand.Rand, n int) []T {
	sp := specials[T]()
	v := make([]T, n)
	for i := range v {
		if r.IntN(4) == 0 {
			v[i] = sp[r.IntN(len(sp))]
		} else {
			v[i] = T(r.NormFloat64() * math.Exp2(float64(r.IntN(40)-20)))
		}
	}
	return v
}

// same reports whether x and y are the same value: equal bits, or both NaN.
func same[T Float](x, y T) bool {
	if x != x || y != y {
		return x != x && y != y
	}
	return x == y && math.Signbit(float64(x)) == math.Signbit(float64(y))
}

func ref[T Float](op Op, x, y T) T {
	switch op {
	case Add:
		return x + y
	case Sub:
		return x - y
	case Mul:
		return x * y
	case Maximum, Minimum:
		// NaN first operand, then NaN second, then the comparison; equal
		// operands (+0 and -0 too) give y.
		switch {
		case math.IsNaN(float64(x)):
			return x
		case math.IsNaN(float64(y)):
			return y
		case op == Maximum && x > y, op == Minimum && x < y:
			return x
		}
		return y
	}
	return x / y
}

var opNames = [numOps]string{"Add", "Sub", "Mul", "Div", "Maximum", "Minimum"}

const guard = 7 // elements around each destination that must stay untouched

// guarded returns n elements, starting n%4 elements into a buffer whose
// other elements are NaN, so that a routine reading past the end of its
// input shows it in its result.
func guarded[T Float](n int) []T {
	off := n % 4
	buf := make([]T, off+n+guard)
	for i := range buf {
		buf[i] = T(math.NaN())
	}
	return buf[off : off+n]
}

func TestBinary(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testBinary(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testBinary(t, impls64()) })
}

// testBinary checks every routine of every implementation against the scalar
// expression, on every length, at unaligned starts, in place, and that
// nothing outside dst is written.
func testBinary[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, im := range impls {
		for op := Add; op < numOps; op++ {
			t.Run(im.name+"/"+opNames[op], func(t *testing.T) {
				for _, n := range testLengths() {
					off := n % 4 // unaligned starts via sub-slices
					a := values[T](r, n+off)[off:]
					b := values[T](r, n+off)[off:]
					s := specials[T]()[n%len(specials[T]())]
					if n%3 == 0 {
						s = T(r.NormFloat64())
					}
					type form struct {
						name string
						run  func(d []T)
						want func(i int) T
					}
					forms := []form{
						{"vv", func(d []T) { im.vv[op](&d[0], ptr(a), ptr(b), n) }, func(i int) T { return ref(op, a[i], b[i]) }},
						{"vs", func(d []T) { im.vs[op](&d[0], ptr(a), s, n) }, func(i int) T { return ref(op, a[i], s) }},
						{"sv", func(d []T) { im.sv[op](&d[0], ptr(a), s, n) }, func(i int) T { return ref(op, s, a[i]) }},
					}
					for _, f := range forms {
						buf := make([]T, n+2*guard+off)
						for i := range buf {
							buf[i] = -12345
						}
						f.run(buf[guard+off:])
						for i, got := range buf {
							j := i - guard - off
							if j < 0 || j >= n {
								if got != -12345 {
									t.Fatalf("%s n=%d: wrote %v outside dst at %d", f.name, n, got, j)
								}
								continue
							}
							if want := f.want(j); !same(got, want) {
								t.Fatalf("%s n=%d: element %d: got %v, want %v", f.name, n, j, got, want)
							}
						}
					}
					// In place: dst is a (and for vv, b too).
					d := append([]T(nil), a...)
					if n > 0 {
						im.vv[op](&d[0], &d[0], ptr(b), n)
					}
					for i := range d {
						if want := ref(op, a[i], b[i]); !same(d[i], want) {
							t.Fatalf("in place n=%d: element %d: got %v, want %v", n, i, d[i], want)
						}
					}
				}
			})
		}
	}
}

// ptr is &v[0], or nil for an empty v (the routines read nothing then).
func ptr[T Float](v []T) *T {
	if len(v) == 0 {
		return nil
	}
	return &v[0]
}

// TestExtremeSpecials runs Maximum and Minimum of every implementation over
// every pair of special values (NaNs, signed zeros, infinities,
// subnormals) in the three forms, at lengths that end in a full vector
// and in tails of several lengths.
func TestExtremeSpecials(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testExtremeSpecials(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testExtremeSpecials(t, impls64()) })
}

func testExtremeSpecials[T Float](t *testing.T, impls []*impl[T]) {
	sp := specials[T]()
	var a, b []T
	for _, x := range sp {
		for _, y := range sp {
			a, b = append(a, x), append(b, y)
		}
	}
	for _, im := range impls {
		for _, op := range []Op{Maximum, Minimum} {
			for _, n := range []int{len(a), len(a) - 1, 7, 3} {
				d := make([]T, n)
				im.vv[op](&d[0], &a[0], &b[0], n)
				for i := range d {
					if want := ref(op, a[i], b[i]); !same(d[i], want) {
						t.Fatalf("%s %s(%v, %v) n=%d: got %v, want %v", im.name, opNames[op], a[i], b[i], n, d[i], want)
					}
				}
				for _, s := range sp {
					im.vs[op](&d[0], &a[0], s, n)
					for i := range d {
						if want := ref(op, a[i], s); !same(d[i], want) {
							t.Fatalf("%s %s(%v, s=%v) n=%d: got %v, want %v", im.name, opNames[op], a[i], s, n, d[i], want)
						}
					}
					im.sv[op](&d[0], &a[0], s, n)
					for i := range d {
						if want := ref(op, s, a[i]); !same(d[i], want) {
							t.Fatalf("%s %s(s=%v, %v) n=%d: got %v, want %v", im.name, opNames[op], s, a[i], n, d[i], want)
						}
					}
				}
			}
		}
	}
}

func TestPublicAPI(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testPublicAPI[float32](t) })
	t.Run("f64", func(t *testing.T) { testPublicAPI[float64](t) })
}

func testPublicAPI[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 17, 1000} {
		a, b := values[T](r, n), values[T](r, n)
		d := make([]T, n)
		for op := Add; op < numOps; op++ {
			Binary(op, d, a, b)
			for i := range d {
				if !same(d[i], ref(op, a[i], b[i])) {
					t.Fatalf("Binary %s n=%d: element %d", opNames[op], n, i)
				}
			}
			BinaryScalar(op, d, a, 3)
			for i := range d {
				if !same(d[i], ref(op, a[i], 3)) {
					t.Fatalf("BinaryScalar %s n=%d: element %d", opNames[op], n, i)
				}
			}
			ScalarBinary(op, d, 3, b)
			for i := range d {
				if !same(d[i], ref(op, 3, b[i])) {
					t.Fatalf("ScalarBinary %s n=%d: element %d", opNames[op], n, i)
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Binary with a short operand did not panic")
		}
	}()
	Binary(Add, make([]T, 3), make([]T, 3), make([]T, 2))
}

func TestSum(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testSum(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testSum(t, impls64()) })
}

// testSum checks that every implementation's leaf gives the bits of the Go
// one (so Sum does not depend on the CPU), that it reads nothing past the
// end, and Sum's accuracy and special cases.
func testSum[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(5, 6))
	goLeaf := impls[len(impls)-1].sumLeaf
	lengths := append(testLengths(), 100_003)
	for _, im := range impls {
		t.Run(im.name+"/same-as-go", func(t *testing.T) {
			for _, n := range lengths {
				for _, special := range []bool{false, true} {
					v := guarded[T](n)
					for i := range v {
						v[i] = T(r.NormFloat64() * math.Exp2(float64(r.IntN(20)-10)))
						if special && r.IntN(50) == 0 {
							sp := specials[T]()
							v[i] = sp[r.IntN(len(sp))]
						}
					}
					got := pairwise(im.sumLeaf, v, SumBlock[T]())
					want := pairwise(goLeaf, v, SumBlock[T]())
					if !same(got, want) {
						t.Fatalf("n=%d special=%v: got %v, want %v", n, special, got, want)
					}
				}
			}
		})
	}
	t.Run("accuracy", func(t *testing.T) {
		// Positive values, so the relative error of the sum is bounded by
		// about (32 + log2 n)·eps.
		for _, n := range []int{10, 1000, 100_000, 1_000_000} {
			v := make([]T, n)
			for i := range v {
				v[i] = T(r.Float64())
			}
			exact := neumaier(v)
			eps := 0x1p-52
			if _, ok := any(v[0]).(float32); ok {
				eps = 0x1p-23
			}
			tol := (32 + math.Log2(float64(n))) * eps
			if got := float64(Sum(v)); math.Abs(got-exact) > tol*exact {
				t.Errorf("n=%d: sum %v, exact %v: relative error %.3g > %.3g", n, got, exact, math.Abs(got-exact)/exact, tol)
			}
		}
	})
	negZero := T(math.Copysign(0, -1))
	inf := T(math.Inf(1))
	cases := []struct {
		name string
		v    []T
		want T
	}{
		{"empty", nil, 0},
		{"negative-zeros", []T{negZero, negZero, negZero}, 0},
		{"inf", []T{1, inf, 2}, inf},
		{"inf-minus-inf", []T{inf, 1, -inf}, T(math.NaN())},
		{"nan", append(make([]T, 1000), T(math.NaN())), T(math.NaN())},
		{"subnormals", []T{specials[T]()[5], specials[T]()[5]}, 2 * specials[T]()[5]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Sum(c.v); !same(got, c.want) {
				t.Errorf("Sum(%v) = %v, want %v", c.v, got, c.want)
			}
		})
	}
}

// neumaier is a compensated float64 sum of v, far more accurate than needed
// as the exact sum here.
func neumaier[T Float](v []T) float64 {
	var s, c float64
	for _, x := range v {
		y := float64(x)
		t := s + y
		if math.Abs(s) >= math.Abs(y) {
			c += (s - t) + y
		} else {
			c += (y - t) + s
		}
		s = t
	}
	return s + c
}

func ExampleSum() {
	v := make([]float64, 10000)
	for i := range v {
		v[i] = 0.1
	}
	fmt.Printf("%.10f\n", Sum(v))
	// Output: 1000.0000000000
}

// TestSumParts: Sum split into the subtrees of its top levels, the parts
// run in any order, gives Sum's bits at every depth, per dtype.
func TestSumParts(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testSumParts[float32](t) })
	t.Run("f64", func(t *testing.T) { testSumParts[float64](t) })
}

func testSumParts[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	b := SumBlock[T]()
	for _, n := range []int{0, 1, b - 1, b, b + 1, 2*b + 3, 5 * b, 7*b + 11, 100_003} {
		v := make([]T, n)
		for i := range v {
			v[i] = T(r.NormFloat64() * math.Exp2(float64(r.IntN(40)-20)))
		}
		want := Sum(v)
		for depth := range 7 {
			calls := 0
			got := SumParts(v, depth, func(k int, part func(i int)) {
				for i := k - 1; i >= 0; i-- { // backwards: the order must not matter
					part(i)
					calls++
				}
			})
			if !same(got, want) {
				t.Fatalf("n=%d depth=%d: got %v, want Sum's %v", n, depth, got, want)
			}
			if max := 1 << depth; calls > max || (n > max*b && calls != max) {
				t.Fatalf("n=%d depth=%d: %d parts", n, depth, calls)
			}
		}
	}
}
