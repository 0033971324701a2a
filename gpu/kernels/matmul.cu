// gemm_<t>: C[m, n] = A[m, k] · B[k, n] for contiguous row-major matrices, in
// AGX_TILE x AGX_TILE shared-memory tiles; launch with blockDim (AGX_TILE, AGX_TILE)
// and gridDim (ceil(n/AGX_TILE), ceil(m/AGX_TILE)). The CUDA backend uses cuBLAS;
// the emulator and small-matrix paths use this kernel.

#define AGX_TILE 16

template <typename T>
__device__ inline void agx_gemm(i64 m, i64 n, i64 k, const T* a, const T* b, T* c) {
	__shared__ T ta[AGX_TILE][AGX_TILE];
	__shared__ T tb[AGX_TILE][AGX_TILE];
	i64 row = (i64)blockIdx.y * AGX_TILE + threadIdx.y;
	i64 col = (i64)blockIdx.x * AGX_TILE + threadIdx.x;
	T acc = 0;
	for (i64 p0 = 0; p0 < k; p0 += AGX_TILE) {
		i64 pa = p0 + threadIdx.x, pb = p0 + threadIdx.y;
		ta[threadIdx.y][threadIdx.x] = (row < m && pa < k) ? a[row * k + pa] : (T)0;
		tb[threadIdx.y][threadIdx.x] = (pb < k && col < n) ? b[pb * n + col] : (T)0;
		__syncthreads();
		for (int p = 0; p < AGX_TILE; p++) acc += ta[threadIdx.y][p] * tb[p][threadIdx.x];
		__syncthreads();
	}
	if (row < m && col < n) c[row * n + col] = acc;
}

#define AGX_GEMM(t, T)                                                                          \
	extern "C" __global__ void gemm_##t(i64 m, i64 n, i64 k, const T* a, const T* b, T* c) {    \
		agx_gemm<T>(m, n, k, a, b, c);                                                          \
	}                                                                                           \
	AGX_EXPORT(gemm_##t)
AGX_GEMM(f32, float)
AGX_GEMM(f64, double)
