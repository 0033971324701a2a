package vec

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// bitsOf returns the bits of x as a uint64.
func bitsOf[T Float](x T) uint64 {
	if unsafe.Sizeof(x) == 4 {
		return uint64(*(*uint32)(unsafe.Pointer(&x)))
	}
	return *(*uint64)(unsafe.Pointer(&x))
}

// withNaNs returns values with some NaNs of varied sign and payload added,
// quiet and signalling, so that the tests see the bits those keep.
func withNaNs[T Float](r *rand.Rand, n int) []T {
	v := values[T](r, n)
	for i := range v {
		if r.IntN(16) != 0 {
			continue
		}
		if unsafe.Sizeof(v[i]) == 4 {
			b := uint32(0x7f800000) | uint32(1+r.IntN(0x7fffff)) | uint32(r.IntN(2))<<31
			*(*uint32)(unsafe.Pointer(&v[i])) = b
		} else {
			b := uint64(0x7ff0000000000000) | uint64(1+r.Int64N(0xfffffffffffff)) | uint64(r.IntN(2))<<63
			*(*uint64)(unsafe.Pointer(&v[i])) = b
		}
	}
	return v
}

// fill returns a buffer of n+2·guard+off elements set to -12345 and its
// destination part, n elements from guard+off.
func fill[T Float](n, off int) (buf, d []T) {
	buf = make([]T, n+2*guard+off)
	for i := range buf {
		buf[i] = -12345
	}
	return buf, buf[guard+off : guard+off+n]
}

// checkGuards fails if an element of buf outside d changed.
func checkGuards[T Float](t *testing.T, what string, buf []T, n, off int) {
	t.Helper()
	for i, x := range buf {
		if j := i - guard - off; (j < 0 || j >= n) && x != -12345 {
			t.Fatalf("%s n=%d: wrote %v outside dst at %d", what, n, x, j)
		}
	}
}

var gradNames = [2]string{"Sigmoid", "Tanh"}

func gradRef[T Float](gr Grad, y, g T) T {
	if gr == SigmoidGrad {
		return (1 - y) * y * g
	}
	return (1 - T(y*y)) * g
}

func TestGradMul(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testGradMul(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testGradMul(t, impls64()) })
}

func testGradMul[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, im := range impls {
		for gr := SigmoidGrad; gr <= TanhGrad; gr++ {
			t.Run(im.name+"/"+gradNames[gr], func(t *testing.T) {
				for _, n := range testLengths() {
					off := n % 4
					y := values[T](r, n+off)[off:]
					g := values[T](r, n+off)[off:]
					for i := range y {
						if r.IntN(2) == 0 {
							y[i] = T(r.Float64()) // the range of sigmoid and tanh
						}
					}
					s := specials[T]()[n%len(specials[T]())]
					if n%3 == 0 {
						s = T(r.NormFloat64())
					}
					buf, d := fill[T](n, off)
					im.grad[gr](ptr(d), ptr(y), ptr(g), n)
					checkGuards(t, "vv", buf, n, off)
					for i := range d {
						if want := gradRef(gr, y[i], g[i]); !same(d[i], want) {
							t.Fatalf("vv n=%d: element %d: y=%v g=%v: got %v, want %v", n, i, y[i], g[i], d[i], want)
						}
					}
					buf, d = fill[T](n, off)
					im.gradS[gr](ptr(d), ptr(y), s, n)
					checkGuards(t, "vs", buf, n, off)
					for i := range d {
						if want := gradRef(gr, y[i], s); !same(d[i], want) {
							t.Fatalf("vs n=%d: element %d: y=%v s=%v: got %v, want %v", n, i, y[i], s, d[i], want)
						}
					}
					// In place, over g.
					d = append([]T(nil), g...)
					im.grad[gr](ptr(d), ptr(y), ptr(d), n)
					for i := range d {
						if want := gradRef(gr, y[i], g[i]); !same(d[i], want) {
							t.Fatalf("in place n=%d: element %d: got %v, want %v", n, i, d[i], want)
						}
					}
				}
			})
		}
	}
}

