// Reductions over any set of dims with a shared-memory tree inside each block,
// and softmax over the last dim of contiguous rows. One block computes one
// output element (grid-stride over outputs); blockDim.x must be a power of two
// and at most AGX_REDUCE_THREADS.
//
// meta for reduce_<t> / argreduce_<t>:
//   [orank, oshape[orank], dst strides[orank], src strides[orank],
//    rrank, rshape[rrank], src strides[rrank]]
// where o* are the kept dims and r* the reduced ones.

#define AGX_REDUCE_THREADS 128

enum { AGX_SUM = 1, AGX_PROD, AGX_MAX, AGX_MIN, AGX_ARGMAX, AGX_ARGMIN };

// agx_better reports whether candidate (bv, bi) replaces (av, ai) for op. An
// empty slot has index -1. NaN counts as the extreme value; ties and NaNs keep
// the lowest index, so the result does not depend on the combining order.
template <typename T>
__device__ inline bool agx_better(int op, T av, i64 ai, T bv, i64 bi) {
	if (bi < 0) return false;
	if (ai < 0) return true;
	bool an = agx_isnan(av), bn = agx_isnan(bv);
	if (an || bn) return bn && (!an || bi < ai);
	if (bv == av) return bi < ai;
	return (op == AGX_MAX || op == AGX_ARGMAX) ? bv > av : bv < av;
}

template <typename T>
__device__ inline void agx_combine(int op, T& av, i64& ai, T bv, i64 bi) {
	if (bi < 0) return;
	if (ai < 0) {
		av = bv;
		ai = bi;
		return;
	}
	switch (op) {
	case AGX_SUM: av = av + bv; break;
	case AGX_PROD: av = av * bv; break;
	default:
		if (agx_better<T>(op, av, ai, bv, bi)) {
			av = bv;
			ai = bi;
		}
		return;
	}
	if (bi < ai) ai = bi;
}

// agx_reduce_block leaves the block's reduction of output o in (sval[0], sidx[0]).
template <typename T>
__device__ inline void agx_reduce_block(int op, i64 o, i64 nred, const i64* meta, const T* src,
                                        T* sval, i64* sidx, i64* dst_off) {
	int orank = (int)meta[0];
	const i64* oshape = meta + 1;
	const i64* odst = oshape + orank;
	const i64* osrc = odst + orank;
	int rrank = (int)osrc[orank];
	const i64* rshape = osrc + orank + 1;
	const i64* rsrc = rshape + rrank;

	i64 base = 0, doff = 0, rem = o;
	for (int d = orank - 1; d >= 0; d--) {
		i64 idx = rem % oshape[d];
		rem /= oshape[d];
		base += idx * osrc[d];
		doff += idx * odst[d];
	}
	*dst_off = doff;

	T v = (T)0;
	i64 vi = -1;
	for (i64 r = threadIdx.x; r < nred; r += blockDim.x) {
		i64 off = base, rr = r;
		for (int d = rrank - 1; d >= 0; d--) {
			off += (rr % rshape[d]) * rsrc[d];
			rr /= rshape[d];
		}
		agx_combine<T>(op, v, vi, src[off], r);
	}
	sval[threadIdx.x] = v;
	sidx[threadIdx.x] = vi;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s) {
			T bv = sval[threadIdx.x + s];
			i64 bi = sidx[threadIdx.x + s];
			T av = sval[threadIdx.x];
			i64 ai = sidx[threadIdx.x];
			agx_combine<T>(op, av, ai, bv, bi);
			sval[threadIdx.x] = av;
			sidx[threadIdx.x] = ai;
		}
		__syncthreads();
	}
}

template <typename T>
__device__ inline void agx_reduce(int op, i64 nout, i64 nred, const i64* meta, T* dst, const T* src) {
	__shared__ T sval[AGX_REDUCE_THREADS];
	__shared__ i64 sidx[AGX_REDUCE_THREADS];
	for (i64 o = blockIdx.x; o < nout; o += gridDim.x) {
		i64 doff;
		agx_reduce_block<T>(op, o, nred, meta, src, sval, sidx, &doff);
		if (threadIdx.x == 0) {
			T r = sval[0];
			if (sidx[0] < 0) r = (op == AGX_PROD) ? (T)1 : (T)0;
			dst[doff] = r;
		}
		__syncthreads(); // sval is reused by the next output
	}
}

template <typename T>
__device__ inline void agx_argreduce(int op, i64 nout, i64 nred, const i64* meta, i64* dst, const T* src) {
	__shared__ T sval[AGX_REDUCE_THREADS];
	__shared__ i64 sidx[AGX_REDUCE_THREADS];
	for (i64 o = blockIdx.x; o < nout; o += gridDim.x) {
		i64 doff;
		agx_reduce_block<T>(op, o, nred, meta, src, sval, sidx, &doff);
		if (threadIdx.x == 0) dst[doff] = sidx[0] < 0 ? 0 : sidx[0];
		__syncthreads();
	}
}

#define AGX_REDUCE(t, T)                                                                                     \
	extern "C" __global__ void reduce_##t(i64 nout, i64 nred, const i64* meta, T* dst, const T* src, int op) { \
		agx_reduce<T>(op, nout, nred, meta, dst, src);                                                       \
	}                                                                                                        \
	AGX_EXPORT(reduce_##t)                                                                                   \
	extern "C" __global__ void argreduce_##t(i64 nout, i64 nred, const i64* meta, i64* dst, const T* src,    \
	                                         int op) {                                                       \
		agx_argreduce<T>(op, nout, nred, meta, dst, src);                                                    \
	}                                                                                                        \
	AGX_EXPORT(argreduce_##t)
AGX_REDUCE(f32, float)
AGX_REDUCE(f64, double)
AGX_REDUCE(i64, i64)

// softmax_<t>: dst[r, :] = softmax(src[r, :]) for rows x cols contiguous rows, one
// block per row: a max tree, then a sum tree of exp(x - max).
template <typename T>
__device__ inline void agx_softmax(i64 rows, i64 cols, T* dst, const T* src) {
	__shared__ T s[AGX_REDUCE_THREADS];
	for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
		const T* x = src + r * cols;
		T* y = dst + r * cols;
		T m = -agx_inf<T>();
		for (i64 j = threadIdx.x; j < cols; j += blockDim.x) m = x[j] > m ? x[j] : m;
		s[threadIdx.x] = m;
		__syncthreads();
		for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
			if (threadIdx.x < k && s[threadIdx.x + k] > s[threadIdx.x]) s[threadIdx.x] = s[threadIdx.x + k];
			__syncthreads();
		}
		m = s[0];
		__syncthreads();
		T sum = 0;
		for (i64 j = threadIdx.x; j < cols; j += blockDim.x) sum += exp(x[j] - m);
		s[threadIdx.x] = sum;
		__syncthreads();
		for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
			if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
			__syncthreads();
		}
		sum = s[0];
		for (i64 j = threadIdx.x; j < cols; j += blockDim.x) y[j] = exp(x[j] - m) / sum;
		__syncthreads();
	}
}

#define AGX_SOFTMAX(t, T)                                                                      \
	extern "C" __global__ void softmax_##t(i64 rows, i64 cols, T* dst, const T* src) {        \
		agx_softmax<T>(rows, cols, dst, src);                                                  \
	}                                                                                          \
	AGX_EXPORT(softmax_##t)
AGX_SOFTMAX(f32, float)
AGX_SOFTMAX(f64, double)
