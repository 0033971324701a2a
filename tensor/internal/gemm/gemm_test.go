package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/blas/testblas"
)

// testKernels lists the kernels this CPU runs, each also with tiny cache
// blocks so that every level of the loop nest (several jc, pc and ic
// blocks, partial blocks) is exercised on small matrices, for kernels with
// edge kernels without them, and for kernels that read A in place
// (kernel.strided) with A packed.
func testKernels[T float32 | float64](ks []*kernel[T]) []*kernel[T] {
	var out []*kernel[T]
	for i, ok := range available() {
		if !ok {
			continue
		}
		k := ks[i]
		small := *k
		small.name += "-smallblocks"
		small.mc, small.kc, small.nc = 2*k.mr, 5, 2*k.nr
		out = append(out, k, &small)
		if k.strided.fn != nil {
			// Every panel of A packed, as without strided kernels.
			packed := *k
			packed.name += "-packA"
			packed.strided = stridedKernels[T]{}
			out = append(out, &packed)
		}
		if k.edge != nil {
			// The scratch-tile path that kernels without edge kernels take.
			noEdge := *k
			noEdge.name += "-noedge"
			noEdge.edge = nil
			out = append(out, &noEdge)
		}
	}
	return out
}

// naive computes alpha·op(A)·op(B) + beta·C in float64 with a triple loop,
// together with the bound Σ|alpha·a·b| + |beta·c| used for the tolerance.
func naive[T float32 | float64](p problem[T], beta T) (want, bound []float64) {
	want = make([]float64, p.m*p.n)
	bound = make([]float64, p.m*p.n)
	for i := 0; i < p.m; i++ {
		for j := 0; j < p.n; j++ {
			var s, b float64
			for q := 0; q < p.k; q++ {
				ai, bi := i*p.lda+q, q*p.ldb+j
				if p.transA {
					ai = q*p.lda + i
				}
				if p.transB {
					bi = j*p.ldb + q
				}
				av, bv := p.a[ai], p.b[bi]
				s += float64(av) * float64(bv)
				b += math.Abs(float64(av) * float64(bv))
			}
			cv := float64(p.c[i*p.ldc+j])
			if beta == 0 {
				cv = 0
			}
			want[i*p.n+j] = float64(p.alpha)*s + float64(beta)*cv
			bound[i*p.n+j] = math.Abs(float64(p.alpha))*b + math.Abs(float64(beta)*cv)
		}
	}
	return want, bound
}

func randSlice[T float32 | float64](r *rand.Rand, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(r.Float64()*2 - 1)
	}
	return s
}

// check runs one product with kernel kn and compares it with naive: the m×n
// result within a k-scaled rounding tolerance, everything else in C
// (the gaps of a strided ldc and the tail) unchanged.
func runCase[T float32 | float64](t *testing.T, kn *kernel[T], r *rand.Rand, tA, tB bool, m, n, k, pad int, alpha, beta T) {
	t.Helper()
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	lda, ldb, ldc := ac+pad, bc+pad, n+pad
	p := problem[T]{transA: tA, transB: tB, m: m, n: n, k: k, alpha: alpha,
		a: randSlice[T](r, ar*lda), lda: lda, b: randSlice[T](r, br*ldb), ldb: ldb,
		c: randSlice[T](r, m*ldc+3), ldc: ldc}
	if beta == 0 && m > 0 && n > 0 {
		p.c[0] = T(math.NaN()) // beta == 0 must overwrite, not scale, C
	}
	orig := append([]T(nil), p.c...)
	want, bound := naive(p, beta)
	gemm(kn, p, beta)
	var eps float64 = 0x1p-52
	var z T
	if any(z) == any(float32(0)) {
		eps = 0x1p-23
	}
	inside := func(x int) bool { return x/ldc < m && x%ldc < n }
	for x, got := range p.c {
		if !inside(x) {
			if got != orig[x] && !(math.IsNaN(float64(got)) && math.IsNaN(float64(orig[x]))) {
				t.Fatalf("%s tA=%v tB=%v m=%d n=%d k=%d: C[%d] outside the result changed from %v to %v", kn.name, tA, tB, m, n, k, x, orig[x], got)
			}
			continue
		}
		i, j := x/ldc, x%ldc
		w, b := want[i*n+j], bound[i*n+j]
		if d := math.Abs(float64(got) - w); d > 2*float64(k+2)*eps*b+1e-300 || math.IsNaN(float64(got)) {
			t.Fatalf("%s tA=%v tB=%v m=%d n=%d k=%d alpha=%v beta=%v: C[%d][%d] = %v, want %v", kn.name, tA, tB, m, n, k, alpha, beta, i, j, got, w)
		}
	}
}

