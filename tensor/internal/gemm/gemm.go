package gemm

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Implementation is gonum's pure-Go BLAS with Sgemm and Dgemm replaced by
// this package's blocked GEMM. Install it with blas32.Use and blas64.Use.
type Implementation struct {
	gonum.Implementation
}

var (
	kernF32 = best(kernelsF32)
	kernF64 = best(kernelsF64)
)

func best[T float32 | float64](ks []*kernel[T]) *kernel[T] {
	for i, ok := range available() {
		if ok {
			return ks[i]
		}
	}
	return ks[len(ks)-1]
}

// Kernels names the micro-kernels in use for float32 and float64, such as
// "avx512-14x32" and "avx512-14x16"; "go-4x4" means that Sgemm and Dgemm
// hand over to gonum.
func Kernels() (f32, f64 string) { return kernF32.name, kernF64.name }

// Sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major float32
// matrices, where op(X) is X or Xᵀ as tA and tB say, op(A) is m×k, op(B) is
// k×n and C is m×n. It panics on invalid arguments with gonum's messages.
func (impl Implementation) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	impl.SgemmOn(0, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SgemmOn is Sgemm called from a part of a team kernel (package team) on
// the given worker, 0 being the kernel's caller: the product packs into
// that worker's buffers, and a helper's (worker > 0) is not split again.
func (impl Implementation) SgemmOn(worker int, tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if kernF32 == genericF32 {
		impl.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	p := problem[float32]{m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, worker: worker}
	if check(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c), &p.transA, &p.transB) {
		gemm(kernF32, p, beta)
	}
}

// Dgemm computes C = alpha·op(A)·op(B) + beta·C for row-major float64
// matrices; see Sgemm.
//
// Without the assembly kernels (other architectures, or amd64 CPUs without
// AVX2 and FMA) Sgemm and Dgemm are gonum's: its pure-Go GEMM is faster than
// this package's portable kernel, which remains the reference of the tests.
func (impl Implementation) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	impl.DgemmOn(0, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// DgemmOn is Dgemm called from a part of a team kernel on the given
// worker; see SgemmOn.
func (impl Implementation) DgemmOn(worker int, tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if kernF64 == genericF64 {
		impl.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	p := problem[float64]{m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, worker: worker}
	if check(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c), &p.transA, &p.transB) {
		gemm(kernF64, p, beta)
	}
}

// Check validates the arguments of a row-major GEMM as gonum does, panicking
// with its messages, and reports whether there is work to do (m and n not
// zero). It serves callers that hand checked products to other code.
func Check(tA, tB blas.Transpose, m, n, k, lda, ldb, ldc, la, lb, lc int) bool {
	var transA, transB bool
	return check(tA, tB, m, n, k, lda, ldb, ldc, la, lb, lc, &transA, &transB)
}

// check validates GEMM arguments as gonum does, panicking with its messages,
// sets the transpose flags, and reports whether there is work to do.
func check(tA, tB blas.Transpose, m, n, k, lda, ldb, ldc, la, lb, lc int, transA, transB *bool) bool {
	for _, t := range []blas.Transpose{tA, tB} {
		if t != blas.NoTrans && t != blas.Trans && t != blas.ConjTrans {
			panic("blas: illegal transpose")
		}
	}
	switch {
	case m < 0:
		panic("blas: m < 0")
	case n < 0:
		panic("blas: n < 0")
	case k < 0:
		panic("blas: k < 0")
	}
	*transA = tA != blas.NoTrans
	*transB = tB != blas.NoTrans
	ar, ac := m, k // rows and columns of A as stored
	if *transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if *transB {
		br, bc = n, k
	}
	switch {
	case lda < max(1, ac):
		panic("blas: bad leading dimension of A")
	case ldb < max(1, bc):
		panic("blas: bad leading dimension of B")
	case ldc < max(1, n):
		panic("blas: bad leading dimension of C")
	}
	if m == 0 || n == 0 {
		return false
	}
	switch {
	case ar > 0 && la < (ar-1)*lda+ac:
		panic("blas: insufficient length of a")
	case br > 0 && lb < (br-1)*ldb+bc:
		panic("blas: insufficient length of b")
	case lc < (m-1)*ldc+n:
		panic("blas: insufficient length of c")
	}
	return true
}
