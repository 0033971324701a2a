// Fused scaled dot-product attention in the FlashAttention style: K and V (in
// the forward and the dQ pass) or Q and dO (in the dK/dV pass) stream through
// shared memory in tiles of AGX_ATTN_B rows, and the softmax is computed online
// (running max and sum), so the Lq x Lk score matrix is never stored. The
// forward saves the row log-sum-exp for the backward.
//
// A block owns AGX_ATTN_B rows (queries, or keys in the dK/dV pass) and gives
// each AGX_ATTN_S threads: thread (row, split) takes the tile rows r with
// r % AGX_ATTN_S == split and keeps its own partial state, and at the end the
// row's threads add their states up through shared memory (agx_attn_merge).
// With one thread per row, 16 heads of 512 queries kept 8192 threads busy on
// a GPU that runs over 200 000.
//
// Layout: Q, O, dO, dQ [BH, Lq, D]; K, V, dK, dV [BH, Lk, D]; lse, delta [BH, Lq],
// contiguous. D <= AGX_ATTN_MAXD. Launch with blockDim.x == AGX_ATTN_THREADS
// and gridDim (ceil(rows / AGX_ATTN_B), BH), rows being Lq (forward, dQ) or Lk
// (dK/dV). causal masks key j > query i.

#define AGX_ATTN_B 32
#define AGX_ATTN_S 4
#define AGX_ATTN_THREADS (AGX_ATTN_B * AGX_ATTN_S)
#define AGX_ATTN_MAXD 64

// Rows are kept in arrays of AGX_ATTN_MAXD, zero past d, and every loop over
// them runs over all AGX_ATTN_MAXD columns with a constant bound: unrolled,
// the arrays of a thread live in registers. (With d as the bound they were
// indexed at run time and so lived in local memory, which made the kernels
// several times slower on an H100.)

// agx_attn_load copies rows [r0, r0+AGX_ATTN_B) of a [rows, d] matrix into a
// shared tile, zero-padding past the last row and column.
template <typename T>
__device__ inline void agx_attn_load(T (*tile)[AGX_ATTN_MAXD], const T* src, i64 r0, i64 rows, i64 d) {
	for (int e = threadIdx.x; e < AGX_ATTN_B * AGX_ATTN_MAXD; e += blockDim.x) {
		int r = e / AGX_ATTN_MAXD, c = e % AGX_ATTN_MAXD;
		tile[r][c] = r0 + r < rows && c < d ? src[(r0 + r) * d + c] : (T)0;
	}
}

// agx_attn_row copies a row of d values into r, times scale, zero past d.
template <typename T>
__device__ inline void agx_attn_row(T* r, const T* src, i64 d, T scale) {
#pragma unroll
	for (int c = 0; c < AGX_ATTN_MAXD; c++) r[c] = c < d ? src[c] * scale : (T)0;
}

template <typename T>
__device__ inline T agx_dot(const T* a, const T* b) {
	T s = 0;
#pragma unroll
	for (int c = 0; c < AGX_ATTN_MAXD; c++) s += a[c] * b[c];
	return s;
}

// agx_axpy sets y = y*a + x*b over a whole row.
template <typename T>
__device__ inline void agx_axpy(T* y, T a, const T* x, T b) {
#pragma unroll
	for (int c = 0; c < AGX_ATTN_MAXD; c++) y[c] = y[c] * a + x[c] * b;
}

// agx_attn_merge adds the row accumulators of a row's AGX_ATTN_S threads into
// those of its split-0 thread, one split at a time through buf, a
// [AGX_ATTN_B][AGX_ATTN_MAXD] tile no longer in use (every thread of the
// block must call it).
template <typename T>
__device__ inline void agx_attn_merge(T (*buf)[AGX_ATTN_MAXD], T* acc, int row, int split) {
	for (int s = 1; s < AGX_ATTN_S; s++) {
		if (split == s) {
#pragma unroll
			for (int c = 0; c < AGX_ATTN_MAXD; c++) buf[row][c] = acc[c];
		}
		__syncthreads();
		if (split == 0) {
#pragma unroll
			for (int c = 0; c < AGX_ATTN_MAXD; c++) acc[c] += buf[row][c];
		}
		__syncthreads();
	}
}

// agx_attn_store writes the first d values of r, times scale, to dst.
template <typename T>
__device__ inline void agx_attn_store(T* dst, const T* r, i64 d, T scale) {
#pragma unroll
	for (int c = 0; c < AGX_ATTN_MAXD; c++)
		if (c < d) dst[c] = r[c] * scale;
}

