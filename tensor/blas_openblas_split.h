// Stripes of one OpenBLAS product on C worker threads, for the openblas build
// of package tensor (blas_openblas.go explains why).
#ifndef AGX_BLAS_OPENBLAS_SPLIT_H
#define AGX_BLAS_OPENBLAS_SPLIT_H

int openblas_get_num_threads(void);

// agx_gemm_split computes the row-major product C = alpha·op(A)·op(B) +
// beta·C (dbl: float64, else float32; tA, tB: 0 or 1 for a transposed
// operand) as nparts stripes of step rows of C (m >= n) or step columns,
// the first on the calling thread and the others on worker threads, and
// returns 1; or returns 0 at once, having done nothing, when another call
// holds the workers. The arguments must be valid.
int agx_gemm_split(int dbl, int tA, int tB, int m, int n, int k, double alpha,
                   const void *a, int lda, const void *b, int ldb, double beta,
                   void *c, int ldc, int nparts, int step);

#endif