func TestRelu(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testRelu(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testRelu(t, impls64()) })
}

// testRelu holds every implementation to ReluOf bit for bit, NaNs
// included.
func testRelu[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				a := withNaNs[T](r, n+off)[off:]
				buf, d := fill[T](n, off)
				im.relu(ptr(d), ptr(a), n)
				checkGuards(t, "relu", buf, n, off)
				for i := range d {
					if want := ReluOf(a[i]); bitsOf(d[i]) != bitsOf(want) {
						t.Fatalf("n=%d: element %d: relu(%#x): got %#x, want %#x", n, i, bitsOf(a[i]), bitsOf(d[i]), bitsOf(want))
					}
				}
				d = append([]T(nil), a...)
				im.relu(ptr(d), ptr(d), n)
				for i := range d {
					if want := ReluOf(a[i]); bitsOf(d[i]) != bitsOf(want) {
						t.Fatalf("in place n=%d: element %d: got %#x, want %#x", n, i, bitsOf(d[i]), bitsOf(want))
					}
				}
			}
		})
	}
}

func TestReluGrad(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testReluGrad(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testReluGrad(t, impls64()) })
}

// testReluGrad holds every implementation to ReluGradOf bit for bit, with
// NaNs in y (whose gradient is +0) and in g (copied where y > 0), out of
// place and in place over y and over g.
func testReluGrad[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				y := withNaNs[T](r, n+off)[off:]
				g := withNaNs[T](r, n+1)[1:]
				check := func(what string, d []T) {
					t.Helper()
					for i := range d {
						if want := ReluGradOf(y[i], g[i]); bitsOf(d[i]) != bitsOf(want) {
							t.Fatalf("%s n=%d: element %d: y=%#x g=%#x: got %#x, want %#x", what, n, i, bitsOf(y[i]), bitsOf(g[i]), bitsOf(d[i]), bitsOf(want))
						}
					}
				}
				buf, d := fill[T](n, off)
				im.reluGrad(ptr(d), ptr(y), ptr(g), n)
				checkGuards(t, "reluGrad", buf, n, off)
				check("out of place", d)
				d = append([]T(nil), y...)
				im.reluGrad(ptr(d), ptr(d), ptr(g), n)
				check("in place over y", d)
				d = append([]T(nil), g...)
				im.reluGrad(ptr(d), ptr(y), ptr(d), n)
				check("in place over g", d)
			}
		})
	}
}

func TestReluGradOf(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testReluGradOf[float32](t) })
	t.Run("f64", func(t *testing.T) { testReluGradOf[float64](t) })
}

func testReluGradOf[T Float](t *testing.T) {
	nan, inf := T(math.NaN()), T(math.Inf(1))
	negZero := T(math.Copysign(0, -1))
	cases := []struct {
		name    string
		y, g, w T
	}{
		{"positive", 2, 3, 3},
		{"negative", -2, 3, 0},
		{"zero", 0, 3, 0},
		{"negative zero", negZero, 3, 0},
		{"NaN output", nan, 3, 0},
		{"NaN gradient where positive", 1, nan, nan},
		{"NaN gradient where negative", -1, nan, 0},
		{"infinite gradient where zero", 0, inf, 0},
		{"negative zero gradient kept", 1, negZero, negZero},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ReluGradOf(tc.y, tc.g); !same(got, tc.w) {
				t.Fatalf("ReluGradOf(%v, %v) = %v, want %v", tc.y, tc.g, got, tc.w)
			}
		})
	}
}

func TestSqrt(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testSqrt(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testSqrt(t, impls64()) })
}

