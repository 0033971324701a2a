// Definitions shared by every agx kernel. The same text is compiled by NVRTC or
// nvcc for the GPU and, with AGX_EMU defined after cuda_emu.h, as C++ for the
// host emulator. Kernels are extern "C" so modules can look them up by name.
#ifndef AGX_CUDA_H
#define AGX_CUDA_H

typedef long long i64;

// AGX_EXPORT registers a kernel with the emulator's launch table; on the GPU the
// module's symbol table does that job.
#ifdef AGX_EMU
#define AGX_EXPORT(k) AGX_EMU_EXPORT(k)
#define AGX_DYNAMIC_SHARED(T, name) T* name = (T*)agx_emu_dynamic_shared()
#else
#define AGX_EXPORT(k)
#define AGX_DYNAMIC_SHARED(T, name) extern __shared__ unsigned char agx_dyn_smem_##name[]; T* name = (T*)agx_dyn_smem_##name
#endif

// Grid-stride loop over [0, n).
#define AGX_GRID_LOOP(i, n) \
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)blockDim.x * gridDim.x)

// agx_offsets computes the element offsets of K operands for the row-major flat
// index i of a strided iteration space. meta holds
// [rank, shape[rank], strides of operand 0[rank], strides of operand 1[rank], ...],
// or just [-1] when every operand is contiguous in the same order: then each
// offset is i, without the divisions.
template <int K>
__device__ inline void agx_offsets(i64 i, const i64* meta, i64* off) {
	int rank = (int)meta[0];
	if (rank < 0) {
		for (int k = 0; k < K; k++) off[k] = i;
		return;
	}
	for (int k = 0; k < K; k++) off[k] = 0;
	for (int d = rank - 1; d >= 0; d--) {
		i64 s = meta[1 + d];
		i64 idx = i % s;
		i /= s;
		for (int k = 0; k < K; k++) off[k] += idx * meta[1 + rank * (k + 1) + d];
	}
}

// agx_inf is +Inf in T.
#ifdef AGX_EMU
template <typename T>
__device__ inline T agx_inf() { return (T)HUGE_VAL; }
#else
template <typename T>
__device__ inline T agx_inf() { return (T)__longlong_as_double(0x7ff0000000000000LL); }
#endif

template <typename T>
__device__ inline bool agx_isnan(T x) { return x != x; }

#endif
