// Package gemm is agx's matrix multiply: C = alpha·op(A)·op(B) + beta·C for
// row-major float32 and float64 matrices, in Go and Go assembly, without cgo.
// Implementation plugs it into gonum's BLAS interfaces (blas32.Use,
// blas64.Use); package tensor installs it by default.
//
// # Design
//
// The structure is GotoBLAS/BLIS's. For each block of nc columns of B and C
// (jc) and each block of kc steps of the inner dimension (pc), op(B) is packed
// into nr-wide micro-panels; for each block of mc rows of A and C (ic), alpha·op(A)
// is packed into mr-tall micro-panels. A micro-kernel then multiplies one
// mr×kc panel of A by one kc×nr panel of B into an mr×nr tile of C (loops jr
// over B panels, ir over A panels), so that the B micro-panel stays in L1 and
// the packed A block in L2. Packing absorbs the transposes (each operand is
// read along its rows whatever its layout) and zero-pads ragged edges, so the
// kernels see only full tiles. A tile that overhangs C goes, with AVX-512,
// to an edge kernel that computes only its rows (one generated kernel per
// row count) and stores only its columns (masked stores); the AVX2 kernels
// compute it into a scratch tile whose valid part is then added. On CPUs with AVX-512 the packing is
// assembly too (generated with the kernels): an operand read across its
// rows is transposed in registers a 16×16 (float64 8×8) block at a time,
// and one read along its rows is copied with masked vector loads and stores,
// which also write the zero padding. Packing buffers are 64-byte aligned
// and reused through a small stash that the collector does not empty. With
// beta == 0 the first k block stores its product without reading C. Float32
// products of at least 2²⁰ multiply-adds (float64: 2¹⁹) are cut into
// GOMAXPROCS stripes of whole tiles (along the larger of m and n), each
// packed and multiplied by one member of a resident team of goroutines
// (package team), which stays awake between the products of a step.
//
// # Kernels
//
// The kernels hold the C tile in 2·mr vector registers, two per row, and per
// k step load one row of the B panel (two vectors), broadcast each of the mr
// values of the A panel and issue 2·mr fused multiply-adds; the k loop is
// unrolled four times and the C tile prefetched at entry. They are generated
// by gen_kernels.go and chosen at run time with golang.org/x/sys/cpu:
//
//	AVX-512F     float32 14×32 (28 ZMM accumulators), float64 14×16
//	AVX2 + FMA   float32 6×16 (12 YMM accumulators),  float64 6×8
//	portable Go  4×4 (tests; without the assembly, Sgemm and Dgemm are gonum's)
//
// # Speed
//
// On the project's 2-core Zen 5 class VM (AVX-512, peak about 237 GFLOP/s
// float32 and 118 float64 per core), measured while other jobs shared it: the
// AVX-512 kernels alone reach about 200 GFLOP/s float32 and 95 float64 with
// their operands in L1; whole square products of 256..1024 on one core
// 155-170 and 75-78 GFLOP/s (medians, with the assembly packing and edge
// kernels), against 10-20 and about 9 for gonum's pure-Go GEMM. PyTorch with
// one thread of OpenBLAS reached 113-153 and 54-71 on the same machine. The
// small products of the mlp_step and attention_backward workloads
// (BenchmarkShapes: 64×256×784, 128×128×64 and the like, all transposes)
// run at 130-170 GFLOP/s float32 and 65-80 float64 on one core.
// bench/README.md has the tables.
package gemm
