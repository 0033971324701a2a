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
// over B panels, ir over A panels), so that the packed A block stays in L2
// and each B micro-panel is reused by all its A panels (from L1 with the
// AVX2 kernels' kc of 256, from L2 with the AVX-512 kernels' kc of 512,
// which halves the C tile's loads and stores; see kernelsF32). Packing absorbs the transposes (each operand is
// read along its rows whatever its layout) and zero-pads ragged edges, so the
// kernels see only full tiles. A tile that overhangs C goes, with AVX-512,
// to an edge kernel that computes only its rows (one generated kernel per
// row count) and stores only its columns (masked stores); the AVX2 kernels
// compute it into a scratch tile whose valid part is then added. The
// packing is assembly too (generated with the kernels), with either set of
// kernels: an operand read across its rows is transposed in registers a
// 16×16 (float64 8×8) block at a time with AVX-512, 8×8 (float64 4×4) with
// AVX2, and one read along its rows is copied a step at a time in vector
// registers (AVX-512: masked loads and stores, which also write the zero
// padding; AVX2: whole steps of the kernels' panel widths, with plain
// stores, since AVX2's masked stores are slow on AMD's cores). What the AVX2
// routines do not take (ragged edges, other widths, the steps past the last
// whole block) is packed by Go code, which is two to four times slower
// (BenchmarkPack). Packing buffers are 64-byte aligned
// and reused through a small stash that the collector does not empty. With
// beta == 0 the first k block stores its product without reading C. A
// product with few columns (a third or more of its last tiles' nr columns
// padding) and more rows, such as the logits of a 10-class layer, is
// computed as its transpose into a scratch matrix and transposed back, so
// that its tiles run along the long side of C and its short side goes to
// the edge kernels. In products (or stripes of one) at most 8 tiles wide
// (the batched 128×128×64 float32 products of attention), where each packed
// A panel would serve only a few tiles, the AVX2 kernels read the whole
// mr-row panels of A where they lie ("Strided" kernels, which take A's row
// and step distances) and only a ragged last panel is packed; a transposed
// A whose steps are more than 2 KiB apart is still packed (see inPlaceA).
// Both ways give the same bits. Float32
// products of at least 2²⁰ multiply-adds (float64: 2¹⁹) are cut into
// GOMAXPROCS stripes of whole tiles (along the larger of m and n), each
// packed and multiplied by one member of a resident team of goroutines
// (package team), which stays awake between the products of a step.
//
// # Kernels
//
// The kernels hold the C tile in 2·mr vector registers, two per row, and per
// k step load one row of the B panel (two vectors), broadcast each of the mr
// values of the A panel (or of A itself, for the Strided kernels) and issue
// 2·mr fused multiply-adds; the k loop is
// unrolled four times and the C tile prefetched at entry. They are generated
// by gen_kernels.go and chosen at run time with golang.org/x/sys/cpu:
//
//	AVX-512F     float32 14×32 (28 ZMM accumulators), float64 14×16
//	AVX2 + FMA   float32 6×16 (12 YMM accumulators),  float64 6×8
//	portable Go  4×4 (tests; without the assembly, Sgemm and Dgemm are gonum's)
//
// # Speed
//
// `agx bench -peak` measures one core's FMA peak (package bench/peak) and
// square products of 256..2048 at one thread as a fraction of it; with
// AGX_GEMM_ISA=avx2 in the environment an AVX-512 CPU runs the AVX2
// kernels and packing, as a CPU without AVX-512 would ("go" leaves gonum's
// GEMM). On the project's 2-core VM of November 2026, an AMD EPYC Zen 4
// whose cores split a 512-bit FMA into two 256-bit halves, both widths
// peak at 117 GFLOP/s float32 and 58.6 float64 per core, and the products
// reach, in the thread's CPU time (medians of 5 runs on the shared VM at a
// load of about 1; single runs a few per cent lower when another process
// shares the core):
//
//	                 256..512    1024..2048
//	AVX-512 float32  91-93 %     90-91 %
//	AVX-512 float64  90-92 %     87-89 %
//	AVX2 float32     89-92 %     91-93 %
//	AVX2 float64     88-91 %     88-89 %
//
// The kernels alone, with their panels in L1, run at 96-99 % of peak;
// packing and the caches take the rest. PyTorch's OpenBLAS 0.3.21 (its
// AVX-512 kernels, one thread) reaches 84-93 % there, so agx's MatMul is
// level with PyTorch's at one thread and ahead on two cores. On cores with
// full-width 512-bit FMA units (Zen 5, Intel's server cores) the AVX-512
// peak is twice the AVX2 one. docs/performance.md has the table.
package gemm