// testSqrt holds every implementation to math.Sqrt bit for bit, on
// positive, negative, zero and NaN inputs, out of place and in place.
func testSqrt[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(11, 12))
	want := func(x T) T { return T(math.Sqrt(float64(x))) }
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				a := withNaNs[T](r, n+off)[off:]
				for i := range a {
					if i%3 == 0 {
						a[i] *= a[i] * 1e3 // large squares, exact roots for some
					}
				}
				if n > 2 {
					a[1] = T(math.Copysign(0, -1))
				}
				buf, d := fill[T](n, off)
				im.sqrt(ptr(d), ptr(a), n)
				checkGuards(t, "sqrt", buf, n, off)
				for i := range d {
					if w := want(a[i]); bitsOf(d[i]) != bitsOf(w) {
						t.Fatalf("n=%d: element %d: sqrt(%#x): got %#x, want %#x", n, i, bitsOf(a[i]), bitsOf(d[i]), bitsOf(w))
					}
				}
				d = append([]T(nil), a...)
				im.sqrt(ptr(d), ptr(d), n)
				for i := range d {
					if w := want(a[i]); bitsOf(d[i]) != bitsOf(w) {
						t.Fatalf("in place n=%d: element %d: got %#x, want %#x", n, i, bitsOf(d[i]), bitsOf(w))
					}
				}
			}
		})
	}
}

// TestAxpby holds every implementation to AxpbyOf bit for bit (products
// and sum rounded separately; a NaN result only has to be a NaN, since
// which operand's payload an addition of two NaNs keeps is not defined),
// out of place and in place over either operand.
func TestAxpby(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testAxpby(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testAxpby(t, impls64()) })
}

// testAxpby holds every implementation to AxpbyOf bit for bit (products
// and sum rounded separately), NaNs included, out of place and in place
// over either operand.
func testAxpby[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				a := withNaNs[T](r, n+off)[off:]
				b := withNaNs[T](r, n+off)[off:]
				sa, sb := T(0.9), T(-0.1000001)
				buf, d := fill[T](n, off)
				im.axpby(ptr(d), ptr(a), ptr(b), sa, sb, n)
				checkGuards(t, "axpby", buf, n, off)
				for i := range d {
					if w := AxpbyOf(a[i], b[i], sa, sb); !same(d[i], w) {
						t.Fatalf("n=%d: element %d: %v·%v + %v·%v: got %#x, want %#x", n, i, sa, a[i], sb, b[i], bitsOf(d[i]), bitsOf(w))
					}
				}
				for _, over := range []string{"a", "b"} {
					d = append([]T(nil), a...)
					x, y := d, b
					if over == "b" {
						d = append([]T(nil), b...)
						x, y = a, d
					}
					im.axpby(ptr(d), ptr(x), ptr(y), sa, sb, n)
					for i := range d {
						if w := AxpbyOf(a[i], b[i], sa, sb); !same(d[i], w) {
							t.Fatalf("in place over %s, n=%d: element %d: got %#x, want %#x", over, n, i, bitsOf(d[i]), bitsOf(w))
						}
					}
				}
			}
		})
	}
}

// TestMulAdd holds every implementation to MulAddOf bit for bit (product
// and sum rounded separately; a NaN result only has to be a NaN), out of
// place and in place over each operand.
func TestMulAdd(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testMulAdd(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testMulAdd(t, impls64()) })
}

func testMulAdd[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				a := withNaNs[T](r, n+off)[off:]
				b := withNaNs[T](r, n+off)[off:]
				c := withNaNs[T](r, n+off)[off:]
				buf, d := fill[T](n, off)
				im.mulAdd(ptr(d), ptr(a), ptr(b), ptr(c), n)
				checkGuards(t, "mulAdd", buf, n, off)
				for i := range d {
					if w := MulAddOf(a[i], b[i], c[i]); !same(d[i], w) {
						t.Fatalf("n=%d: element %d: %v·%v + %v: got %#x, want %#x", n, i, a[i], b[i], c[i], bitsOf(d[i]), bitsOf(w))
					}
				}
				for k := range 3 {
					ops := [][]T{a, b, c}
					d = append([]T(nil), ops[k]...)
					ops[k] = d
					im.mulAdd(ptr(d), ptr(ops[0]), ptr(ops[1]), ptr(ops[2]), n)
					for i := range d {
						if w := MulAddOf(a[i], b[i], c[i]); !same(d[i], w) {
							t.Fatalf("in place over operand %d, n=%d: element %d: got %#x, want %#x", k, n, i, bitsOf(d[i]), bitsOf(w))
						}
					}
				}
			}
		})
	}
}

