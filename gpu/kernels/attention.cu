// Fused scaled dot-product attention in the FlashAttention style: K and V (in
// the forward and the dQ pass) or Q and dO (in the dK/dV pass) stream through
// shared memory in tiles, each thread owns one row, and the softmax is
// computed online (running max and sum), so the Lq x Lk score matrix is never
// stored. The forward saves the row log-sum-exp for the backward.
//
// Layout: Q, O, dO, dQ [BH, Lq, D]; K, V, dK, dV [BH, Lk, D]; lse, delta [BH, Lq],
// contiguous. D <= AGX_ATTN_MAXD. Launch with blockDim.x == AGX_ATTN_B and
// gridDim (ceil(rows / AGX_ATTN_B), BH), rows being Lq (forward, dQ, delta) or
// Lk (dK/dV). causal masks key j > query i.

#define AGX_ATTN_B 32
#define AGX_ATTN_MAXD 64

// agx_attn_load copies rows [r0, r0+AGX_ATTN_B) of a [rows, d] matrix into a
// shared tile, zero-padding past the end.
template <typename T>
__device__ inline void agx_attn_load(T (*tile)[AGX_ATTN_MAXD], const T* src, i64 r0, i64 rows, i64 d) {
	for (i64 e = threadIdx.x; e < AGX_ATTN_B * d; e += blockDim.x) {
		i64 r = e / d, c = e % d;
		tile[r][c] = r0 + r < rows ? src[(r0 + r) * d + c] : (T)0;
	}
}

template <typename T>
__device__ inline T agx_dot(const T* a, const T* b, i64 d) {
	T s = 0;
	for (i64 c = 0; c < d; c++) s += a[c] * b[c];
	return s;
}

template <typename T>
__device__ void agx_attn_fwd(i64 lq, i64 lk, i64 d, const T* q, const T* k, const T* v, T* o, T* lse, double scale,
                             int causal) {
	__shared__ T ks[AGX_ATTN_B][AGX_ATTN_MAXD];
	__shared__ T vs[AGX_ATTN_B][AGX_ATTN_MAXD];
	i64 bh = blockIdx.y;
	i64 i = (i64)blockIdx.x * AGX_ATTN_B + threadIdx.x;
	bool active = i < lq;
	q += (bh * lq + (active ? i : 0)) * d;
	k += bh * lk * d;
	v += bh * lk * d;
	T acc[AGX_ATTN_MAXD];
	for (i64 c = 0; c < d; c++) acc[c] = 0;
	T m = -agx_inf<T>(), l = 0;
	for (i64 j0 = 0; j0 < lk; j0 += AGX_ATTN_B) {
		agx_attn_load<T>(ks, k, j0, lk, d);
		agx_attn_load<T>(vs, v, j0, lk, d);
		__syncthreads();
		for (i64 r = 0; active && r < AGX_ATTN_B && j0 + r < lk; r++) {
			if (causal && j0 + r > i) break;
			T s = agx_dot<T>(q, ks[r], d) * (T)scale;
			T mn = s > m ? s : m;
			T corr = exp(m - mn), p = exp(s - mn);
			l = l * corr + p;
			for (i64 c = 0; c < d; c++) acc[c] = acc[c] * corr + p * vs[r][c];
			m = mn;
		}
		__syncthreads(); // the tiles are overwritten next
	}
	if (!active) return;
	for (i64 c = 0; c < d; c++) o[(bh * lq + i) * d + c] = acc[c] / l;
	lse[bh * lq + i] = m + log(l);
}

// delta[row] = dO[row] · O[row], the softmax-backward correction per query.
template <typename T>
__device__ void agx_attn_delta(i64 rows, i64 d, const T* o, const T* dout, T* delta) {
	AGX_GRID_LOOP(r, rows) { delta[r] = agx_dot<T>(o + r * d, dout + r * d, d); }
}

