package gemm

import (
	"fmt"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BenchmarkGemm times square C = A·B for each kernel this CPU runs and for
// gonum's pure-Go Sgemm/Dgemm, on one and on all cores, and reports GFLOP/s.
func BenchmarkGemm(b *testing.B) {
	for _, procs := range []int{1, runtime.NumCPU()} {
		for _, n := range []int{64, 128, 256, 512, 1024} {
			b.Run(fmt.Sprintf("float32/n=%d/procs=%d", n, procs), func(b *testing.B) {
				benchOne(b, procs, n, kernelsF32, gonum.Implementation{}.Sgemm)
			})
			b.Run(fmt.Sprintf("float64/n=%d/procs=%d", n, procs), func(b *testing.B) {
				benchOne(b, procs, n, kernelsF64, gonum.Implementation{}.Dgemm)
			})
		}
	}
}

func benchOne[T float32 | float64](b *testing.B, procs, n int, ks []*kernel[T],
	ref func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)) {
	x, y, z := make([]T, n*n), make([]T, n*n), make([]T, n*n)
	for i := range x {
		x[i], y[i] = T(i%7)-3, T(i%5)-2
	}
	flops := 2 * float64(n) * float64(n) * float64(n)
	run := func(name string, f func()) {
		b.Run(name, func(b *testing.B) {
			// Set in each leaf: the testing package sets GOMAXPROCS
			// back between sub-benchmarks.
			old := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(old)
			for b.Loop() {
				f()
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
	for i, ok := range available() {
		if ok {
			kn := ks[i]
			run(kn.name, func() {
				gemm(kn, problem[T]{m: n, n: n, k: n, alpha: 1, a: x, lda: n, b: y, ldb: n, c: z, ldc: n}, 0)
			})
		}
	}
	run("gonum", func() { ref(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, z, n) })
}

// workloadShapes are the products of the project's mlp_step workload (as
// its MatMul and backward call Sgemm), those of attention_backward (per
// batch element), 256³, and TN 256×10×64, a narrow product (see narrow).
var workloadShapes = []struct {
	tA, tB  bool
	m, n, k int
}{
	{false, false, 256, 256, 256},
	{false, true, 64, 256, 784}, // mlp_step: h = x·W1ᵀ
	{true, false, 256, 784, 64}, // dW1 = dhᵀ·x
	{false, true, 64, 10, 256},  // logits = h·W2ᵀ
	{false, false, 64, 256, 10}, // dh = dlogits·W2
	{true, false, 10, 256, 64},  // dW2 = dlogitsᵀ·h
	{true, false, 256, 10, 64},
	{false, true, 128, 128, 64},
	{false, false, 128, 64, 128},
	{true, false, 128, 64, 128},
}

// BenchmarkShapes times Sgemm and Dgemm (C = op(A)·op(B)) on the workload
// shapes, on one core and on all, and reports GFLOP/s.
func BenchmarkShapes(b *testing.B) {
	for _, procs := range []int{1, runtime.NumCPU()} {
		for _, s := range workloadShapes {
			name := fmt.Sprintf("%s%s/%dx%dx%d/procs=%d", trName(s.tA), trName(s.tB), s.m, s.n, s.k, procs)
			b.Run("float32/"+name, func(b *testing.B) {
				benchShape(b, procs, s.tA, s.tB, s.m, s.n, s.k, Implementation{}.Sgemm)
			})
			b.Run("float64/"+name, func(b *testing.B) {
				benchShape(b, procs, s.tA, s.tB, s.m, s.n, s.k, Implementation{}.Dgemm)
			})
		}
	}
}

func trName(t bool) string {
	if t {
		return "T"
	}
	return "N"
}

func benchShape[T float32 | float64](b *testing.B, procs int, tA, tB bool, m, n, k int,
	f func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)) {
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	x, y, z := make([]T, m*k), make([]T, k*n), make([]T, m*n)
	for i := range x {
		x[i] = T(i%7) - 3
	}
	for i := range y {
		y[i] = T(i%5) - 2
	}
	ta, lda := blas.NoTrans, k
	if tA {
		ta, lda = blas.Trans, m
	}
	tb, ldb := blas.NoTrans, n
	if tB {
		tb, ldb = blas.Trans, k
	}
	b.ReportAllocs()
	for b.Loop() {
		f(ta, tb, m, n, k, 1, x, lda, y, ldb, 0, z, n)
	}
	b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkNarrow times products with few columns (n) on one core with the
// kernels in use (AGX_GEMM_ISA=avx2 selects the AVX2 ones), computed
// directly and as their transpose (see narrow).
func BenchmarkNarrow(b *testing.B) {
	for _, tr := range [][2]bool{{false, true}, {true, false}, {false, false}} {
		for _, k := range []int{64, 256} {
			for _, m := range []int{64, 256, 1024} {
				for _, n := range []int{1, 2, 5, 10, 16, 20, 24, 32, 40} {
					name := fmt.Sprintf("%s%s/%dx%dx%d", trName(tr[0]), trName(tr[1]), m, n, k)
					b.Run("float32/"+name, func(b *testing.B) { benchNarrow(b, kernF32, tr[0], tr[1], m, n, k) })
					b.Run("float64/"+name, func(b *testing.B) { benchNarrow(b, kernF64, tr[0], tr[1], m, n, k) })
				}
			}
		}
	}
}

func benchNarrow[T float32 | float64](b *testing.B, kn *kernel[T], tA, tB bool, m, n, k int) {
	p := problem[T]{transA: tA, transB: tB, m: m, n: n, k: k, alpha: 1,
		a: make([]T, m*k), lda: k, b: make([]T, k*n), ldb: n, c: make([]T, m*n), ldc: n, overwrite: true}
	if tA {
		p.lda = m
	}
	if tB {
		p.ldb = k
	}
	for i := range p.a {
		p.a[i] = T(i%7) - 3
	}
	for i := range p.b {
		p.b[i] = T(i%5) - 2
	}
	ways := []struct {
		name string
		f    func(*kernel[T], problem[T])
	}{{"direct", multiply[T]}, {"transposed", transposed[T]}}
	for _, way := range ways {
		b.Run(way.name, func(b *testing.B) {
			// Set in each leaf: the testing package sets GOMAXPROCS
			// back between sub-benchmarks.
			old := runtime.GOMAXPROCS(1)
			defer runtime.GOMAXPROCS(old)
			for b.Loop() {
				way.f(kn, p)
			}
			b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkPack times the packing of an A block (240×256, 6-row panels) and
// a B block (256×256, panels two AVX2 vectors wide), strided and
// contiguous, with each packing this CPU runs, and reports ns per element.
func BenchmarkPack(b *testing.B) {
	for _, mode := range packings() {
		b.Run(mode.String(), func(b *testing.B) {
			old := asmPack
			asmPack = mode
			defer func() { asmPack = old }()
			b.Run("float32", func(b *testing.B) { benchPack[float32](b, 16) })
			b.Run("float64", func(b *testing.B) { benchPack[float64](b, 8) })
		})
	}
}

func benchPack[T float32 | float64](b *testing.B, nr int) {
	const mr, rows, k, cols = 6, 240, 256, 256
	a, pa := make([]T, rows*k), make([]T, rows*k)
	bm, pb := make([]T, k*cols), make([]T, k*cols)
	b.Run("A-strided", func(b *testing.B) {
		for b.Loop() {
			for q := 0; q < rows; q += mr {
				packStrided(pa[q*k:], a[q*k:], k, mr, mr, k, 1)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows*k), "ns/elem")
	})
	b.Run("B-contig", func(b *testing.B) {
		for b.Loop() {
			for r := 0; r < cols; r += nr {
				packContig(pb[r*k:], bm[r:], cols, nr, nr, k, 1)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k*cols), "ns/elem")
	})
}
