//go:build openblas

package openblas

// #cgo LDFLAGS: -lopenblas -lpthread
// #include "split.h"
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/goagx/agx/tensor/internal/gemm"
	"github.com/goagx/agx/tensor/internal/team"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"
)

// Name describes the implementation for tensor.BLAS: OpenBLAS, its thread
// count and the set of kernels it runs.
func Name() string {
	s := "OpenBLAS (cgo, gonum.org/v1/netlib)"
	if n := Threads(); n == 1 {
		s += ", 1 thread"
	} else {
		s += fmt.Sprintf(", %d threads (OPENBLAS_NUM_THREADS=1 gives one, with products split over worker threads)", n)
	}
	return s + ", " + kernels()
}

// Implementation is netlib's binding with two changes to its GEMM calls.
//
// A goroutine that spends its time in long cgo calls without ever being
// rescheduled (a loop of products) is flagged by the runtime's monitor
// after 10 ms as overdue for preemption; a call in progress cannot be
// preempted, so the monitor takes the goroutine's P away and hands it to
// another thread, and the next calls keep the scheduler busy on the other
// core (three context switches per 256³ product, measured with perf). On
// the project's 2-core machines that made a 256³ float32 product through
// cgo 7-9 % slower than the same cblas_sgemm called from C. Yielding now
// and then keeps the goroutine's scheduling tick moving, and the cost
// disappears (median of 3000 calls 279-288 → 247-265 µs; C 258-262 µs).
// See maybeYield.
//
// When OpenBLAS runs one thread (OPENBLAS_NUM_THREADS=1, which its
// threads' busy-waiting makes the sane setting next to Go's scheduler on
// few cores), a large product is split into GOMAXPROCS stripes, each one
// OpenBLAS call: the first on the calling thread, the others on C worker
// threads (split.c), all inside one cgo call (see cStripes).
// Before it hands the stripes out, the caller moves a worker that shares
// its CPU (or another worker's) to a free one, as the kernel leaves such
// pairs together for milliseconds. With more OpenBLAS threads the product
// goes to OpenBLAS whole.
type Implementation struct{ netlib.Implementation }

// yieldMin is the smallest m·n·k of a product that may yield first
// (a few µs of work; the clock read that decides costs tens of ns).
const yieldMin = 1 << 18

// yieldEvery is the least time between two yields. A yield also wakes an
// idle thread to look for work (a futex call, several µs on the project's
// VMs): yielding before every product put 15 % of attention_backward's
// profile into those wake-ups. Once a millisecond is ten times more often
// than the monitor's 10 ms.
const yieldEvery = time.Millisecond

var (
	yieldEpoch = time.Now()
	lastYield  atomic.Int64 // time.Since(yieldEpoch) at the last yield
)

// maybeYield yields (runtime.Gosched) unless some goroutine did so less
// than yieldEvery ago.
func maybeYield() {
	now := int64(time.Since(yieldEpoch))
	if last := lastYield.Load(); now-last >= int64(yieldEvery) && lastYield.CompareAndSwap(last, now) {
		runtime.Gosched()
	}
}

// splitMin is the smallest m·n·k·(element size) of a product that
// is split into stripes (see cStripes): 2²⁰ float32 multiply-adds, the
// threshold of agx's own GEMM. While the stripes went through the team it
// was 2²⁴, as its goroutines in cgo calls cost more than the thin products
// of a training step gained; with the stripes on C threads, `agx bench`,
// three interleaved runs of builds splitting from 2²⁴ and from 2²⁰:
// mlp_step 0.92-0.98 against 0.75-0.82, attention_backward (batched
// products, which are not split) and train_step_sgd alike.
var splitMin = (1 << 20) * 4

// Threads is OpenBLAS's thread count (OPENBLAS_NUM_THREADS, or OpenBLAS's
// own choice).
func Threads() int { return threads() }

// threads reads OpenBLAS's thread count once; the tests replace it.
var threads = sync.OnceValue(func() int { return int(C.openblas_get_num_threads()) })