template <typename T>
__device__ void agx_attn_dq(i64 lq, i64 lk, i64 d, const T* q, const T* k, const T* v, const T* dout, const T* lse,
                            const T* delta, T* dq, double scale, int causal) {
	__shared__ T ks[AGX_ATTN_B][AGX_ATTN_MAXD];
	__shared__ T vs[AGX_ATTN_B][AGX_ATTN_MAXD];
	i64 bh = blockIdx.y;
	i64 i = (i64)blockIdx.x * AGX_ATTN_B + threadIdx.x;
	bool active = i < lq;
	i64 row = bh * lq + (active ? i : 0);
	q += row * d;
	dout += row * d;
	k += bh * lk * d;
	v += bh * lk * d;
	T acc[AGX_ATTN_MAXD];
	for (i64 c = 0; c < d; c++) acc[c] = 0;
	for (i64 j0 = 0; j0 < lk; j0 += AGX_ATTN_B) {
		agx_attn_load<T>(ks, k, j0, lk, d);
		agx_attn_load<T>(vs, v, j0, lk, d);
		__syncthreads();
		for (i64 r = 0; active && r < AGX_ATTN_B && j0 + r < lk; r++) {
			if (causal && j0 + r > i) break;
			T p = exp(agx_dot<T>(q, ks[r], d) * (T)scale - lse[row]);
			T ds = p * (agx_dot<T>(dout, vs[r], d) - delta[row]);
			for (i64 c = 0; c < d; c++) acc[c] += ds * ks[r][c];
		}
		__syncthreads();
	}
	if (!active) return;
	for (i64 c = 0; c < d; c++) dq[row * d + c] = acc[c] * (T)scale;
}

template <typename T>
__device__ void agx_attn_dkdv(i64 lq, i64 lk, i64 d, const T* q, const T* k, const T* v, const T* dout, const T* lse,
                              const T* delta, T* dk, T* dv, double scale, int causal) {
	__shared__ T qs[AGX_ATTN_B][AGX_ATTN_MAXD];
	__shared__ T dos[AGX_ATTN_B][AGX_ATTN_MAXD];
	__shared__ T ls[AGX_ATTN_B], ds_[AGX_ATTN_B];
	i64 bh = blockIdx.y;
	i64 j = (i64)blockIdx.x * AGX_ATTN_B + threadIdx.x;
	bool active = j < lk;
	i64 row = bh * lk + (active ? j : 0);
	q += bh * lq * d;
	dout += bh * lq * d;
	lse += bh * lq;
	delta += bh * lq;
	const T* kj = k + row * d;
	const T* vj = v + row * d;
	T gk[AGX_ATTN_MAXD], gv[AGX_ATTN_MAXD];
	for (i64 c = 0; c < d; c++) gk[c] = gv[c] = 0;
	for (i64 i0 = 0; i0 < lq; i0 += AGX_ATTN_B) {
		agx_attn_load<T>(qs, q, i0, lq, d);
		agx_attn_load<T>(dos, dout, i0, lq, d);
		if (threadIdx.x < AGX_ATTN_B) {
			ls[threadIdx.x] = i0 + threadIdx.x < lq ? lse[i0 + threadIdx.x] : (T)0;
			ds_[threadIdx.x] = i0 + threadIdx.x < lq ? delta[i0 + threadIdx.x] : (T)0;
		}
		__syncthreads();
		for (i64 r = 0; active && r < AGX_ATTN_B && i0 + r < lq; r++) {
			if (causal && j > i0 + r) continue;
			T p = exp(agx_dot<T>(qs[r], kj, d) * (T)scale - ls[r]);
			T ds = p * (agx_dot<T>(dos[r], vj, d) - ds_[r]);
			for (i64 c = 0; c < d; c++) {
				gv[c] += p * dos[r][c];
				gk[c] += ds * qs[r][c];
			}
		}
		__syncthreads();
	}
	if (!active) return;
	for (i64 c = 0; c < d; c++) {
		dk[row * d + c] = gk[c] * (T)scale;
		dv[row * d + c] = gv[c];
	}
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
