// Stripes of one OpenBLAS product on C worker threads, for the openblas build
// of package tensor (openblas.go explains why).
#ifndef AGX_OPENBLAS_SPLIT_H
#define AGX_OPENBLAS_SPLIT_H

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

// For the tests: how many times a worker was moved off another thread's CPU
// (see narrow in split.c); the CPU on which worker i's last
// stripe started (-1 if unknown); narrowing worker i's affinity, or the
// calling thread's, to one CPU (they return 0 where that is not possible);
// giving the calling thread the CPUs the process had when the workers
// started; the calling thread's CPU; how many CPUs worker i may run on
// now (-1 if unknown); how many the process had when the workers started.
long agx_split_moves(void);
int agx_split_ran_on(int i);
int agx_split_pin_worker(int i, int cpu);
int agx_split_pin_self(int cpu);
int agx_split_unpin_self(void);
int agx_split_this_cpu(void);
int agx_split_worker_cpus(int i);
int agx_split_allowed_cpus(void);

#endif