// TestSumDiff holds every implementation's SumDiffSq and SumDiffProd to
// SumDiffSqOf and SumDiffProdOf bit for bit (a NaN only has to be a NaN),
// checking that nothing outside s and q is written.
func TestSumDiff(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testSumDiff(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testSumDiff(t, impls64()) })
}

func testSumDiff[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				g := withNaNs[T](r, n+off)[off:]
				x := withNaNs[T](r, n+off)[off:]
				v := withNaNs[T](r, n+off)[off:]
				s0, q0 := withNaNs[T](r, n), withNaNs[T](r, n)
				for _, prod := range []bool{false, true} {
					sbuf, s := fill[T](n, off)
					qbuf, q := fill[T](n, off)
					copy(s, s0)
					copy(q, q0)
					if prod {
						im.sumDiffProd(ptr(s), ptr(q), ptr(g), ptr(x), ptr(v), n)
					} else {
						im.sumDiffSq(ptr(s), ptr(q), ptr(x), ptr(v), n)
					}
					checkGuards(t, "sum", sbuf, n, off)
					checkGuards(t, "square sum", qbuf, n, off)
					for i := range s {
						ws, wq := SumDiffSqOf(s0[i], q0[i], x[i], v[i])
						if prod {
							ws, wq = SumDiffProdOf(s0[i], q0[i], g[i], x[i], v[i])
						}
						if !same(s[i], ws) || !same(q[i], wq) {
							t.Fatalf("product %v, n=%d: element %d: got %#x %#x, want %#x %#x", prod, n, i, bitsOf(s[i]), bitsOf(q[i]), bitsOf(ws), bitsOf(wq))
						}
					}
				}
			}
		})
	}
}

// TestMulMulAdd holds every implementation to MulMulAddOf bit for bit (a
// NaN only has to be a NaN), out of place and in place over each operand.
func TestMulMulAdd(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testMulMulAdd(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testMulMulAdd(t, impls64()) })
}

func testMulMulAdd[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				var in [5][]T
				for k := range in {
					in[k] = withNaNs[T](r, n+off)[off:]
				}
				want := func(i int) T { return MulMulAddOf(in[0][i], in[1][i], in[2][i], in[3][i], in[4][i]) }
				buf, d := fill[T](n, off)
				im.mulMulAdd(ptr(d), ptr(in[0]), ptr(in[1]), ptr(in[2]), ptr(in[3]), ptr(in[4]), n)
				checkGuards(t, "mulMulAdd", buf, n, off)
				for i := range d {
					if w := want(i); !same(d[i], w) {
						t.Fatalf("n=%d: element %d: got %#x, want %#x", n, i, bitsOf(d[i]), bitsOf(w))
					}
				}
				for k := range in {
					ops := in
					d = append([]T(nil), in[k]...)
					ops[k] = d
					im.mulMulAdd(ptr(d), ptr(ops[0]), ptr(ops[1]), ptr(ops[2]), ptr(ops[3]), ptr(ops[4]), n)
					for i := range d {
						if w := want(i); !same(d[i], w) {
							t.Fatalf("in place over operand %d, n=%d: element %d: got %#x, want %#x", k, n, i, bitsOf(d[i]), bitsOf(w))
						}
					}
				}
			}
		})
	}
}

var cmpNames = [6]string{"Eq", "Ne", "Lt", "Le", "Gt", "Ge"}

func cmpRef[T Float](op Cmp, x, y T) bool {
	switch op {
	case Eq:
		return x == y
	case Ne:
		return x != y
	case Lt:
		return x < y
	case Le:
		return x <= y
	case Gt:
		return x > y
	}
	return x >= y
}

func TestCompare(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testCompare(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testCompare(t, impls64()) })
}

