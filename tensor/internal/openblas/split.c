//go:build openblas

// Worker threads for the stripes of one OpenBLAS product (see
// openblas.go). Each worker polls for its next stripe for
// AGX_SPIN_NS after its last one, then sleeps on a condition variable; the
// caller hands a stripe over with an atomic store, wakes a sleeping worker,
// computes the first stripe itself and polls until the others are done.
//
// Spreading (Linux): the stripes gain only if the threads run on different
// CPUs, and the kernel does not see to that. A worker woken by the caller
// is usually put on the caller's CPU, and two threads that keep running are
// "cache hot" to the load balancer, which then leaves them sharing one CPU
// while the other idles: each stripe waits for the other, and the product
// takes as long as on one core, or longer. On the project's 2-core VMs that
// happened to 13 % of the 256³ products of a benchmark loop, in runs of 10
// to 90 products at a time. So each worker publishes the CPU it polls on,
// and the caller, before handing out stripes, moves a worker that sleeps
// or shares a CPU with the caller or with an earlier worker: it narrows the
// worker's affinity to the CPUs not yet taken (which makes the kernel
// migrate it, or wake it there) and at once restores the worker's
// affinity, so that nothing stays pinned. See narrow and widen.

#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "split.h"

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
	atomic_int cpu;     // the CPU the worker last polled on, -1 if unknown
	atomic_int ran_on;  // the CPU its last stripe started on (for the tests)
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} worker;

static worker workers[AGX_MAX_WORKERS];
static int started;
static pthread_mutex_t start_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER;
static atomic_long moves; // workers moved by narrow

#ifdef __linux__
static cpu_set_t allowed; // the process's CPUs when the workers started
static int nallowed;

static int this_cpu(void) { return sched_getcpu(); }
#else
static int this_cpu(void) { return -1; }
#endif

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
		atomic_store_explicit(&w->cpu, this_cpu(), memory_order_relaxed);
		while ((s = atomic_load(&w->seq)) == last) {
			if (yield) {
				sched_yield();
				atomic_store_explicit(&w->cpu, this_cpu(), memory_order_relaxed);
			}
			if (++polls % 64 == 0) {
				atomic_store_explicit(&w->cpu, this_cpu(), memory_order_relaxed);
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
		int cpu = this_cpu();
		atomic_store_explicit(&w->cpu, cpu, memory_order_relaxed);
		atomic_store_explicit(&w->ran_on, cpu, memory_order_relaxed);
		run(&w->job);
		atomic_store(&w->done, s);
	}
	return 0;
}

// start makes sure that n workers run; it returns how many do.
static int start(int n) {
	pthread_mutex_lock(&start_mu);
#ifdef __linux__
	if (started == 0 && sched_getaffinity(0, sizeof allowed, &allowed) == 0)
		nallowed = CPU_COUNT(&allowed);
#endif
	while (started < n && started < AGX_MAX_WORKERS) {
		worker *w = &workers[started];
		pthread_mutex_init(&w->mu, 0);
		pthread_cond_init(&w->cv, 0);
		atomic_store(&w->cpu, -1);
		atomic_store(&w->ran_on, -1);
		if (pthread_create(&w->th, 0, loop, w) != 0)
			break;
		pthread_detach(w->th);
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

#ifdef __linux__
// narrow starts moving workers 0..nw-1 that sleep or share a CPU with the
// caller or with a worker before them onto CPUs that none of them uses, as
// far as there are such CPUs: it narrows each such worker's affinity to
// those CPUs, which migrates a running or runnable worker at once and makes
// a sleeping one wake up there. It stores the moved workers' indexes in
// moved and returns their count; widen must follow, once the sleepers are
// woken. Workers never leave the CPUs the process had when they started.
static int narrow(int nw, int *moved) {
	if (nallowed < 2)
		return 0;
	cpu_set_t taken, both, to;
	CPU_ZERO(&taken);
	int me = this_cpu();
	if (me >= 0 && me < CPU_SETSIZE)
		CPU_SET(me, &taken);
	int nmoved = 0;
	for (int i = 0; i < nw; i++) {
		worker *w = &workers[i];
		int c = atomic_load_explicit(&w->cpu, memory_order_relaxed);
		int known = c >= 0 && c < CPU_SETSIZE;
		if (known && !CPU_ISSET(c, &taken) && !atomic_load(&w->sleeping)) {
			CPU_SET(c, &taken);
			continue;
		}
		CPU_AND(&both, &allowed, &taken);
		CPU_XOR(&to, &allowed, &both); // allowed and not taken
		if (CPU_COUNT(&to) == 0 || pthread_setaffinity_np(w->th, sizeof to, &to) != 0) {
			// Every CPU is taken (or the kernel refused): leave it.
			if (known)
				CPU_SET(c, &taken);
			continue;
		}
		moved[nmoved++] = i;
		atomic_fetch_add(&moves, 1);
		// Where it lands is not known yet: count one of its CPUs as
		// taken so that the next worker goes to another.
		for (int j = 0; j < CPU_SETSIZE; j++)
			if (CPU_ISSET(j, &to)) {
				CPU_SET(j, &taken);
				break;
			}
	}
	return nmoved;
}

// widen gives the moved workers their whole affinity back; they stay
// where they are.
static void widen(const int *moved, int nmoved) {
	for (int i = 0; i < nmoved; i++)
		pthread_setaffinity_np(workers[moved[i]].th, sizeof allowed, &allowed);
}
#else
static int narrow(int nw, int *moved) { return 0; }
static void widen(const int *moved, int nmoved) {}
#endif

long agx_split_moves(void) { return atomic_load(&moves); }

int agx_split_ran_on(int i) {
	return i >= 0 && i < started ? atomic_load(&workers[i].ran_on) : -1;
}

// pin narrows the affinity of thread th (0: the calling thread) to cpu.
static int pin(pthread_t *th, int cpu) {
#ifdef __linux__
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return 0;
	cpu_set_t to;
	CPU_ZERO(&to);
	CPU_SET(cpu, &to);
	if (!th)
		return sched_setaffinity(0, sizeof to, &to) == 0;
	return pthread_setaffinity_np(*th, sizeof to, &to) == 0;
#else
	return 0;
#endif
}

int agx_split_pin_worker(int i, int cpu) {
	return i >= 0 && i < started && pin(&workers[i].th, cpu);
}

int agx_split_pin_self(int cpu) { return pin(0, cpu); }

int agx_split_unpin_self(void) {
#ifdef __linux__
	return nallowed > 0 && sched_setaffinity(0, sizeof allowed, &allowed) == 0;
#else
	return 0;
#endif
}

int agx_split_this_cpu(void) { return this_cpu(); }

int agx_split_worker_cpus(int i) {
#ifdef __linux__
	cpu_set_t set;
	if (i < 0 || i >= started || pthread_getaffinity_np(workers[i].th, sizeof set, &set) != 0)
		return -1;
	return CPU_COUNT(&set);
#else
	return -1;
#endif
}

int agx_split_allowed_cpus(void) {
#ifdef __linux__
	return nallowed;
#else
	return 0;
#endif
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
	int moved[AGX_MAX_WORKERS];
	int nmoved = narrow(nparts - 1, moved);
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
	widen(moved, nmoved);
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
