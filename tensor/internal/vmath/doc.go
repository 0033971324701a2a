// Package vmath holds agx's float32 transcendental kernels, e^x, the
// logistic sigmoid 1/(1+e^-x) and tanh x, over slices, in Go and Go
// assembly, without cgo.
//
// # Numerics
//
// Every input is converted to float64 and clamped to a range where the
// float64 intermediates can neither overflow nor underflow; e^v is reduced
// to 2^k·e^r with k = round(v·log2 e) and |r| ≤ ln2/2, e^r - 1 is the Taylor
// polynomial to degree 8 evaluated in Estrin's scheme, 2^k is built in the
// exponent field, and the float64 result is rounded once to float32.
// Sigmoid is 1/(1 + e^-x); tanh is (e^2|x| - 1)/(e^2|x| + 1) with the sign of
// x, where e^v - 1 = 2^k·(e^r - 1) + (2^k - 1) keeps the relative accuracy of
// small x. The truncation error is below 2.5e-10 relative and the float64
// rounding errors below 1e-15, so the float64 value before the final
// rounding is within 0.01 ulp of float32 of the exact result: outputs are
// the correctly rounded value or, rarely, its neighbour, at most 1 ulp from
// float32(math.Exp(float64(x))) etc. NaN inputs are returned unchanged (same
// bits), ±Inf and out-of-range inputs saturate, tanh(-0) = -0.
//
// # Implementations
//
// The Go kernels (Exp32, Sigmoid32, Tanh32 and their loops) are the
// reference. They spell out every rounding: no multiply-add is left for the
// compiler to fuse (an explicit float64 conversion forbids it), so they give
// the same bits on every architecture. The assembly kernels run the same
// operations in the same order, one vector lane per element, without fused
// multiply-adds, and therefore return exactly the bits of the Go kernels;
// the tests check this on every float32 of a sweep of the whole range. They
// are chosen at run time with golang.org/x/sys/cpu:
//
//	AVX-512 (F, VL, DQ)  8 float32 per step as one ZMM of float64, masked tail
//	AVX2                 4 float32 per step as one YMM of float64, Go tail
//	portable Go          elsewhere
//
// # Speed
//
// On the project's 2-core AVX-512 VM, shared with other jobs, per float32
// of a 1024-element slice: exp 3.6 ns in Go, 1.2 AVX2, 0.77 AVX-512;
// sigmoid 4.5, 1.4, 1.0; tanh 5.9, 1.5, 1.0. (A
// variant of the AVX-512 exp with fused multiply-adds was 12-16% faster;
// it would no longer match the Go kernels bit for bit.)
//
// # Aliasing
//
// dst and src may be the same slice; otherwise they must not overlap.
package vmath