var scalars = [][2]float64{{1, 0}, {1, 1}, {-0.5, 2}, {2, -1}, {0, 0.5}, {0.75, 0}}

// thin returns xs, or under the race detector every other element of xs
// and its last: plain go test runs every size.
func thin(xs []int) []int {
	if !raceEnabled {
		return xs
	}
	var out []int
	for i, x := range xs {
		if i%2 == 0 || i == len(xs)-1 {
			out = append(out, x)
		}
	}
	return out
}

func testShapes[T float32 | float64](t *testing.T, ks []*kernel[T]) {
	sizes := thin([]int{1, 2, 3, 5, 7, 12, 13, 16, 17, 32, 33, 47, 70})
	depths := thin([]int{1, 2, 4, 5, 17, 64, 70})
	for _, kn := range testKernels(ks) {
		t.Run(kn.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
				t.Run(fmt.Sprintf("tA=%v,tB=%v", tr[0], tr[1]), func(t *testing.T) {
					c := 0
					for _, m := range sizes {
						for _, n := range sizes {
							for _, k := range depths {
								s := scalars[c%len(scalars)]
								runCase(t, kn, r, tr[0], tr[1], m, n, k, c%3*2, T(s[0]), T(s[1]))
								c++
							}
						}
					}
				})
			}
		})
	}
}

// packModes runs f with each packing this CPU runs: the Go code, and the
// AVX2 and AVX-512 assembly where the CPU has them (with either set of
// kernels: the AVX2 packing with the AVX-512 kernels' wider panels falls
// back to Go for the widths it does not take). Under the race detector it
// runs f with the Go packing only: the detector sees the memory accesses of
// Go code, not of assembly, so that is the mode in which it checks how the
// workers share packing buffers; the plain test run covers the others.
func packModes(t *testing.T, f func(t *testing.T)) {
	modes := packings()
	if raceEnabled {
		modes = []packing{packGo}
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			old := asmPack
			asmPack = mode
			defer func() { asmPack = old }()
			f(t)
		})
	}
}

func TestShapes(t *testing.T) {
	packModes(t, func(t *testing.T) {
		t.Run("float32", func(t *testing.T) { testShapes(t, kernelsF32) })
		t.Run("float64", func(t *testing.T) { testShapes(t, kernelsF64) })
	})
}

// testEveryDim sweeps each of m, n and k over 1..70 with the other two fixed.
func testEveryDim[T float32 | float64](t *testing.T, ks []*kernel[T]) {
	for _, kn := range testKernels(ks) {
		t.Run(kn.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			dims := make([]int, 70)
			for i := range dims {
				dims[i] = i + 1
			}
			for _, d := range thin(thin(dims)) {
				for c, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
					s := scalars[(d+c)%len(scalars)]
					runCase(t, kn, r, tr[0], tr[1], d, 19, 23, 1, T(s[0]), T(s[1]))
					runCase(t, kn, r, tr[0], tr[1], 14, d, 23, 1, T(s[0]), T(s[1]))
					runCase(t, kn, r, tr[0], tr[1], 14, 19, d, 1, T(s[0]), T(s[1]))
				}
			}
		})
	}
}