// boolBuf returns a buffer of n+2·guard+off bytes set to 0x5a and its
// destination part as bools, so that the test sees both a write outside it
// and a byte in it other than 0 or 1.
func boolBuf(n, off int) (buf []byte, d []bool) {
	buf = make([]byte, n+2*guard+off)
	for i := range buf {
		buf[i] = 0x5a
	}
	return buf, unsafe.Slice((*bool)(unsafe.Pointer(&buf[guard+off])), n)
}

func checkBools(t *testing.T, what string, buf []byte, n, off int, want func(i int) bool) {
	t.Helper()
	for i, x := range buf {
		j := i - guard - off
		if j < 0 || j >= n {
			if x != 0x5a {
				t.Fatalf("%s n=%d: wrote %#x outside dst at %d", what, n, x, j)
			}
			continue
		}
		w := byte(b2u(want(j)))
		if x != w {
			t.Fatalf("%s n=%d: element %d: got byte %#x, want %#x", what, n, j, x, w)
		}
	}
}

func testCompare[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, im := range impls {
		for op := Eq; op <= Ge; op++ {
			t.Run(im.name+"/"+cmpNames[op], func(t *testing.T) {
				for _, n := range testLengths() {
					off := n % 4
					a := values[T](r, n+off)[off:]
					b := values[T](r, n+off)[off:]
					for i := range b {
						if r.IntN(3) == 0 {
							b[i] = a[i] // equal pairs, NaN and ±0 among them
						}
					}
					s := specials[T]()[n%len(specials[T]())]
					if n%3 == 0 && n > 0 {
						s = a[n/2]
					}
					buf, d := boolBuf(n, off)
					var dp *bool
					if n > 0 {
						dp = &d[0]
					}
					im.cmp[op](dp, ptr(a), ptr(b), n)
					checkBools(t, "vv", buf, n, off, func(i int) bool { return cmpRef(op, a[i], b[i]) })
					buf, d = boolBuf(n, off)
					if n > 0 {
						dp = &d[0]
					}
					im.cmpS[op](dp, ptr(a), s, n)
					checkBools(t, "vs", buf, n, off, func(i int) bool { return cmpRef(op, a[i], s) })
				}
			})
		}
	}
}

func TestSelect(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testSelect(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testSelect(t, impls64()) })
}

// testSelect checks the three selections bit for bit (NaN payloads
// included), at unaligned starts, in place, and the guards.
func testSelect[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				a := withNaNs[T](r, n+off)[off:]
				b := withNaNs[T](r, n+off)[off:]
				cbuf := make([]bool, n+off)
				for i := range cbuf {
					cbuf[i] = r.IntN(2) == 0
				}
				c := cbuf[off:]
				var cp *bool
				if n > 0 {
					cp = &c[0]
				}
				s := withNaNs[T](r, 1)[0]
				pick := func(c bool, x, y T) T {
					if c {
						return x
					}
					return y
				}
				forms := []struct {
					name string
					run  func(d []T)
					want func(i int) T
				}{
					{"vv", func(d []T) { im.sel(ptr(d), ptr(a), ptr(b), cp, n) }, func(i int) T { return pick(c[i], a[i], b[i]) }},
					{"vs", func(d []T) { im.selVS(ptr(d), ptr(a), cp, s, n) }, func(i int) T { return pick(c[i], a[i], s) }},
					{"sv", func(d []T) { im.selSV(ptr(d), ptr(a), cp, s, n) }, func(i int) T { return pick(c[i], s, a[i]) }},
				}
				for _, f := range forms {
					buf, d := fill[T](n, off)
					f.run(d)
					checkGuards(t, f.name, buf, n, off)
					for i := range d {
						if want := f.want(i); bitsOf(d[i]) != bitsOf(want) {
							t.Fatalf("%s n=%d: element %d: got %#x, want %#x", f.name, n, i, bitsOf(d[i]), bitsOf(want))
						}
					}
				}
				d := append([]T(nil), b...)
				im.sel(ptr(d), ptr(a), ptr(d), cp, n)
				for i := range d {
					if want := pick(c[i], a[i], b[i]); bitsOf(d[i]) != bitsOf(want) {
						t.Fatalf("in place n=%d: element %d: got %#x, want %#x", n, i, bitsOf(d[i]), bitsOf(want))
					}
				}
			}
		})
	}
}