template <typename T>
__device__ void agx_attn_fwd(i64 lq, i64 lk, i64 d, const T* q, const T* k, const T* v, T* o, T* lse, double scale,
                             int causal) {
	__shared__ T ks[AGX_ATTN_B][AGX_ATTN_MAXD];
	__shared__ T vs[AGX_ATTN_B][AGX_ATTN_MAXD];
	__shared__ T ms[AGX_ATTN_S][AGX_ATTN_B], lsum[AGX_ATTN_S][AGX_ATTN_B];
	int row = threadIdx.x % AGX_ATTN_B, split = threadIdx.x / AGX_ATTN_B;
	i64 bh = blockIdx.y;
	i64 i = (i64)blockIdx.x * AGX_ATTN_B + row;
	bool active = i < lq;
	q += (bh * lq + (active ? i : 0)) * d;
	k += bh * lk * d;
	v += bh * lk * d;
	T qr[AGX_ATTN_MAXD], acc[AGX_ATTN_MAXD];
	agx_attn_row<T>(qr, q, d, (T)scale);
#pragma unroll
	for (int c = 0; c < AGX_ATTN_MAXD; c++) acc[c] = 0;
	T m = -agx_inf<T>(), l = 0;
	for (i64 j0 = 0; j0 < lk; j0 += AGX_ATTN_B) {
		agx_attn_load<T>(ks, k, j0, lk, d);
		agx_attn_load<T>(vs, v, j0, lk, d);
		__syncthreads();
		for (int r = split; active && r < AGX_ATTN_B && j0 + r < lk; r += AGX_ATTN_S) {
			if (causal && j0 + r > i) break;
			T s = agx_dot<T>(qr, ks[r]);
			T mn = s > m ? s : m;
			T corr = exp(m - mn), p = exp(s - mn);
			l = l * corr + p;
			agx_axpy<T>(acc, corr, vs[r], p);
			m = mn;
		}
		__syncthreads(); // the tiles are overwritten next
	}
	// Combine the splits: the row's maximum M, its sum L, each accumulator
	// rescaled to M (a split that saw no key has m = -inf and adds nothing).
	ms[split][row] = m;
	lsum[split][row] = l;
	__syncthreads();
	T M = ms[0][row], L = 0;
	for (int s = 1; s < AGX_ATTN_S; s++) M = ms[s][row] > M ? ms[s][row] : M;
	for (int s = 0; s < AGX_ATTN_S; s++) L += ms[s][row] == -agx_inf<T>() ? (T)0 : lsum[s][row] * exp(ms[s][row] - M);
	T f = m == -agx_inf<T>() ? (T)0 : exp(m - M);
#pragma unroll
	for (int c = 0; c < AGX_ATTN_MAXD; c++) acc[c] *= f;
	agx_attn_merge<T>(ks, acc, row, split);
	if (!active || split != 0) return;
	agx_attn_store<T>(o + (bh * lq + i) * d, acc, d, (T)1 / L);
	lse[bh * lq + i] = M + log(L);
}

// delta[row] = dO[row] · O[row], the softmax-backward correction per query.
template <typename T>
__device__ void agx_attn_delta(i64 rows, i64 d, const T* o, const T* dout, T* delta) {
	AGX_GRID_LOOP(r, rows) {
		T s = 0;
		for (i64 c = 0; c < d; c++) s += o[r * d + c] * dout[r * d + c];
		delta[r] = s;
	}
}

template <typename T>
__device__ void agx_attn_dq(i64 lq, i64 lk, i64 d, const T* q, const T* k, const T* v, const T* dout, const T* lse,
                            const T* delta, T* dq, double scale, int causal) {
	__shared__ T ks[AGX_ATTN_B][AGX_ATTN_MAXD];
	__shared__ T vs[AGX_ATTN_B][AGX_ATTN_MAXD];
	int tr = threadIdx.x % AGX_ATTN_B, split = threadIdx.x / AGX_ATTN_B;
	i64 bh = blockIdx.y;
	i64 i = (i64)blockIdx.x * AGX_ATTN_B + tr;
	bool active = i < lq;
	i64 row = bh * lq + (active ? i : 0);
	k += bh * lk * d;
	v += bh * lk * d;
	T qr[AGX_ATTN_MAXD], dor[AGX_ATTN_MAXD], acc[AGX_ATTN_MAXD];
	agx_attn_row<T>(qr, q + row * d, d, (T)scale);
	agx_attn_row<T>(dor, dout + row * d, d, (T)1);
#pragma unroll
	for (int c = 0; c < AGX_ATTN_MAXD; c++) acc[c] = 0;
	T lr = lse[row], dr = delta[row];
	for (i64 j0 = 0; j0 < lk; j0 += AGX_ATTN_B) {
		agx_attn_load<T>(ks, k, j0, lk, d);
		agx_attn_load<T>(vs, v, j0, lk, d);
		__syncthreads();
		for (int r = split; active && r < AGX_ATTN_B && j0 + r < lk; r += AGX_ATTN_S) {
			if (causal && j0 + r > i) break;
			T p = exp(agx_dot<T>(qr, ks[r]) - lr);
			T ds = p * (agx_dot<T>(dor, vs[r]) - dr);
			agx_axpy<T>(acc, (T)1, ks[r], ds);
		}
		__syncthreads();
	}
	agx_attn_merge<T>(ks, acc, tr, split);
	if (!active || split != 0) return;
	agx_attn_store<T>(dq + row * d, acc, d, (T)scale);
}

