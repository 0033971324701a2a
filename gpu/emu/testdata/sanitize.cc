// A standalone driver of the agx kernels under the host emulator, built with
// ThreadSanitizer or AddressSanitizer by gpu/scripts/test-gpu.sh: the kernel
// sources and cuda_emu.h are prepended, so the kernels are called directly
// through their emulator launchers. It checks results against naive loops and
// lets the sanitizer check every shared- and global-memory access.
#include <stdio.h>
#include <stdlib.h>

#include <vector>

static int failures = 0;

static void expect(bool ok, const char* what, long i, double got, double want) {
	if (!ok) {
		fprintf(stderr, "FAIL %s [%ld]: got %g, want %g\n", what, i, got, want);
		failures++;
	}
}

template <typename... A>
static void run(void (*k)(A...), dim3 grid, dim3 block, A... args) {
	void* ptrs[] = {(void*)&args...};
	if (agx_emu::launch(k, grid, block, 0, ptrs) != 0) {
		fprintf(stderr, "FAIL launch\n");
		failures++;
	}
}

static void test_reduce() {
	// Sum and argmax over the last dim of a [3, 1000] matrix, and over dim 0.
	const i64 rows = 3, cols = 1000;
	std::vector<double> x(rows * cols);
	for (i64 i = 0; i < rows * cols; i++) x[i] = (double)((i * 7) % 13) - 6;
	x[1 * cols + 500] = 99;  // row 1's maximum, twice: the first index wins
	x[1 * cols + 700] = 99;
	std::vector<double> sum(rows);
	std::vector<i64> arg(rows);
	// kept dim 0 (shape 3, dst stride 1, src stride cols), reduced dim 1 (1000, stride 1)
	std::vector<i64> meta = {1, rows, 1, cols, 1, cols, 1};
	run(reduce_f64, dim3(rows), dim3(128), rows, cols, (const i64*)meta.data(), sum.data(), (const double*)x.data(),
	    (int)AGX_SUM);
	run(argreduce_f64, dim3(2), dim3(64), rows, cols, (const i64*)meta.data(), arg.data(), (const double*)x.data(),
	    (int)AGX_ARGMAX);
	for (i64 r = 0; r < rows; r++) {
		double want = 0;
		for (i64 c = 0; c < cols; c++) want += x[r * cols + c];
		expect(sum[r] == want, "reduce sum", r, sum[r], want);
	}
	expect(arg[1] == 500, "argmax first index", 1, (double)arg[1], 500);
}

static void test_softmax() {
	const i64 rows = 4, cols = 300;
	std::vector<float> x(rows * cols), y(rows * cols);
	for (i64 i = 0; i < rows * cols; i++) x[i] = (float)((i * 37) % 101) / 10.0f;
	run(softmax_f32, dim3(2), dim3(128), rows, cols, y.data(), (const float*)x.data());
	for (i64 r = 0; r < rows; r++) {
		double m = -1e30, s = 0;
		for (i64 c = 0; c < cols; c++) m = x[r * cols + c] > m ? x[r * cols + c] : m;
		for (i64 c = 0; c < cols; c++) s += exp((double)x[r * cols + c] - m);
		for (i64 c = 0; c < cols; c++) {
			double want = exp((double)x[r * cols + c] - m) / s;
			expect(fabs(y[r * cols + c] - want) < 1e-6, "softmax", r * cols + c, y[r * cols + c], want);
		}
	}
}

static void test_gemm() {
	const i64 m = 33, k = 65, n = 17;
	std::vector<double> a(m * k), b(k * n), c(m * n);
	for (i64 i = 0; i < m * k; i++) a[i] = (double)((i * 5) % 9) - 4;
	for (i64 i = 0; i < k * n; i++) b[i] = (double)((i * 3) % 7) - 3;
	run(gemm_f64, dim3((n + AGX_TILE - 1) / AGX_TILE, (m + AGX_TILE - 1) / AGX_TILE), dim3(AGX_TILE, AGX_TILE), m, n, k,
	    (const double*)a.data(), (const double*)b.data(), c.data());
	for (i64 i = 0; i < m; i++)
		for (i64 j = 0; j < n; j++) {
			double want = 0;
			for (i64 p = 0; p < k; p++) want += a[i * k + p] * b[p * n + j];
			expect(c[i * n + j] == want, "gemm", i * n + j, c[i * n + j], want);
		}
}

