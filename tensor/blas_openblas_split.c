//go:build openblas

// Worker threads for the stripes of one OpenBLAS product (see
// blas_openblas.go). Each worker polls for its next stripe for
// AGX_SPIN_NS after its last one, then sleeps on a condition variable; the
// caller hands a stripe over with an atomic store, wakes a sleeping worker,
// computes the first stripe itself and polls until the others are done.

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "blas_openblas_split.h"

enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 };

void cblas_sgemm(int order, int tA, int tB, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta,
                 float *c, int ldc);
void cblas_dgemm(int order, int tA, int tB, int m, int n, int k, double alpha,
                 const double *a, int lda, const double *b, int ldb,
                 double beta, double *c, int ldc);

#if defined(__x86_64__) || defined(__i386__)
#define PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define PAUSE() __asm__ __volatile__("yield")
#else
#define PAUSE() ((void)0)
#endif

#define AGX_MAX_WORKERS 63
#define AGX_SPIN_NS 200000L
// After polling this long, a thread yields its CPU at every poll, in case
// the thread it waits for was put on the same CPU (the scheduler sees two
// busy threads there and would otherwise share it between them for whole
// time slices).
#define AGX_YIELD_AFTER_NS 20000L

typedef struct {
	int dbl, tA, tB, m, n, k, lda, ldb, ldc;
	double alpha, beta;
	const char *a, *b;
	char *c;
} stripe;

typedef struct {
	stripe job;
	atomic_uint seq;  // bumped by the caller for each stripe
	atomic_uint done; // set to seq by the worker when the stripe is done
	atomic_int sleeping;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} worker;

static worker workers[AGX_MAX_WORKERS];
static int started;
static pthread_mutex_t start_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER;

static long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void run(const stripe *s) {
	int ta = s->tA ? TRANS : NO_TRANS, tb = s->tB ? TRANS : NO_TRANS;
	if (s->dbl) {
		cblas_dgemm(ROW_MAJOR, ta, tb, s->m, s->n, s->k, s->alpha,
		            (const double *)s->a, s->lda, (const double *)s->b,
		            s->ldb, s->beta, (double *)s->c, s->ldc);
	} else {
		cblas_sgemm(ROW_MAJOR, ta, tb, s->m, s->n, s->k, (float)s->alpha,
		            (const float *)s->a, s->lda, (const float *)s->b, s->ldb,
		            (float)s->beta, (float *)s->c, s->ldc);
	}
}

static void *loop(void *arg) {
	worker *w = arg;
	unsigned last = 0;
	for (;;) {
		long start = now_ns(), deadline = start + AGX_SPIN_NS;
		unsigned s;
		int polls = 0, yield = 0;
		while ((s = atomic_load(&w->seq)) == last) {
			if (yield) {
				sched_yield();
			}
			if (++polls % 64 == 0) {
				long t = now_ns();
				yield = t > start + AGX_YIELD_AFTER_NS;
				if (t <= deadline)
					continue;
				pthread_mutex_lock(&w->mu);
				atomic_store(&w->sleeping, 1);
				while ((s = atomic_load(&w->seq)) == last)
					pthread_cond_wait(&w->cv, &w->mu);
				atomic_store(&w->sleeping, 0);
				pthread_mutex_unlock(&w->mu);
				break;
			}
			PAUSE();
		}
		last = s;
		run(&w->job);
		atomic_store(&w->done, s);
	}
	return 0;
}

// start makes sure that n workers run; it returns how many do.
static int start(int n) {
	pthread_mutex_lock(&start_mu);
	while (started < n && started < AGX_MAX_WORKERS) {
		worker *w = &workers[started];
		pthread_mutex_init(&w->mu, 0);
		pthread_cond_init(&w->cv, 0);
		pthread_t th;
		if (pthread_create(&th, 0, loop, w) != 0)
			break;
		pthread_detach(th);
		started++;
	}
	int got = started;
	pthread_mutex_unlock(&start_mu);
	return got;
}

// part fills s with stripe lo..hi of the product.
static void part(stripe *s, int dbl, int tA, int tB, int m, int n, int k,
                 double alpha, const char *a, int lda, const char *b, int ldb,
                 double beta, char *c, int ldc, int lo, int hi) {
	size_t sz = dbl ? 8 : 4;
	*s = (stripe){dbl, tA, tB, m, n, k, lda, ldb, ldc, alpha, beta, a, b, c};
	if (m >= n) {
		// Rows lo..hi of op(A): rows of A, or columns of a transposed A.
		s->a = a + (tA ? (size_t)lo : (size_t)lo * lda) * sz;
		s->c = c + (size_t)lo * ldc * sz;
		s->m = hi - lo;
	} else {
		// Columns lo..hi of op(B): columns of B, or rows of a transposed B.
		s->b = b + (tB ? (size_t)lo * ldb : (size_t)lo) * sz;
		s->c = c + (size_t)lo * sz;
		s->n = hi - lo;
	}
}

int agx_gemm_split(int dbl, int tA, int tB, int m, int n, int k, double alpha,
                   const void *a, int lda, const void *b, int ldb, double beta,
                   void *c, int ldc, int nparts, int step) {
	if (nparts < 2 || nparts - 1 > AGX_MAX_WORKERS)
		return 0;
	if (pthread_mutex_trylock(&busy) != 0)
		return 0;
	if (start(nparts - 1) < nparts - 1) {
		pthread_mutex_unlock(&busy);
		return 0;
	}
	int dim = m >= n ? m : n;
	unsigned seqs[AGX_MAX_WORKERS];
	for (int i = 1; i < nparts; i++) {
		worker *w = &workers[i - 1];
		int lo = i * step, hi = lo + step < dim ? lo + step : dim;
		part(&w->job, dbl, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c,
		     ldc, lo, hi);
		seqs[i - 1] = atomic_fetch_add(&w->seq, 1) + 1;
		if (atomic_load(&w->sleeping)) {
			pthread_mutex_lock(&w->mu);
			pthread_cond_signal(&w->cv);
			pthread_mutex_unlock(&w->mu);
		}
	}
	stripe first;
	part(&first, dbl, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 0,
	     step < dim ? step : dim);
	run(&first);
	long start = now_ns();
	int polls = 0, yield = 0;
	for (int i = 1; i < nparts; i++) {
		while (atomic_load(&workers[i - 1].done) != seqs[i - 1]) {
			if (yield)
				sched_yield();
			else
				PAUSE();
			if (++polls % 64 == 0)
				yield = now_ns() > start + AGX_YIELD_AFTER_NS;
		}
	}
	pthread_mutex_unlock(&busy);
	return 1;
}
