// cuda_emu.h runs CUDA C kernels on the host, for testing kernel logic on a
// machine without a GPU. A .cu file compiled as C++17 with this header
// force-included (and AGX_EMU defined) becomes a shared library whose kernels
// are launched through agx_emu_lookup.
//
// Execution model: a launch starts one OS thread per CUDA thread of a block;
// the team runs the blocks one after another, so __syncthreads is a real
// barrier, __shared__ variables (function-local statics) belong to the block
// being run, and ThreadSanitizer sees every cross-thread access a kernel makes
// through shared or global memory. Threads that return early leave the
// barrier, as on current GPUs. Not modelled: warps and warp intrinsics,
// concurrent blocks, the GPU memory model, streams.
#ifndef AGX_CUDA_EMU_H
#define AGX_CUDA_EMU_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

struct dim3 {
	unsigned x, y, z;
	dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
typedef dim3 uint3;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static

static thread_local uint3 threadIdx, blockIdx;
static thread_local dim3 blockDim, gridDim;

namespace agx_emu {

// Barrier is a reusable barrier whose participants may leave (drop).
class Barrier {
public:
	void reset(int n) {
		std::lock_guard<std::mutex> l(m_);
		expected_ = n;
		count_ = 0;
	}
	// wait blocks until every participant has arrived; the last arrival runs done.
	template <typename F>
	void wait(F done) {
		std::unique_lock<std::mutex> l(m_);
		unsigned long g = gen_;
		if (++count_ >= expected_) {
			done();
			release();
			return;
		}
		cv_.wait(l, [&] { return gen_ != g; });
	}
	void wait() {
		wait([] {});
	}
	void drop() {
		std::lock_guard<std::mutex> l(m_);
		expected_--;
		if (count_ > 0 && count_ >= expected_) release();
	}

private:
	void release() {
		count_ = 0;
		gen_++;
		cv_.notify_all();
	}
	std::mutex m_;
	std::condition_variable cv_;
	int expected_ = 0, count_ = 0;
	unsigned long gen_ = 0;
};

struct Launch {
	Barrier sync;     // __syncthreads within a block
	Barrier blockEnd; // between blocks
	std::vector<unsigned char> shared;
};

static thread_local Launch* current;

// run executes body for every thread of every block of the grid.
template <typename F>
int run(dim3 grid, dim3 block, size_t shmem, F body) {
	int nthreads = (int)(block.x * block.y * block.z);
	if (nthreads <= 0 || nthreads > 1024 || grid.x * grid.y * grid.z == 0) return 1;
	Launch L;
	L.shared.assign(shmem + 16, 0);
	L.sync.reset(nthreads);
	L.blockEnd.reset(nthreads);
	auto team = [&](int t) {
		current = &L;
		blockDim = block;
		gridDim = grid;
		threadIdx = uint3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
		for (unsigned bz = 0; bz < grid.z; bz++)
			for (unsigned by = 0; by < grid.y; by++)
				for (unsigned bx = 0; bx < grid.x; bx++) {
					blockIdx = uint3(bx, by, bz);
					body();
					L.sync.drop();
					L.blockEnd.wait([&] { L.sync.reset(nthreads); });
				}
		current = nullptr;
	};
	std::vector<std::thread> threads;
	threads.reserve(nthreads);
	for (int t = 0; t < nthreads; t++) threads.emplace_back(team, t);
	for (auto& th : threads) th.join();
	return 0;
}

template <typename... A, size_t... I>
void call(void (*k)(A...), void** args, std::index_sequence<I...>) {
	k(*(typename std::remove_reference<A>::type*)args[I]...);
}

// launch runs kernel k with its arguments read from args (one pointer per parameter).
template <typename... A>
int launch(void (*k)(A...), dim3 grid, dim3 block, size_t shmem, void** args) {
	return run(grid, block, shmem, [&] { call(k, args, std::index_sequence_for<A...>{}); });
}

typedef int (*Launcher)(unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, size_t, void**);

struct Entry {
	const char* name;
	Launcher fn;
};

static std::vector<Entry>& registry() {
	static std::vector<Entry> r;
	return r;
}

struct Registrar {
	Registrar(const char* name, Launcher fn) { registry().push_back(Entry{name, fn}); }
};

template <typename T>
T atomic_add(T* p, T v) {
	if constexpr (std::is_integral<T>::value) {
		return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
	} else {
		T old, want;
		__atomic_load(p, &old, __ATOMIC_SEQ_CST);
		do {
			want = old + v;
		} while (!__atomic_compare_exchange(p, &old, &want, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
		return old;
	}
}

} // namespace agx_emu

inline void __syncthreads() { agx_emu::current->sync.wait(); }
inline void* agx_emu_dynamic_shared() { return agx_emu::current->shared.data(); }

inline float atomicAdd(float* p, float v) { return agx_emu::atomic_add(p, v); }
inline double atomicAdd(double* p, double v) { return agx_emu::atomic_add(p, v); }
inline int atomicAdd(int* p, int v) { return agx_emu::atomic_add(p, v); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { return agx_emu::atomic_add(p, v); }

// AGX_EMU_EXPORT(kernel) makes kernel launchable by name.
#define AGX_EMU_EXPORT(k)                                                                                     \
	static int agx_emu_launch_##k(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, \
	                              size_t shmem, void** args) {                                                \
		return agx_emu::launch(k, dim3(gx, gy, gz), dim3(bx, by, bz), shmem, args);                           \
	}                                                                                                         \
	static agx_emu::Registrar agx_emu_registrar_##k(#k, agx_emu_launch_##k);

// agx_emu_lookup returns the launcher of the named kernel, or NULL.
extern "C" __attribute__((visibility("default"))) agx_emu::Launcher agx_emu_lookup(const char* name) {
	for (auto& e : agx_emu::registry())
		if (strcmp(e.name, name) == 0) return e.fn;
	return nullptr;
}

#endif
