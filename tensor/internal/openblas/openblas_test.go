//go:build openblas

package openblas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
)

// Name gives OpenBLAS's thread count and names its kernels.
func TestName(t *testing.T) {
	name := Name()
	want := fmt.Sprintf(", %d thread", Threads())
	if !strings.HasPrefix(name, "OpenBLAS") || !strings.Contains(name, want) || !strings.Contains(name, " kernels") {
		t.Errorf("Name() = %q, want OpenBLAS with %q and its kernels", name, want)
	}
}

// splitEveryProduct makes every product with two blocks to hand out split
// into procs stripes (OpenBLAS one thread, no size threshold, GOMAXPROCS
// procs) until t ends.
func splitEveryProduct(t *testing.T, procs int) {
	oldMin, oldThreads := splitMin, threads
	oldProcs := runtime.GOMAXPROCS(procs)
	t.Cleanup(func() {
		splitMin, threads = oldMin, oldThreads
		runtime.GOMAXPROCS(oldProcs)
	})
	splitMin = 1
	threads = func() int { return 1 }
}

// Large products are split into stripes when OpenBLAS runs
// one thread. Every layout, both split directions, ragged stripes, alpha
// and beta must give the plain-loop result.
func TestOpenBLASStripes(t *testing.T) {
	splitEveryProduct(t, 3)

	for _, c := range []struct {
		name    string
		m, n, k int
	}{
		{"rows", 300, 130, 70},    // m >= n: row stripes, the last one short
		{"columns", 130, 301, 9},  // m < n: column stripes
		{"unsplit", 127, 100, 50}, // both dims below two blocks: one call
	} {
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				name := fmt.Sprintf("%s/%s%s", c.name, transName(tA), transName(tB))
				t.Run("float32/"+name, func(t *testing.T) {
					checkStripes(t, c.m, c.n, c.k, tA, tB, 1e-4, func(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, cc []float64, ldc int) {
						a32, b32, c32 := f32s(a), f32s(b), f32s(cc)
						Implementation{}.Sgemm(tA, tB, m, n, k, float32(alpha), a32, lda, b32, ldb, float32(beta), c32, ldc)
						for i, v := range c32 {
							cc[i] = float64(v)
						}
					})
				})
				t.Run("float64/"+name, func(t *testing.T) {
					checkStripes(t, c.m, c.n, c.k, tA, tB, 1e-12, func(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, cc []float64, ldc int) {
						Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
					})
				})
			}
		}
	}
}

func transName(t blas.Transpose) string {
	if t == blas.Trans {
		return "T"
	}
	return "N"
}

func f32s(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// checkStripes runs gemm on C = 0.5·op(A)·op(B) + 2·C with padded leading
// dimensions and compares every element, and the padding, with a plain loop.
func checkStripes(t *testing.T, m, n, k int, tA, tB blas.Transpose, tol float64, gemm func(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)) {
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(rows, cols, ld int) []float64 {
		x := make([]float64, rows*ld)
		for i := range x {
			x[i] = float64(float32(rng.NormFloat64())) // exact in float32 too
		}
		return x
	}
	ar, ac := m, k
	if tA == blas.Trans {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB == blas.Trans {
		br, bc = n, k
	}
	lda, ldb, ldc := ac+3, bc+5, n+7
	a, b, c := fill(ar, ac, lda), fill(br, bc, ldb), fill(m, n, ldc)
	want := append([]float64(nil), c...)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for p := 0; p < k; p++ {
				var av, bv float64
				if tA == blas.Trans {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if tB == blas.Trans {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += av * bv
			}
			want[i*ldc+j] = 0.5*s + 2*c[i*ldc+j]
		}
	}
	gemm(m, n, k, 0.5, a, lda, b, ldb, 2, c, ldc)
	for i := range want {
		if d := math.Abs(c[i] - want[i]); d > tol*(1+math.Abs(want[i]))*float64(k) {
			t.Errorf("element (%d,%d): got %v, want %v", i/ldc, i%ldc, c[i], want[i]) // not Fatalf: callers run it on several goroutines
			return
		}
	}
}

// maybeYield yields at most once per yieldEvery, whoever calls it.
func TestOpenBLASYieldRate(t *testing.T) {
	now := int64(time.Since(yieldEpoch))
	lastYield.Store(now)
	maybeYield()
	if got := lastYield.Load(); got != now {
		t.Fatalf("yielded %v after the last yield", time.Duration(got-now))
	}
	lastYield.Store(now - int64(2*yieldEvery))
	maybeYield()
	if got := lastYield.Load(); got < now {
		t.Fatalf("no yield %v after the last one", 2*yieldEvery)
	}
}

// Products split from several goroutines at once: one holds the C workers
// (split.c), the others fall back to the team's stripes; every
// result must be right. Also covers the workers going to sleep and being
// woken between rounds.
func TestOpenBLASStripesConcurrent(t *testing.T) {
	splitEveryProduct(t, 2)

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 6 {
				tA, tB := blas.NoTrans, blas.Trans
				if (g+r)%2 == 1 {
					tA, tB = blas.Trans, blas.NoTrans
				}
				checkStripes(t, 200+g, 150, 40, tA, tB, 1e-12, func(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, cc []float64, ldc int) {
					Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
				})
				if r == 3 {
					time.Sleep(time.Millisecond) // longer than the workers poll
				}
			}
		}()
	}
	wg.Wait()
}

// A worker that shares the caller's CPU is moved to another before it gets
// its stripe, and keeps no narrowed affinity afterwards
// (split.c, narrow and widen). The test puts the worker on
// the caller's CPU as the kernel sometimes does, by pinning both there.
func TestOpenBLASStripesSpread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("workers are spread only on Linux")
	}
	splitEveryProduct(t, 2)
	product := func() {
		checkStripes(t, 256, 192, 64, blas.NoTrans, blas.NoTrans, 1e-12, func(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, cc []float64, ldc int) {
			Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
		})
	}
	product() // starts the workers
	if n := splitAllowedCPUs(); n < 2 {
		t.Skipf("the process may run on %d CPU(s)", n)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Once moved, the worker may in principle be moved back by the kernel
	// before its stripe starts (on a machine busy with other work), so one
	// round off the caller's CPU is enough; pinned and never moved, it
	// would stay on the caller's CPU in every round.
	const rounds = 5
	elsewhere := 0
	for round := range rounds {
		cpu := splitThisCPU()
		if cpu < 0 || !splitPinSelf(cpu) {
			t.Skip("cannot pin the test's thread")
		}
		if !splitPinWorker(0, cpu) {
			splitUnpinSelf()
			t.Fatalf("cannot pin the worker to CPU %d", cpu)
		}
		// Let the worker run on that CPU (it polls, then sleeps).
		time.Sleep(2 * time.Millisecond)
		moves := splitMoves()
		product()
		ran, after := splitRanOn(0), splitWorkerCPUs(0)
		if !splitUnpinSelf() {
			t.Fatal("cannot give the test's thread its CPUs back")
		}
		if ran != cpu {
			elsewhere++
		}
		if splitMoves() == moves {
			t.Errorf("round %d: no worker was moved", round)
		}
		if want := splitAllowedCPUs(); after != want {
			t.Errorf("round %d: after the product the worker may run on %d CPUs, want %d", round, after, want)
		}
	}
	if elsewhere == 0 {
		t.Errorf("in all %d rounds the worker computed its stripe on the caller's CPU", rounds)
	}
}
