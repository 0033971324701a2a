package tensor

import (
	"runtime"
	"slices"

	"github.com/goagx/agx/tensor/internal/team"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// MatMul implements Backend. Every matrix product goes through gonum's BLAS
// (blas32.Implementation().Sgemm, blas64.Implementation().Dgemm), so a program
// that calls blas32.Use / blas64.Use (for example with gonum.org/v1/netlib's
// OpenBLAS binding) gets that BLAS here. Operands whose last two dims are row-major
// or transposed row-major (such as x.T()) are handed to GEMM in place with the
// matching transpose flag and leading dimension; only other layouts (stride-0
// or gapped inner dims) are copied first. Batches run one GEMM each; when the
// GEMMs are small they are spread over the available cores, claimed one by
// one by the calling goroutine and its helpers.
func (c CPU) MatMul(dst, a, b View) {
	switch dst.DType() {
	case Float32:
		impl := blas32.Implementation()
		var on gemmOnFunc[float32]
		if g, ok := impl.(teamSgemm); ok {
			on = g.SgemmOn
		}
		matmulT(c, dst, a, b, blasGemm(impl.Sgemm, on))
	case Float64:
		impl := blas64.Implementation()
		var on gemmOnFunc[float64]
		if g, ok := impl.(teamDgemm); ok {
			on = g.DgemmOn
		}
		matmulT(c, dst, a, b, blasGemm(impl.Dgemm, on))
	default:
		Panicf("MatMul", ErrDType, "matrix product of %v tensors", dst.DType())
	}
}

// gemmFunc computes C = op(A)·op(B), as a part of a team kernel (package
// team) on the given worker, or outside one with worker -1.
// teamSgemm and teamDgemm are BLAS implementations that can be told that a
// product is a part of a team kernel (a batch spread over the cores), and
// on which worker: agx's GEMM then packs into that worker's buffers and a
// helper does not split the product again; the OpenBLAS build does not
// split it at all.
type teamSgemm interface {
	SgemmOn(worker int, tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
}

type teamDgemm interface {
	DgemmOn(worker int, tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
}

// gemmOnFunc is a teamSgemm's SgemmOn or a teamDgemm's DgemmOn.
type gemmOnFunc[T Float] func(worker int, tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)

// blasGemm is the gemmFunc of a BLAS: its plain GEMM, or for the parts of a
// team kernel its GEMM that takes the worker (on; nil when it has none).
func blasGemm[T Float](plain func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int), on gemmOnFunc[T]) gemmFunc[T] {
	return func(worker int, tA, tB blas.Transpose, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
		if on != nil && worker >= 0 {
			on(worker, tA, tB, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
			return
		}
		plain(tA, tB, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
	}
}

type gemmFunc[T Float] func(worker int, tA, tB blas.Transpose, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int)

// blasLayout reports how the matrix in the last two dims of v (r rows, c
// columns) can be passed to GEMM: as stored (NoTrans) or as the transpose of a
// row-major c×r matrix (Trans), with its leading dimension.
func blasLayout(v View) (blas.Transpose, int, bool) {
	n := len(v.Shape)
	r, c := v.Shape[n-2], v.Shape[n-1]
	sr, sc := v.Strides[n-2], v.Strides[n-1]
	if r <= 1 {
		sr = max(1, c)
	}
	if c <= 1 {
		sc = 1
		if r > 1 && sr < 1 {
			return blas.NoTrans, 0, false
		}
	}
	if sc == 1 && sr >= max(1, c) {
		return blas.NoTrans, sr, true
	}
	if r <= 1 {
		// A single row with a gapped stride: read it as a column of a transposed matrix.
		if sc >= 1 {
			return blas.Trans, sc, true
		}
		return blas.NoTrans, 0, false
	}
	if sr == 1 && sc >= r {
		return blas.Trans, sc, true
	}
	return blas.NoTrans, 0, false
}

// contiguousView copies v into a fresh row-major buffer.
func contiguousView(c CPU, v View) View {
	n := 1
	for _, s := range v.Shape {
		n *= s
	}
	out := View{Buf: cpuAllocUninit(v.DType(), n), Shape: v.Shape, Strides: contiguousStrides(v.Shape)}
	c.Copy(out, v)
	return out
}

func flip(t blas.Transpose) blas.Transpose {
	if t == blas.NoTrans {
		return blas.Trans
	}
	return blas.NoTrans
}

// batchParallelMax is the largest GEMM output (m*n) for which a batch is spread
// over the cores, whole GEMMs per goroutine; larger GEMMs are left to gonum, which
// parallelises a single product itself from 128×128 outputs. Measured on 2 cores
// (f32): per-batch splitting beats gonum's own split by 1.7x at 32×(64×64×64),
// 1.4x at 8×(128×128×64) and 1.15x at 8×(256×256×64).
var batchParallelMax = 512 * 512

// batchParallelMin is the smallest total work, batch·m·n·k multiply-adds
// weighted by the element size in units of float32, for which a batch is
// spread over the cores (the resident team of package team takes whole
// products). With a goroutine started per batch it was 2²⁵, since waking
// one cost more than it saved; with the team awake, attention_backward's
// 8×(128×128×64) float32 products (2²³) gain from it: `agx bench`, three
// interleaved runs, ratio 0.68-0.73 at 2²⁵ (each product split on its own)
// against 0.55-0.63 at 2²⁰.
var batchParallelMin = 1 << 20

// hasZeroBatchStride reports whether a batch dim of v is broadcast (stride 0).
func hasZeroBatchStride(v View) bool {
	for i, s := range v.Strides[:len(v.Strides)-2] {
		if s == 0 && v.Shape[i] > 1 {
			return true
		}
	}
	return false
}

// matmulT computes dst = a·b over the last two dims, batched over the
// others, with one gemm per product: operands in a layout GEMM does not
// take are copied first (blasOperand), as is a destination it cannot
// write (then copied back), and a row-major B as Bᵀ for gonum's GEMM.
func matmulT[T Float](c CPU, dst, a, b View, gemm gemmFunc[T]) {
	rank := len(dst.Shape)
	m, n, k := dst.Shape[rank-2], dst.Shape[rank-1], a.Shape[rank-1]
	batch := 1
	for _, s := range dst.Shape[:rank-2] {
		batch *= s
	}
	if batch == 0 || m == 0 || n == 0 {
		return
	}
	if k == 0 {
		c.Fill(dst, 0)
		return
	}
	a, tA, lda := blasOperand(c, a)
	b, tB, ldb := blasOperand(c, b)
	// The destination must be row-major, or transposed row-major, in which case
	// C^T = B^T A^T is computed instead.
	out := dst
	tC, ldc, okC := blasLayout(dst)
	if !okC {
		out = View{Buf: cpuAllocUninit(dst.DType(), batch*m*n), Shape: dst.Shape, Strides: contiguousStrides(dst.Shape)}
		tC, ldc, _ = blasLayout(out)
	}
	if tB == blas.NoTrans && tC == blas.NoTrans && m >= 16 && !hasZeroBatchStride(b) && gonumGEMM[T]() {
		b, tB, ldb = transposedCopy(c, b), blas.Trans, k
	}
	ah, bh, ch := host[T]("MatMul", a.Buf), host[T]("MatMul", b.Buf), host[T]("MatMul", out.Buf)
	one := func(oa, ob, oc, worker int) {
		if tC == blas.NoTrans {
			gemm(worker, tA, tB, m, n, k, ah[oa:], lda, bh[ob:], ldb, ch[oc:], ldc)
		} else {
			gemm(worker, flip(tB), flip(tA), n, m, k, bh[ob:], ldb, ah[oa:], lda, ch[oc:], ldc)
		}
	}
	if batch == 1 {
		one(a.Offset, b.Offset, out.Offset, -1)
	} else {
		offs := batchOffsets(dst.Shape[:rank-2], a, b, out, batch)
		if w := runtime.GOMAXPROCS(0); w > 1 && batchInParallel(batch, m, n, k, dst.DType().Size()) {
			// The products go to the resident team (package team) one at
			// a time: the caller takes them itself when no helper is awake.
			team.Do(batch, w, func(i, worker int) {
				o := offs[i]
				one(o[0], o[1], o[2], worker)
			})
		} else {
			for _, o := range offs {
				one(o[0], o[1], o[2], -1)
			}
		}
	}
	if !okC {
		c.Copy(dst, out)
	}
}

// blasOperand returns the operand v of a matrix product in a layout that
// GEMM takes (v itself, or a row-major copy of it where blasLayout rejects
// it), with its transpose flag and leading dimension.
func blasOperand(c CPU, v View) (View, blas.Transpose, int) {
	t, ld, ok := blasLayout(v)
	if !ok {
		v = contiguousView(c, v)
		t, ld, _ = blasLayout(v)
	}
	return v, t, ld
}

// transposedCopy returns a row-major copy of the transpose (in its last two
// dims) of the row-major operand b, for GEMM to read as Bᵀ (blas.Trans,
// leading dimension k).
//
// gonum's pure-Go GEMM is markedly faster when it reads B along rows (the
// A·Bᵀ form): 1.3x at 512³ and 2x at 128×128×64 here. matmulT therefore
// copies a row-major B once as Bᵀ, which costs O(k·n) against the
// product's O(m·k·n). Broadcast batches of B are not copied (that would
// multiply the memory); neither is a B that is tiny or already transposed.
// OpenBLAS and agx's own GEMM (UseFastGEMM) pack B whatever its layout and
// need no copy.
func transposedCopy(c CPU, b View) View {
	r := len(b.Shape)
	sh, st := slices.Clone(b.Shape), slices.Clone(b.Strides)
	sh[r-2], sh[r-1] = sh[r-1], sh[r-2]
	st[r-2], st[r-1] = st[r-1], st[r-2]
	return contiguousView(c, View{Buf: b.Buf, Shape: sh, Strides: st, Offset: b.Offset})
}

// batchOffsets lists, for each of the batch products of a matrix product
// over the batch dims bshape, the offsets of its matrices in a, b and out.
func batchOffsets(bshape []int, a, b, out View, batch int) [][3]int {
	r := len(bshape)
	st := [][]int{a.Strides[:r], b.Strides[:r], out.Strides[:r]}
	offs := make([][3]int, 0, batch)
	forEachIndex(bshape, st, []int{a.Offset, b.Offset, out.Offset}, func(o []int) {
		offs = append(offs, [3]int{o[0], o[1], o[2]})
	})
	return offs
}

// batchInParallel reports whether the batch products (m×k by k×n, of
// elements size bytes) are spread over the cores: small enough that GEMM
// would not split one itself (batchParallelMax), and worth the split
// (batchParallelMin).
func batchInParallel(batch, m, n, k, size int) bool {
	return m*n <= batchParallelMax && m*n*k >= 1<<12 && batch*m*n*k*size >= batchParallelMin*4
}
