package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// dotRef is Dot written plainly in the order it documents: pairwise over
// runs of SumBlock elements, a run's products added into lanes partial sums
// by index modulo lanes, folded in halves.
func dotRef[T Float](a, b []T) T {
	block := SumBlock[T]()
	if len(a) > block {
		h := (len(a)/2 + block - 1) / block * block
		return dotRef(a[:h], b[:h]) + dotRef(a[h:], b[h:])
	}
	l := make([]T, lanes[T]())
	for i := range a {
		l[i%len(l)] += T(a[i] * b[i])
	}
	for w := len(l) / 2; w >= 1; w /= 2 {
		for j := range w {
			l[j] += l[j+w]
		}
	}
	return l[0]
}

func TestDot(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testDot(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testDot(t, impls64()) })
}

// testDot holds every implementation's leaf to dotRef bit for bit (so Dot
// does not depend on the CPU), checks that it reads nothing past the end,
// and checks Dot's accuracy and special cases.
func testDot[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(21, 22))
	lengths := append(testLengths(), 100_003)
	for _, im := range impls {
		t.Run(im.name+"/same-as-ref", func(t *testing.T) {
			for _, n := range lengths {
				for _, special := range []bool{false, true} {
					a, b := guarded[T](n), guarded[T](n)
					for i := range a {
						a[i] = T(r.NormFloat64() * math.Exp2(float64(r.IntN(20)-10)))
						b[i] = T(r.NormFloat64())
						if special && r.IntN(50) == 0 {
							sp := specials[T]()
							a[i] = sp[r.IntN(len(sp))]
						}
					}
					got := pairwise2(im.dotLeaf, a, b, SumBlock[T]())
					if want := dotRef(a, b); !same(got, want) {
						t.Fatalf("n=%d special=%v: got %v, want %v", n, special, got, want)
					}
				}
			}
		})
	}
	t.Run("accuracy", func(t *testing.T) {
		// Positive products, so the relative error is bounded by about
		// (1 + 32 + log2 n)·eps.
		for _, n := range []int{10, 128, 1000, 100_000, 1_000_000} {
			a, b := make([]T, n), make([]T, n)
			p := make([]float64, n)
			for i := range a {
				a[i], b[i] = T(r.Float64()), T(r.Float64())
				p[i] = float64(a[i]) * float64(b[i])
			}
			exact := neumaier(p)
			eps := 0x1p-52
			if _, ok := any(a[0]).(float32); ok {
				eps = 0x1p-23
			}
			tol := (33 + math.Log2(float64(n))) * eps
			if got := float64(Dot(a, b)); math.Abs(got-exact) > tol*exact {
				t.Errorf("n=%d: dot %v, exact %v: relative error %.3g > %.3g", n, got, exact, math.Abs(got-exact)/exact, tol)
			}
		}
	})
	negZero := T(math.Copysign(0, -1))
	inf := T(math.Inf(1))
	cases := []struct {
		name string
		a, b []T
		want T
	}{
		{"empty", nil, nil, 0},
		{"negative-zero-products", []T{negZero, 1, negZero}, []T{1, negZero, 2}, 0},
		{"inf", []T{1, inf, 2}, []T{1, 1, 1}, inf},
		{"inf-times-zero", []T{1, inf}, []T{1, 0}, T(math.NaN())},
		{"nan", append(make([]T, 1000), T(math.NaN())), make([]T, 1001), T(math.NaN())},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Dot(c.a, c.b); !same(got, c.want) {
				t.Errorf("Dot(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
			}
		})
	}
}

func TestSoftmaxGradKernel(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testSoftmaxGradKernel(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testSoftmaxGradKernel(t, impls64()) })
}