func TestEveryDim(t *testing.T) {
	packModes(t, func(t *testing.T) {
		t.Run("float32", func(t *testing.T) { testEveryDim(t, kernelsF32) })
		t.Run("float64", func(t *testing.T) { testEveryDim(t, kernelsF64) })
	})
}

// testNarrow covers products that narrow sends to the transposed path:
// for each kernel, widths that leave most of a tile's nr columns as padding,
// under taller C, with every transpose, several alpha and beta and strided
// operands and C. Several k blocks come from the small-block kernels.
func testNarrow[T float32 | float64](t *testing.T, ks []*kernel[T]) {
	for _, kn := range testKernels(ks) {
		t.Run(kn.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, 10))
			c := 0
			for _, n := range []int{1, 2, kn.nr / 2, kn.nr + 1} {
				for _, m := range []int{n + 1, 64, 101} {
					if !narrow(kn, m, n) {
						t.Fatalf("narrow(%d, %d) is false", m, n)
					}
					for _, k := range []int{1, 10, 64, 256} {
						for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
							s := scalars[c%len(scalars)]
							runCase(t, kn, r, tr[0], tr[1], m, n, k, c%3*2, T(s[0]), T(s[1]))
							c++
						}
					}
				}
			}
		})
	}
}

func TestNarrow(t *testing.T) {
	packModes(t, func(t *testing.T) {
		t.Run("float32", func(t *testing.T) { testNarrow(t, kernelsF32) })
		t.Run("float64", func(t *testing.T) { testNarrow(t, kernelsF64) })
	})
}

// testLarge covers products above parallelMin (split across goroutines) and
// larger than one cache block in every dimension.
func testLarge[T float32 | float64](t *testing.T, ks []*kernel[T]) {
	old := parallelMin
	parallelMin = 1
	defer func() { parallelMin = old }()
	for i, ok := range available() {
		if !ok {
			continue
		}
		kn := ks[i]
		t.Run(kn.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			for _, sh := range [][3]int{{300, 37, 290}, {37, 301, 260}, {257, 3100, 9}, {61, 67, 71}} {
				for c, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
					s := scalars[c]
					runCase(t, kn, r, tr[0], tr[1], sh[0], sh[1], sh[2], 1, T(s[0]), T(s[1]))
				}
			}
		})
	}
}

func TestLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large products")
	}
	packModes(t, func(t *testing.T) {
		t.Run("float32", func(t *testing.T) { testLarge(t, kernelsF32) })
		t.Run("float64", func(t *testing.T) { testLarge(t, kernelsF64) })
	})
}

// TestGonumSuite runs gonum's own Dgemm tests against Implementation.
func TestGonumSuite(t *testing.T) {
	t.Run("float64", func(t *testing.T) { testblas.TestDgemm(t, Implementation{}) })
}

// TestPanics checks that invalid arguments panic with the same message as
// gonum's implementation.
func TestPanics(t *testing.T) {
	s := make([]float64, 100)
	f := make([]float32, 100)
	N, T := blas.NoTrans, blas.Trans
	cases := []struct {
		name          string
		tA, tB        blas.Transpose
		m, n, k       int
		lda, ldb, ldc int
		la, lb, lc    int
	}{
		{"bad transpose", 'x', N, 2, 2, 2, 2, 2, 2, 4, 4, 4},
		{"m<0", N, N, -1, 2, 2, 2, 2, 2, 4, 4, 4},
		{"n<0", N, N, 2, -1, 2, 2, 2, 2, 4, 4, 4},
		{"k<0", N, N, 2, 2, -1, 2, 2, 2, 4, 4, 4},
		{"lda", N, N, 2, 2, 3, 2, 2, 2, 6, 6, 4},
		{"lda trans", T, N, 3, 2, 2, 2, 2, 2, 6, 6, 6},
		{"ldb", N, N, 2, 3, 2, 2, 2, 3, 4, 6, 6},
		{"ldb trans", N, T, 2, 2, 3, 3, 2, 2, 6, 6, 4},
		{"ldc", N, N, 2, 2, 2, 2, 2, 1, 4, 4, 4},
		{"short a", N, N, 2, 2, 2, 2, 2, 2, 3, 4, 4},
		{"short b", N, N, 2, 2, 2, 2, 2, 2, 4, 3, 4},
		{"short c", N, N, 2, 2, 2, 2, 2, 2, 4, 4, 3},
	}
	msg := func(f func()) (s string) {
		defer func() { s = fmt.Sprint(recover()) }()
		f()
		return ""
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := msg(func() {
				gonum.Implementation{}.Dgemm(c.tA, c.tB, c.m, c.n, c.k, 1, s[:c.la], c.lda, s[:c.lb], c.ldb, 0, s[:c.lc], c.ldc)
			})
			got := msg(func() {
				Implementation{}.Dgemm(c.tA, c.tB, c.m, c.n, c.k, 1, s[:c.la], c.lda, s[:c.lb], c.ldb, 0, s[:c.lc], c.ldc)
			})
			got32 := msg(func() {
				Implementation{}.Sgemm(c.tA, c.tB, c.m, c.n, c.k, 1, f[:c.la], c.lda, f[:c.lb], c.ldb, 0, f[:c.lc], c.ldc)
			})
			if want == "" || got != want || got32 != want {
				t.Errorf("Dgemm panics with %q, Sgemm with %q; gonum with %q", got, got32, want)
			}
		})
	}
}