template <typename T>
__device__ void agx_attn_dkdv(i64 lq, i64 lk, i64 d, const T* q, const T* k, const T* v, const T* dout, const T* lse,
                              const T* delta, T* dk, T* dv, double scale, int causal) {
	__shared__ T qs[AGX_ATTN_B][AGX_ATTN_MAXD];
	__shared__ T dos[AGX_ATTN_B][AGX_ATTN_MAXD];
	__shared__ T ls[AGX_ATTN_B], ds_[AGX_ATTN_B];
	int tr = threadIdx.x % AGX_ATTN_B, split = threadIdx.x / AGX_ATTN_B;
	i64 bh = blockIdx.y;
	i64 j = (i64)blockIdx.x * AGX_ATTN_B + tr;
	bool active = j < lk;
	i64 row = bh * lk + (active ? j : 0);
	q += bh * lq * d;
	dout += bh * lq * d;
	lse += bh * lq;
	delta += bh * lq;
	T kj[AGX_ATTN_MAXD], vj[AGX_ATTN_MAXD], gk[AGX_ATTN_MAXD], gv[AGX_ATTN_MAXD];
	agx_attn_row<T>(kj, k + row * d, d, (T)scale);
	agx_attn_row<T>(vj, v + row * d, d, (T)1);
#pragma unroll
	for (int c = 0; c < AGX_ATTN_MAXD; c++) gk[c] = gv[c] = 0;
	for (i64 i0 = 0; i0 < lq; i0 += AGX_ATTN_B) {
		agx_attn_load<T>(qs, q, i0, lq, d);
		agx_attn_load<T>(dos, dout, i0, lq, d);
		if (threadIdx.x < AGX_ATTN_B) {
			ls[threadIdx.x] = i0 + threadIdx.x < lq ? lse[i0 + threadIdx.x] : (T)0;
			ds_[threadIdx.x] = i0 + threadIdx.x < lq ? delta[i0 + threadIdx.x] : (T)0;
		}
		__syncthreads();
		for (int r = split; active && r < AGX_ATTN_B && i0 + r < lq; r += AGX_ATTN_S) {
			if (causal && j > i0 + r) continue;
			T p = exp(agx_dot<T>(qs[r], kj) - ls[r]);
			T ds = p * (agx_dot<T>(dos[r], vj) - ds_[r]);
			agx_axpy<T>(gv, (T)1, dos[r], p);
			agx_axpy<T>(gk, (T)1, qs[r], ds);
		}
		__syncthreads();
	}
	agx_attn_merge<T>(qs, gk, tr, split);
	agx_attn_merge<T>(dos, gv, tr, split);
	if (!active || split != 0) return;
	agx_attn_store<T>(dk + row * d, gk, d, (T)scale);
	agx_attn_store<T>(dv + row * d, gv, d, (T)1);
}

#define AGX_ATTENTION(t, T)                                                                                         \
	extern "C" __global__ void attn_fwd_##t(i64 lq, i64 lk, i64 d, const T* q, const T* k, const T* v, T* o, T* lse, \
	                                        double scale, int causal) {                                             \
		agx_attn_fwd<T>(lq, lk, d, q, k, v, o, lse, scale, causal);                                                 \
	}                                                                                                               \
	AGX_EXPORT(attn_fwd_##t)                                                                                        \
	extern "C" __global__ void attn_delta_##t(i64 rows, i64 d, const T* o, const T* dout, T* delta) {              \
		agx_attn_delta<T>(rows, d, o, dout, delta);                                                                 \
	}                                                                                                               \
	AGX_EXPORT(attn_delta_##t)                                                                                      \
	extern "C" __global__ void attn_dq_##t(i64 lq, i64 lk, i64 d, const T* q, const T* k, const T* v, const T* dout, \
	                                       const T* lse, const T* delta, T* dq, double scale, int causal) {         \
		agx_attn_dq<T>(lq, lk, d, q, k, v, dout, lse, delta, dq, scale, causal);                                    \
	}                                                                                                               \
	AGX_EXPORT(attn_dq_##t)                                                                                         \
	extern "C" __global__ void attn_dkdv_##t(i64 lq, i64 lk, i64 d, const T* q, const T* k, const T* v,            \
	                                         const T* dout, const T* lse, const T* delta, T* dk, T* dv, double scale, \
	                                         int causal) {                                                          \
		agx_attn_dkdv<T>(lq, lk, d, q, k, v, dout, lse, delta, dk, dv, scale, causal);                              \
	}                                                                                                               \
	AGX_EXPORT(attn_dkdv_##t)
AGX_ATTENTION(f32, float)
AGX_ATTENTION(f64, double)