func (o Implementation) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	product(o.Implementation, netlib.Implementation.Sgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (o Implementation) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	product(o.Implementation, netlib.Implementation.Dgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SgemmOn is Sgemm for a product that is a part of a team kernel (a batch
// spread over the cores): it is never split, the cores being busy with the
// batch.
func (o Implementation) SgemmOn(_ int, tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	o.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// DgemmOn is Dgemm for a part of a team kernel; see SgemmOn.
func (o Implementation) DgemmOn(_ int, tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	o.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// product runs netlib's Sgemm or Dgemm (gemm) as one call, yielding
// first when the product is large (see maybeYield), or as stripes (see
// split). The closure is built only for a split product.
func product[T float32 | float64](impl netlib.Implementation, gemm func(netlib.Implementation, blas.Transpose, blas.Transpose, int, int, int, T, []T, int, []T, int, T, []T, int), tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	var z T
	if !split(m, n, k, int(unsafe.Sizeof(z))) {
		if m*n*k >= yieldMin {
			maybeYield()
		}
		gemm(impl, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if cStripes(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		return
	}
	stripes(tA, tB, m, n, k, a, lda, b, ldb, c, ldc, func(m, n int, a, b, c []T) {
		gemm(impl, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	})
}

// cStripes runs a product that split accepted as GOMAXPROCS stripes on C
// worker threads (split.c) inside one cgo call, and reports
// whether it did; it does not when another product holds the workers (a
// batch spread over the team), which then goes to the team's stripes.
//
// Stripes through the team cost a goroutine per stripe in a cgo call at
// once: while both Ps sat in cgo calls and polling, the runtime's monitor
// kept taking the Ps away and waking threads to run them (3.5 context
// switches per 256³ product, 180-190 µs against 116-125 µs for one stripe
// alone). One cgo call per product leaves the other P idle, and the
// monitor alone.
func cStripes[T float32 | float64](tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) bool {
	if !gemm.Check(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c)) {
		return true
	}
	w := runtime.GOMAXPROCS(0)
	dim := max(m, n)
	step := (dim + w - 1) / w
	step = (step + 63) / 64 * 64
	nparts := (dim + step - 1) / step
	var z T
	dbl := C.int(0)
	if unsafe.Sizeof(z) == 8 {
		dbl = 1
	}
	flag := func(t blas.Transpose) C.int {
		if t == blas.NoTrans {
			return 0
		}
		return 1
	}
	var pa, pb unsafe.Pointer
	if len(a) > 0 {
		pa = unsafe.Pointer(&a[0])
	}
	if len(b) > 0 {
		pb = unsafe.Pointer(&b[0])
	}
	maybeYield()
	ok := C.agx_gemm_split(dbl, flag(tA), flag(tB), C.int(m), C.int(n), C.int(k), C.double(alpha),
		pa, C.int(lda), pb, C.int(ldb), C.double(beta), unsafe.Pointer(&c[0]), C.int(ldc), C.int(nparts), C.int(step))
	return ok != 0
}

// split reports whether a product of m·n·k multiply-adds on elements of
// size bytes is split into stripes: it is large, OpenBLAS runs one thread,
// and there are cores to share it and at least two 64-wide blocks to hand
// out.
func split(m, n, k, size int) bool {
	return m*n*k*size >= splitMin && runtime.GOMAXPROCS(0) > 1 && Threads() == 1 && max(m, n) >= 2*64
}

// stripes runs the product C[m,n] = op(A)[m,k]·op(B)[k,n] (row-major, with
// netlib's argument checks left to call) as one call per stripe of the
// larger output dimension, the stripes run by the caller and the resident
// team (package team): the fallback of cStripes when another product holds
// the C workers. (It does not yield: the caller yields while it waits for
// the team's last stripe; see maybeYield.)
func stripes[T float32 | float64](tA, tB blas.Transpose, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int, call func(m, n int, a, b, c []T)) {
	w := runtime.GOMAXPROCS(0)
	// Stripes of whole 64-row (or column) blocks, one per worker.
	dim := max(m, n)
	step := (dim + w - 1) / w
	step = (step + 63) / 64 * 64
	team.Do((dim+step-1)/step, w, func(i, _ int) {
		lo := i * step
		stripe(tA, tB, m, n, lo, min(lo+step, dim), a, lda, b, ldb, c, ldc, call)
	})
}

// stripe computes rows lo..hi of C when m >= n, else columns lo..hi.
func stripe[T float32 | float64](tA, tB blas.Transpose, m, n, lo, hi int, a []T, lda int, b []T, ldb int, c []T, ldc int, call func(m, n int, a, b, c []T)) {
	if m >= n {
		// Rows lo..hi of op(A): rows of A, or columns of a transposed A.
		if tA == blas.NoTrans {
			a = a[lo*lda:]
		} else {
			a = a[lo:]
		}
		call(hi-lo, n, a, b, c[lo*ldc:])
		return
	}
	// Columns lo..hi of op(B): columns of B, or rows of a transposed B.
	if tB == blas.NoTrans {
		b = b[lo:]
	} else {
		b = b[lo*ldb:]
	}
	call(m, hi-lo, a, b, c[lo:])
}