// TestInterfaces checks that Implementation can be installed as gonum's BLAS.
func TestInterfaces(t *testing.T) {
	var _ blas.Float32 = Implementation{}
	var _ blas.Float64 = Implementation{}
	old32, old64 := blas32.Implementation(), blas64.Implementation()
	defer blas32.Use(old32)
	defer blas64.Use(old64)
	blas32.Use(Implementation{})
	blas64.Use(Implementation{})
	a := blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: []float64{1, 2, 3, 4}}
	c := blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: make([]float64, 4)}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, a, a, 0, c)
	if want := []float64{7, 10, 15, 22}; fmt.Sprint(c.Data) != fmt.Sprint(want) {
		t.Errorf("blas64.Gemm = %v, want %v", c.Data, want)
	}
}

// TestOnWorker checks SgemmOn and DgemmOn against Sgemm and Dgemm for
// products above parallelMin: on the caller (worker 0, split) and on
// helpers (not split, own packing buffers), several at once.
func TestOnWorker(t *testing.T) {
	old := parallelMin
	parallelMin = 1
	defer func() { parallelMin = old }()
	r := rand.New(rand.NewPCG(7, 8))
	m, n, k := 97, 131, 75
	a32, b32 := make([]float32, m*k), make([]float32, k*n)
	a64, b64 := make([]float64, m*k), make([]float64, k*n)
	for i := range a32 {
		a64[i] = r.NormFloat64()
		a32[i] = float32(a64[i])
	}
	for i := range b32 {
		b64[i] = r.NormFloat64()
		b32[i] = float32(b64[i])
	}
	want32, want64 := make([]float32, m*n), make([]float64, m*n)
	Implementation{}.Sgemm(blas.NoTrans, blas.Trans, m, n, k, 1.5, a32, k, b32, k, 0, want32, n)
	Implementation{}.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1.5, a64, k, b64, k, 0, want64, n)
	var wg sync.WaitGroup
	for _, w := range []int{0, 1, 2, 9} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				c32, c64 := make([]float32, m*n), make([]float64, m*n)
				Implementation{}.SgemmOn(w, blas.NoTrans, blas.Trans, m, n, k, 1.5, a32, k, b32, k, 0, c32, n)
				Implementation{}.DgemmOn(w, blas.NoTrans, blas.Trans, m, n, k, 1.5, a64, k, b64, k, 0, c64, n)
				for i := range c32 {
					// The same kernels and blocking: bit for bit, split or not.
					if c32[i] != want32[i] || c64[i] != want64[i] {
						t.Errorf("worker %d: element %d is %v/%v, want %v/%v", w, i, c32[i], c64[i], want32[i], want64[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
