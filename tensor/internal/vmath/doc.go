// Package vmath holds agx's transcendental kernels over slices, in Go and
// Go assembly, without cgo: for float32 e^x, the logistic sigmoid
// 1/(1+e^-x), tanh x, erf x, sin x and cos x (trig32.go) and log x
// (log32.go); for float64 sin x and cos x (trig.go), tanh x (tanh64.go), erf x (erf64.go), e^x (exp64.go,
// and math.Exp's own bits in mathexp.go) and log x (log64.go).
//
// # Numerics
//
// Exp, Sigmoid and Tanh compute in float32 lanes (exp32.go): the argument
// is reduced to k·ln2 + r with |r| ≤ ln2/2, e^r - 1 is r + r²·P(r) with P
// of degree 5 (Cephes's minimax coefficients for expf) in Estrin's scheme,
// and 2^k is built in the exponent field, in two halves so that results
// round once into the subnormals or to +Inf. Over every float32 (checked
// once exhaustively; the tests sweep every 61st), exp is at most 1 ulp from
// float32(math.Exp(float64(x))), sigmoid 2 from the float64 sigmoid and
// tanh 3 (at four inputs near ±0.12; 2 elsewhere). Where 1 + e^-x rounds
// to 1 (x above about 16.6), sigmoid returns 1, one ulp above the correctly
// rounded value up to x ≈ 17.3. Sigmoid
// is 1/(1 + e^-|x|) for x ≥ 0 and e^-|x|/(1 + e^-|x|) below, so that the
// tiny values of large negative x keep their relative accuracy; tanh is
// (e^2|x| - 1)/(e^2|x| + 1) with the sign of x, where e^v - 1 =
// 2^k·(e^r - 1) + (2^k - 1) keeps the relative accuracy of small x. NaN
// inputs are returned unchanged (same bits), ±Inf and out-of-range inputs
// saturate, tanh(-0) = -0.
//
// Erf computes in float32 lanes too (erf32.go): |x|, clamped below 4, falls
// in one of eight intervals of width 1/2, and a degree-7 polynomial with
// that interval's coefficients (one table lookup each) gives erf within
// 1 ulp of float32(math.Erf(float64(x))) over every float32; erf(±0) = ±0
// and erf(±Inf) = ±1; it is not monotone (erf32.go). GELU runs tensor's
// GELU, x·((erf(x·c) + 1)·0.5) with c = 1/√2 rounded to float32, in one
// kernel: erf's steps with the product before and the three operations
// after, each rounded to float32 as the composed ops round it.
//
// Sin32 and Cos32 (trig32.go) reduce the argument in float64 lanes, x less
// k·π/2 in two parts, split the reduced argument into a float32 and the
// float32 rest, and evaluate Cephes's degree-2 sinf and cosf polynomials
// in float32 lanes with the rest added back: within 1 ulp of the float64
// kernels' results rounded to float32 for |x| < 2^20 (checked once over
// every float32); from 2^20, math.Sin's and math.Cos's values rounded;
// NaN comes back unchanged.
//
// Log32 (log32.go) computes in float32 lanes: x = 2^k·m with m in
// [√2/2, √2], f = m - 1, log(1 + f) = f - f²/2 + f³·P(f) with P of degree
// 8 (Cephes's logf coefficients), and k·ln 2 in two parts; at most 1 ulp
// from float32(math.Log(float64(x))) over every positive float32
// (subnormals included). +Inf and NaN come back unchanged, ±0 gives -Inf,
// a negative x NaN.
//
// The float64 kernels are described next to their Go versions: Sin64 and
// Cos64 (trig.go) are within 2 ulp of sin and cos for |x| < 2^20 (closer
// than math.Sin and math.Cos near multiples of π); from 2^20 they return
// math.Sin's and math.Cos's values, which near multiples of π can be
// thousands of ulp off, as they always were. Tanh64 (tanh64.go) within 2 ulp of
// math.Tanh, and Erf64 (erf64.go; a + a·P(a²) below 1, 1 - e^(-a²)·t·G(t)
// with t = 3/(3 + a) above, polynomials fitted by fit_erf.go) within
// 1 ulp of math.Erf. Exp64 (exp64.go) is within 1 ulp of the exact value
// over the whole range, subnormal results included. Log64 (log64.go) is
// fdlibm's log as Go's math.Log computes it (their bits agree on the tests'
// two million inputs but for subnormal x, where math.Log's amd64 assembly
// is wrong).
//
// # Implementations
//
// The Go kernels (Exp32, Sigmoid32, Tanh32, Erf32, GELU32, Sin32, Cos32,
// Log32 and their loops)
// are the reference. They spell out every rounding: no multiply-add is left
// for the compiler to fuse (an explicit conversion forbids it), so they give
// the same bits on every architecture. The assembly kernels run the same
// operations in the same order, one vector lane per element, without fused
// multiply-adds, and therefore return exactly the bits of the Go kernels;
// the tests check this on every float32 of a sweep of the whole range. One
// substitution keeps the bits: the AVX-512 exp, sigmoid and tanh multiply
// by 2^k with VSCALEFPS, which rounds once as the Go kernels' products by
// exact powers of two do (Exp32's two halves round only in the second). They
// are chosen at run time with golang.org/x/sys/cpu:
//
//	AVX-512 (F, VL, DQ)  exp, sigmoid, tanh, erf, gelu, sin, cos, log: 16
//	                     float32 per step (one ZMM); masked tail
//	AVX2                 exp, sigmoid, tanh, erf, gelu, sin, cos, log: 8
//	                     float32 per step (one YMM); Go tail
//	portable Go          elsewhere
//
// Sin32's and Cos32's kernels reduce each half of the step's lanes in
// float64 lanes (VCVTPS2PD), narrow the reduced argument back, and run the
// polynomials on the whole step. The float64 kernels (Sin64, Cos64, Tanh64, Erf64, Exp64, Log64) follow the
// same rule at the same levels: AVX-512, 8 float64 per step (one ZMM),
// masked tail; AVX2, 4 float64 per step (one YMM), Go tail; elsewhere
// their Go versions, about as fast as the math package's functions. Where AVX-512
// has mask registers, the AVX2 kernels blend on the sign bits of YMM lane
// masks (VBLENDVPD). The tests run every level the CPU has, lowering
// level, so that an AVX-512 machine tests the AVX2 kernels too.
//
// One set of kernels is the exception: MathExps (mathexp.go) returns
// math.Exp's own bits, and its kernels run the operations of math.Exp's
// amd64 routine, fused multiply-adds included, only where math.Exp runs
// that routine (amd64 with AVX and FMA); elsewhere MathExps calls
// math.Exp.
//
// # Speed
//
// Per float32, with go test ./tensor/internal/vmath -run '^$' -bench
// Kernels -cpu 1, on the project's 2-core AVX-512 VM (AMD EPYC Zen 4), the
// median of 3 runs, over a 1024-element slice: exp 4.9 ns in Go, 0.49
// AVX2, 0.38 AVX-512; sigmoid 7.0, 0.57, 0.47; tanh 6.5, 0.56, 0.44. Over
// 2^20 elements (4 MiB read, 4 MiB written) with AVX-512: exp 0.40,
// sigmoid 0.48, tanh 0.46. On a Zen 5 VM (2 vCPUs of an AMD EPYC of family
// 26, full-width AVX-512), median of 3 over 1024 elements: exp 3.3 ns in
// Go, 0.41 AVX2, 0.17 AVX-512 (0.21 before VSCALEFPS); sigmoid 4.4, 0.47,
// 0.21 (0.24); tanh 4.5, 0.46, 0.23. Erf there: 6.2 ns in Go, 0.53 AVX2, 0.27
// AVX-512, over 1024 elements or 2^20; about 40 vector operations a step,
// eleven of them table lookups (VPERMPS), with the tables in registers on
// AVX-512 and memory operands on AVX2.
// Most assembly loops run two independent steps interleaved, each on its
// own registers (at AVX2 the float64 sin's, cos's and erf's run one step at
// a time: sixteen YMM registers are too few for two), so that one step's
// dependency chain fills the other's wait; what
// remains is mostly arithmetic: about 30 vector operations a step with
// AVX-512 (35 with AVX2), and a divide for sigmoid and tanh. Fused multiply-adds would save about a
// third of them, but the Go kernels could not match their bits on CPUs
// without them.
//
// Per float64, over 1024 normal values of standard deviation 3, with go
// test ./tensor/internal/vmath -run '^$' -bench 'Trig|Tanh64|Erf64' -cpu 1
// on the same 2-core AMD EPYC Zen 4 VM, shared with other jobs (load
// average about 5), so noisy: the best of 10 runs, in ns (the medians up
// to 11 % higher, AVX2 sin's 3.3 in that run):
//
//	      math  Go   AVX2  AVX-512
//	sin   7.9   9.0  2.0   1.2
//	cos   8.0   9.1  2.0   1.2
//	tanh  12    12   1.9   1.2
//	erf   23    18   4.6   2.3
//
// Exp64 and Log64, measured the same way on a Zen 5 VM (2 vCPUs of an AMD
// EPYC of family 26, full-width AVX-512), median of 3 runs, in ns: exp 5.9
// with math, 7.7 in Go, 1.6 AVX2, 0.79 AVX-512; log 4.4, 5.6, 1.6, 0.77;
// MathExps 1.2 with AVX2, 0.60 with AVX-512.
// Both run two steps at a time on AVX-512; exp two on AVX2, log (thirteen
// registers and a divide a step) one.
//
// Sin and cos run one step at a time on AVX2 (ten registers a step and
// four for the constants), two on AVX-512; tanh two on both. Erf computes
// both of its branches, about 115 vector operations and a divide a step, as
// three independent chains emitted round robin; two steps at a time on
// AVX-512, one on AVX2.
//
// Float32 sin, cos and log, with -bench 'Kernels/(sin|cos|log)/' -cpu 1
// on the Zen 5 VM, median of 3 runs, over 1024 elements, in ns: sin 5.5 in
// Go, 1.05 AVX2, 0.51 AVX-512; cos 5.3, 1.06, 0.50; log 5.4, 0.70, 0.36
// (over 2^20 with AVX-512: 0.51, 0.50, 0.36). Sin and cos take about 70
// vector operations a step of 16, 30 of them for the float64 reduction
// and the conversions, log about 50; before, float32 sin and cos ran the
// float64 kernels (0.71 ns with AVX-512) between a widening and a rounding
// pass, and log ran Log64's steps on widened lanes. All three run two steps
// at a time on AVX-512 and one on AVX2.
//
// # Aliasing
//
// dst and src may be the same slice; otherwise they must not overlap.
package vmath