func TestKernelsAPI(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testKernelsAPI[float32, uint32](t) })
	t.Run("f64", func(t *testing.T) { testKernelsAPI[float64, uint64](t) })
}

// testKernelsAPI checks the exported functions' dispatch and length checks.
func testKernelsAPI[T Float, U uint32 | uint64](t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const n = 1000
	y, g := values[T](r, n), values[T](r, n)
	d := make([]T, n)
	GradMul(TanhGrad, d, y, g)
	for i := range d {
		if !same(d[i], gradRef(TanhGrad, y[i], g[i])) {
			t.Fatalf("GradMul: element %d", i)
		}
	}
	GradMulScalar(SigmoidGrad, d, y, 3)
	for i := range d {
		if !same(d[i], gradRef(SigmoidGrad, y[i], 3)) {
			t.Fatalf("GradMulScalar: element %d", i)
		}
	}
	Relu(d, y)
	for i := range d {
		if bitsOf(d[i]) != bitsOf(ReluOf(y[i])) {
			t.Fatalf("Relu: element %d", i)
		}
	}
	ReluGrad(d, y, g)
	for i := range d {
		if bitsOf(d[i]) != bitsOf(ReluGradOf(y[i], g[i])) {
			t.Fatalf("ReluGrad: element %d", i)
		}
	}
	c := make([]bool, n)
	Compare(Lt, c, y, g)
	for i := range c {
		if c[i] != (y[i] < g[i]) {
			t.Fatalf("Compare: element %d", i)
		}
	}
	CompareScalar(Ne, c, y, T(math.NaN()))
	for i := range c {
		if !c[i] {
			t.Fatalf("CompareScalar Ne NaN: element %d", i)
		}
	}
	a, b := make([]U, n), make([]U, n)
	for i := range a {
		c[i] = r.IntN(2) == 0
		a[i], b[i] = U(r.Uint64()), U(r.Uint64())
	}
	du := make([]U, n)
	Select(du, c, a, b)
	SelectScalar(du[:10], c[:10], a[:10], 7)
	ScalarSelect(du[10:20], c[10:20], 9, b[10:20])
	for i := range du {
		want := b[i]
		switch {
		case i < 10 && c[i]:
			want = a[i]
		case i < 10:
			want = 7
		case i < 20 && c[i]:
			want = 9
		case c[i]:
			want = a[i]
		}
		if du[i] != want {
			t.Fatalf("Select: element %d: got %#x, want %#x", i, du[i], want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Select with a short mask did not panic")
		}
	}()
	Select(du, c[:n-1], a, b)
}

// TestConvert holds every implementation's widen (float32 to float64) and
// narrow (float64 to float32) to Go's conversions bit for bit: NaNs with
// payloads, subnormals, and float64s that round to float32 subnormals, to
// zero, to the largest float32 and past it to ±Inf.
func TestConvert(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	edges := []float64{math.MaxFloat32, math.Nextafter(math.MaxFloat32, math.Inf(1)), 3.4028235677973366e38, 3.4028235677973367e38,
		-3.4028235677973367e38, 1e39, math.SmallestNonzeroFloat32, math.SmallestNonzeroFloat32 / 2, math.SmallestNonzeroFloat32 * 0.5000001,
		1e-46, -1e-46, 1.1754942e-38, math.SmallestNonzeroFloat64, 1 + 0x1p-24, 1 + 0x1p-24 + 0x1p-52, 1 + 3*0x1p-24}
	for _, im := range impls32() {
		t.Run("widen/"+im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				a := withNaNs[float32](r, n+off)[off:]
				buf, d := fill[float64](n, off)
				im.widen(ptr(d), ptr(a), n)
				checkGuards(t, "widen", buf, n, off)
				for i, x := range a {
					if want := float64(x); bitsOf(d[i]) != bitsOf(want) {
						t.Fatalf("n=%d: element %d: widen(%#x) = %#x, want %#x", n, i, bitsOf(x), bitsOf(d[i]), bitsOf(want))
					}
				}
			}
		})
	}
	for _, im := range impls64() {
		t.Run("narrow/"+im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				a := withNaNs[float64](r, n+off)[off:]
				for i := range a {
					if r.IntN(4) == 0 {
						a[i] = edges[r.IntN(len(edges))]
					}
				}
				buf, d := fill[float32](n, off)
				im.narrow(ptr(d), ptr(a), n)
				checkGuards(t, "narrow", buf, n, off)
				for i, x := range a {
					if want := float32(x); bitsOf(d[i]) != bitsOf(want) {
						t.Fatalf("n=%d: element %d: narrow(%#x) = %#x, want %#x", n, i, bitsOf(x), bitsOf(d[i]), bitsOf(want))
					}
				}
			}
		})
	}
}