// testSoftmaxGradKernel holds every implementation's row update to
// SoftmaxBackwardOf bit for bit, NaNs and in place over y included.
func testSoftmaxGradKernel[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			for _, n := range testLengths() {
				off := n % 4
				g0, y := withNaNs[T](r, n+off)[off:], withNaNs[T](r, n+off)[off:]
				sp := specials[T]()
				rs, s := T(r.NormFloat64()), T(r.NormFloat64())
				if n%5 == 0 {
					rs, s = sp[n%len(sp)], sp[(n/5)%len(sp)]
				}
				buf, g := fill[T](n, off)
				copy(g, g0)
				im.softmaxGrad(ptr(g), ptr(y), rs, s, n)
				checkGuards(t, "softmaxGrad", buf, n, off)
				for i := range g {
					if w := SoftmaxBackwardOf(g0[i], y[i], rs, s); !same(g[i], w) {
						t.Fatalf("n=%d: element %d: got %#x, want %#x", n, i, bitsOf(g[i]), bitsOf(w))
					}
				}
				g = append([]T(nil), y...)
				im.softmaxGrad(ptr(g), ptr(g), rs, s, n)
				for i := range g {
					if w := SoftmaxBackwardOf(y[i], y[i], rs, s); !same(g[i], w) {
						t.Fatalf("in place n=%d: element %d: got %#x, want %#x", n, i, bitsOf(g[i]), bitsOf(w))
					}
				}
			}
		})
	}
}

func TestSoftmaxBackward(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testSoftmaxBackward[float32](t) })
	t.Run("f64", func(t *testing.T) { testSoftmaxBackward[float64](t) })
}

// testSoftmaxBackward checks SoftmaxBackward against a scalar loop over
// the rows, with y a softmax's output, for rows of many lengths.
func testSoftmaxBackward[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, n := range []int{1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 64, 127, 128, 129, 1000, 1025, 3000} {
		for _, rows := range []int{0, 1, 3} {
			t.Run(fmt.Sprintf("n=%d/rows=%d", n, rows), func(t *testing.T) {
				y, g := make([]T, rows*n), make([]T, rows*n)
				for lo := 0; lo < len(y); lo += n {
					var sum float64
					for i := lo; i < lo+n; i++ {
						e := math.Exp(r.NormFloat64())
						y[i], sum = T(e), sum+e
					}
					for i := lo; i < lo+n; i++ {
						y[i] /= T(sum)
						g[i] = T(r.NormFloat64())
					}
				}
				const s = 0.125
				want := make([]T, len(g))
				for lo := 0; lo < len(g); lo += n {
					rs := dotRef(g[lo:lo+n], y[lo:lo+n])
					for i := lo; i < lo+n; i++ {
						want[i] = T(T(g[i]-rs)*y[i]) * s
					}
				}
				g64 := make([]float64, len(g)) // the gradient in float64
				for lo := 0; lo < len(g); lo += n {
					var rs float64
					for i := lo; i < lo+n; i++ {
						rs += float64(g[i]) * float64(y[i])
					}
					for i := lo; i < lo+n; i++ {
						g64[i] = (float64(g[i]) - rs) * float64(y[i]) * s
					}
				}
				SoftmaxBackward(g, y, n, s)
				eps := 0x1p-52
				if _, ok := any(T(0)).(float32); ok {
					eps = 0x1p-23
				}
				for i := range g {
					if !same(g[i], want[i]) {
						t.Fatalf("element %d: got %v, want %v", i, g[i], want[i])
					}
					// |g - r| is at most a few units, y at most 1.
					if d := math.Abs(float64(g[i]) - g64[i]); d > 64*eps {
						t.Fatalf("element %d: %v is %.3g from the float64 gradient %v", i, g[i], d, g64[i])
					}
				}
			})
		}
	}
	panics := []struct {
		name string
		g, y []T
		n    int
	}{
		{"lengths differ", make([]T, 4), make([]T, 3), 1},
		{"rows of zero elements", make([]T, 4), make([]T, 4), 0},
		{"ragged rows", make([]T, 4), make([]T, 4), 3},
	}
	for _, c := range panics {
		t.Run("panics/"+c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			SoftmaxBackward(c.g, c.y, c.n, 1)
		})
	}
}
