// gather_<t> and scatter_<t> along one dim. meta: [rank, shape[rank] (the index
// shape), strides of the three operands[rank] in argument order], and the
// index operand holds positions along dim.

template <typename T>
__device__ inline void agx_atomic_add(T* p, T v) { atomicAdd(p, v); }
template <>
__device__ inline void agx_atomic_add<i64>(i64* p, i64 v) {
	atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
template <>
__device__ inline void agx_atomic_add<bool>(bool* p, bool v) {
	if (v) *p = true; // only ever stores true: the order of the stores does not matter
}

// agx_index_offsets is agx_offsets<3> with operand 'which' indexed along dim by
// the value at the index operand 'ix'.
__device__ inline void agx_index_offsets(i64 i, const i64* meta, const i64* index, int ix, int which, int dim,
                                         i64* off) {
	int rank = (int)meta[0];
	i64 pos[8];
	off[0] = off[1] = off[2] = 0;
	for (int d = rank - 1; d >= 0; d--) {
		i64 s = meta[1 + d];
		pos[d] = i % s;
		i /= s;
	}
	for (int d = 0; d < rank; d++) off[ix] += pos[d] * meta[1 + rank * (ix + 1) + d];
	i64 at = index[off[ix]];
	for (int k = 0; k < 3; k++) {
		if (k == ix) continue;
		for (int d = 0; d < rank; d++) off[k] += (k == which && d == dim ? at : pos[d]) * meta[1 + rank * (k + 1) + d];
	}
}

#define AGX_INDEX(t, T)                                                                                         \
	extern "C" __global__ void gather_##t(i64 n, const i64* meta, T* dst, const T* src, const i64* index, int dim) { \
		AGX_GRID_LOOP(i, n) {                                                                                   \
			i64 o[3];                                                                                           \
			agx_index_offsets(i, meta, index, 2, 1, dim, o);                                                    \
			dst[o[0]] = src[o[1]];                                                                              \
		}                                                                                                       \
	}                                                                                                           \
	AGX_EXPORT(gather_##t)                                                                                      \
	extern "C" __global__ void scatter_##t(i64 n, const i64* meta, T* dst, const i64* index, const T* src, int dim, \
	                                       int accumulate) {                                                    \
		AGX_GRID_LOOP(i, n) {                                                                                   \
			i64 o[3];                                                                                           \
			agx_index_offsets(i, meta, index, 1, 0, dim, o);                                                    \
			if (accumulate)                                                                                     \
				agx_atomic_add<T>(dst + o[0], src[o[2]]);                                                       \
			else                                                                                                \
				dst[o[0]] = src[o[2]];                                                                          \
		}                                                                                                       \
	}                                                                                                           \
	AGX_EXPORT(scatter_##t)
AGX_DTYPES(AGX_INDEX)
