// A deliberately broken block reduction: the __syncthreads between the
// shared-memory writes and the reads is missing. gpu/scripts/test-gpu.sh
// builds it under ThreadSanitizer and expects a data race report, which shows
// the emulator lets TSan see missing barriers.
extern "C" __global__ void broken_sum(i64 n, const double* x, double* out) {
	__shared__ double s[64];
	s[threadIdx.x] = threadIdx.x < n ? x[threadIdx.x] : 0.0;
	// missing: __syncthreads();
	if (threadIdx.x == 0) {
		double t = 0;
		for (unsigned i = 0; i < blockDim.x; i++) t += s[i];
		*out = t;
	}
}

int main() {
	double x[64], out = 0;
	for (int i = 0; i < 64; i++) x[i] = i;
	i64 n = 64;
	const double* xp = x;
	double* op = &out;
	void* args[] = {&n, &xp, &op};
	agx_emu::launch(broken_sum, dim3(1), dim3(64), 0, args);
	return 0;
}