static void test_scatter_add() {
	// 200 values into 5 slots of a 1-D tensor: every slot is hit 40 times, atomically.
	const i64 n = 200;
	std::vector<double> dst(5, 0), src(n, 1);
	std::vector<i64> index(n);
	for (i64 i = 0; i < n; i++) index[i] = i % 5;
	std::vector<i64> meta = {1, n, 1, 1, 1};
	run(scatter_f64, dim3(2), dim3(64), n, (const i64*)meta.data(), dst.data(), (const i64*)index.data(),
	    (const double*)src.data(), 0, 1);
	for (int i = 0; i < 5; i++) expect(dst[i] == 40, "scatter accumulate", i, dst[i], 40);
}

static void test_unary_strided() {
	// exp over the transposed view of a [3, 4] matrix into a contiguous [4, 3] one.
	std::vector<float> x(12), y(12);
	for (int i = 0; i < 12; i++) x[i] = (float)i / 4;
	std::vector<i64> meta = {2, 4, 3, 3, 1, 1, 4};
	run(unary_f32, dim3(1), dim3(32), (i64)12, (const i64*)meta.data(), y.data(), (const float*)x.data(),
	    (int)AGX_EXP, 0.0, 0.0);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 3; j++) {
			double want = exp((double)x[j * 4 + i]);
			expect(fabs(y[i * 3 + j] - want) < 1e-5 * want, "unary exp strided", i * 3 + j, y[i * 3 + j], want);
		}
}

static void test_attention() {
	// One head, Lq = 40 queries, Lk = 45 keys (two tiles each), D = 5: forward
	// against a naive softmax, then the dQ and dK/dV passes run for the sanitizers.
	const i64 lq = 40, lk = 45, d = 5;
	const double scale = 0.4;
	std::vector<double> q(lq * d), k(lk * d), v(lk * d), o(lq * d), lse(lq), dout(lq * d), delta(lq), dq(lq * d),
		dk(lk * d), dv(lk * d);
	for (i64 i = 0; i < lq * d; i++) q[i] = (double)((i * 11) % 17) / 8 - 1, dout[i] = (double)(i % 5) / 4;
	for (i64 i = 0; i < lk * d; i++) k[i] = (double)((i * 7) % 13) / 6 - 1, v[i] = (double)((i * 3) % 11) / 5;
	dim3 gq((lq + AGX_ATTN_B - 1) / AGX_ATTN_B, 1), gk((lk + AGX_ATTN_B - 1) / AGX_ATTN_B, 1);
	run(attn_fwd_f64, gq, dim3(AGX_ATTN_THREADS), lq, lk, d, (const double*)q.data(), (const double*)k.data(),
	    (const double*)v.data(), o.data(), lse.data(), scale, 0);
	for (i64 i = 0; i < lq; i++) {
		std::vector<double> s(lk);
		double m = -1e300, z = 0;
		for (i64 j = 0; j < lk; j++) {
			s[j] = 0;
			for (i64 c = 0; c < d; c++) s[j] += q[i * d + c] * k[j * d + c] * scale;
			m = s[j] > m ? s[j] : m;
		}
		for (i64 j = 0; j < lk; j++) z += exp(s[j] - m);
		for (i64 c = 0; c < d; c++) {
			double want = 0;
			for (i64 j = 0; j < lk; j++) want += exp(s[j] - m) / z * v[j * d + c];
			expect(fabs(o[i * d + c] - want) < 1e-12, "attention forward", i * d + c, o[i * d + c], want);
		}
	}
	run(attn_delta_f64, dim3(1), dim3(64), lq, d, (const double*)o.data(), (const double*)dout.data(), delta.data());
	run(attn_dq_f64, gq, dim3(AGX_ATTN_THREADS), lq, lk, d, (const double*)q.data(), (const double*)k.data(),
	    (const double*)v.data(), (const double*)dout.data(), (const double*)lse.data(), (const double*)delta.data(),
	    dq.data(), scale, 1);
	run(attn_dkdv_f64, gk, dim3(AGX_ATTN_THREADS), lq, lk, d, (const double*)q.data(), (const double*)k.data(),
	    (const double*)v.data(), (const double*)dout.data(), (const double*)lse.data(), (const double*)delta.data(),
	    dk.data(), dv.data(), scale, 1);
}

int main() {
	test_reduce();
	test_attention();
	test_softmax();
	test_gemm();
	test_scatter_add();
	test_unary_strided();
	if (failures) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	printf("kernels OK under the emulator\n");
	return 0;
}