// TestTranspose holds every implementation's transpose kernel, and
// Transpose with its edges, to the definition dst[i·ld+j] = src[j·ls+i],
// bit for bit (NaN payloads included), writing nothing else in dst.
func TestTranspose(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testTranspose(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testTranspose(t, impls64()) })
}

func testTranspose[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(51, 52))
	b := transposeBlock[T]()
	check := func(t *testing.T, what string, run func(dst []T, ld int, src []T, ls, rows, cols int), rows, cols, padD, padS int) {
		t.Helper()
		ld, ls := cols+padD, rows+padS
		src := withNaNs[T](r, max(0, (cols-1)*ls+rows))
		buf, dst := fill[T](max(0, (rows-1)*ld+cols), 0)
		run(dst, ld, src, ls, rows, cols)
		checkGuards(t, what, buf, len(dst), 0)
		for i := range rows {
			for j := range ld {
				k := i*ld + j
				if k >= len(dst) {
					break
				}
				want := T(-12345) // the padding between dst rows stays
				if j < cols {
					want = src[j*ls+i]
				}
				if bitsOf(dst[k]) != bitsOf(want) {
					t.Fatalf("%s %d×%d (ld %d, ls %d): dst[%d][%d] = %#x, want %#x", what, rows, cols, ld, ls, i, j, bitsOf(dst[k]), bitsOf(want))
				}
			}
		}
	}
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			for _, rows := range []int{b, 2 * b, 5 * b} {
				for _, cols := range []int{b, 3 * b, 4 * b} {
					for _, pad := range [][2]int{{0, 0}, {1, 3}, {b, 0}} {
						check(t, "kernel", func(dst []T, ld int, src []T, ls, rows, cols int) {
							im.transpose(&dst[0], ld, &src[0], ls, rows, cols)
						}, rows, cols, pad[0], pad[1])
					}
				}
			}
		})
	}
	for _, rows := range []int{0, 1, 3, b - 1, b, b + 1, 2*b + 3, 37} {
		for _, cols := range []int{0, 1, 2, b, b + 2, 3*b - 1, 29} {
			check(t, "Transpose", Transpose[T], rows, cols, rows%3, cols%2)
		}
	}
	// Strides that do not fit the slices panic, overflowing ones too.
	for _, c := range []struct{ ld, ls, nd, ns int }{
		{8, 8, 63, 64}, {8, 8, 64, 63}, {7, 8, 64, 64}, {8, 7, 64, 64},
		{1 << 62, 8, 64, 64}, {8, 1 << 62, 64, 64}, {1<<62 - 1024/int(unsafe.Sizeof(T(0))), 8, 64, 64},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Transpose 8×8, ld %d, ls %d, slices of %d and %d: no panic", c.ld, c.ls, c.nd, c.ns)
				}
			}()
			Transpose(make([]T, c.nd), c.ld, make([]T, c.ns), c.ls, 8, 8)
		}()
	}
}
