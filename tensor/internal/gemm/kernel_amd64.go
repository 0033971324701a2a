package gemm

import (
	"os"
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:generate go run gen_kernels.go

//go:noescape
func kernF32x6x16AVX2(k int, a, b, c *float32, ldc int)

//go:noescape
func kernF32x6x16AVX2Set(k int, a, b, c *float32, ldc int)

//go:noescape
func kernF64x6x8AVX2(k int, a, b, c *float64, ldc int)

//go:noescape
func kernF64x6x8AVX2Set(k int, a, b, c *float64, ldc int)

//go:noescape
func kernF32x6x16AVX2Strided(k int, a, b, c *float32, ldc, rs, ps int)

//go:noescape
func kernF32x6x16AVX2StridedSet(k int, a, b, c *float32, ldc, rs, ps int)

//go:noescape
func kernF64x6x8AVX2Strided(k int, a, b, c *float64, ldc, rs, ps int)

//go:noescape
func kernF64x6x8AVX2StridedSet(k int, a, b, c *float64, ldc, rs, ps int)

//go:noescape
func kernF32x14x32AVX512(k int, a, b, c *float32, ldc int)

//go:noescape
func kernF32x14x32AVX512Set(k int, a, b, c *float32, ldc int)

//go:noescape
func kernF64x14x16AVX512(k int, a, b, c *float64, ldc int)

//go:noescape
func kernF64x14x16AVX512Set(k int, a, b, c *float64, ldc int)

//go:noescape
func packTF32AVX512(dst, src *float32, ld, w, rows, steps int, mask uint64, alpha float32)

//go:noescape
func packTF64AVX512(dst, src *float64, ld, w, rows, steps int, mask uint64, alpha float64)

//go:noescape
func packNF32AVX512(dst, src *float32, ld, w, steps int, load, store uint64, alpha float32)

//go:noescape
func packNF64AVX512(dst, src *float64, ld, w, steps int, load, store uint64, alpha float64)

//go:noescape
func packTF32AVX2(dst, src *float32, ld, w, rows, blocks, store int, alpha float32)

//go:noescape
func packTF64AVX2(dst, src *float64, ld, w, rows, blocks, store int, alpha float64)

//go:noescape
func packNF32AVX2(dst, src *float32, ld, w, steps int, alpha float32)

//go:noescape
func packNF64AVX2(dst, src *float64, ld, w, steps int, alpha float64)

// The AVX-512 kernels take kc = 512: each call then loads and stores its C
// tile once per 512 steps instead of 256, and the packed A block (238×512
// float32, 168×512 float64: 476 and 672 KiB) still fits a 1 MiB L2 beside
// the B panel being read. The B micro-panel (64 KiB) no longer fits L1, but
// the kernels stream it from L2 without loss. On a Zen 4 core (agx bench
// -peak, square 1024 and 2048, runs alternating with kc = 256) this took
// float32 from 84-90 % to 88-91 % of peak and float64 from 82-86 % to
// 87-91 %. nc is 1536 (float32) and 1024 (float64) columns, so that one
// packing buffer stays within stashMax while a product 1024 wide is one
// block: with 768 float64 columns it took a second, 256-wide block, for
// which all of A was packed again (9 % of the product on a Zen 5 against
// 4-5 %; emitPrefetchC in gen_kernels.go has the figures). The AVX2
// kernels gained nothing from a deeper kc on the Zen 4 and keep 256. Their
// float64 blocks take the bytes of the float32 ones (a 120×256 A block of
// 240 KiB, nc = 1536): against mc = 240 and nc = 3072, that took float64
// at 512 from 85-86 % to 86-89 % on the same core.
var (
	kernelsF32 = []*kernel[float32]{
		{name: "avx512-14x32", mr: 14, nr: 32, mc: 238, kc: 512, nc: 1536, fn: kernF32x14x32AVX512, set: kernF32x14x32AVX512Set, edge: edgeF32x14x32AVX512},
		{name: "avx2-6x16", mr: 6, nr: 16, mc: 240, kc: 256, nc: 3072, fn: kernF32x6x16AVX2, set: kernF32x6x16AVX2Set,
			strided: stridedKernels[float32]{kernF32x6x16AVX2Strided, kernF32x6x16AVX2StridedSet}},
		genericF32,
	}
	kernelsF64 = []*kernel[float64]{
		{name: "avx512-14x16", mr: 14, nr: 16, mc: 168, kc: 512, nc: 1024, fn: kernF64x14x16AVX512, set: kernF64x14x16AVX512Set, edge: edgeF64x14x16AVX512},
		{name: "avx2-6x8", mr: 6, nr: 8, mc: 120, kc: 256, nc: 1536, fn: kernF64x6x8AVX2, set: kernF64x6x8AVX2Set,
			strided: stridedKernels[float64]{kernF64x6x8AVX2Strided, kernF64x6x8AVX2StridedSet}},
		genericF64,
	}
)

// available reports which of kernelsF32/kernelsF64 (same order) this CPU
// runs. The environment variable AGX_GEMM_ISA, read once at start-up, can
// rule out the wider ones, so that a machine with AVX-512 measures what a
// machine with AVX2 only would run: "avx2" leaves the AVX2 kernels (and the
// AVX2 packing), "go" leaves gonum's GEMM; other values change nothing here
// (agx bench refuses to run with them).
func available() []bool {
	avx2 := cpu.X86.HasAVX2 && cpu.X86.HasFMA
	avx512 := avx2 && cpu.X86.HasAVX512F
	switch isaLimit {
	case "avx2":
		avx512 = false
	case "go":
		avx2, avx512 = false, false
	}
	return []bool{avx512, avx2, true}
}

var isaLimit = os.Getenv("AGX_GEMM_ISA")

// asmPack says which packing routines packStrided and packContig use: the
// AVX-512 ones with the AVX-512 kernels, the AVX2 ones with the AVX2
// kernels (also when AGX_GEMM_ISA=avx2 rules out AVX-512), Go's code
// without either; the tests switch it to compare them.
var asmPack = func() packing {
	switch a := available(); {
	case a[0]:
		return packAVX512
	case a[1]:
		return packAVX2
	}
	return packGo
}()

// packings lists the packing routines this CPU runs, for the tests.
func packings() []packing {
	p := []packing{packGo}
	if cpu.X86.HasAVX2 {
		p = append(p, packAVX2)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasAVX512F {
		p = append(p, packAVX512)
	}
	return p
}

// packStridedAsm is packStrided in assembly. With AVX-512, each group of 64
// bytes of lanes (16 float32 or 8 float64) is transposed a block of as many
// steps at a time; with AVX2, see packStridedAVX2. It reports false, doing
// nothing, when asmPack is packGo or the AVX2 routine does not take w.
func packStridedAsm[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) bool {
	switch asmPack {
	case packGo:
		return false
	case packAVX2:
		return packStridedAVX2(dst, src, ld, n, w, kcb, alpha)
	}
	if kcb == 0 {
		return true
	}
	_ = dst[kcb*w-1]
	if n > 0 {
		_ = src[(n-1)*ld+kcb-1]
	}
	lanes := 64 / int(unsafe.Sizeof(alpha))
	for i0 := 0; i0 < w; i0 += lanes {
		l := min(lanes, w-i0)
		sp, rows := laneGroup(src, ld, n, i0, l)
		dp := unsafe.Pointer(&dst[i0])
		mask := uint64(1)<<l - 1
		if lanes == 16 {
			packTF32AVX512((*float32)(dp), (*float32)(sp), ld, w, rows, kcb, mask, float32(alpha))
		} else {
			packTF64AVX512((*float64)(dp), (*float64)(sp), ld, w, rows, kcb, mask, float64(alpha))
		}
	}
	return true
}

// packContigAsm is packContig in assembly: with AVX-512 for micro-panels at
// most two vectors wide, with AVX2 see packContigAVX2. It reports false,
// doing nothing, when asmPack is packGo or the routine does not take the
// panel.
func packContigAsm[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) bool {
	switch asmPack {
	case packGo:
		return false
	case packAVX2:
		return packContigAVX2(dst, src, ld, n, w, kcb, alpha)
	}
	lanes := 64 / int(unsafe.Sizeof(alpha))
	if w > 2*lanes {
		return false
	}
	if kcb == 0 {
		return true
	}
	_ = dst[kcb*w-1]
	sp := unsafe.Pointer(unsafe.SliceData(src))
	if n > 0 {
		_ = src[(kcb-1)*ld+n-1]
		sp = unsafe.Pointer(&src[0])
	}
	dp := unsafe.Pointer(&dst[0])
	load, store := uint64(1)<<n-1, uint64(1)<<w-1
	if lanes == 16 {
		packNF32AVX512((*float32)(dp), (*float32)(sp), ld, w, kcb, load, store, float32(alpha))
	} else {
		packNF64AVX512((*float64)(dp), (*float64)(sp), ld, w, kcb, load, store, float64(alpha))
	}
	return true
}

// packStridedAVX2 is packStrided with the AVX2 routines (packTF32AVX2,
// packTF64AVX2) for the micro-panels of the AVX2 kernels (A: 6 rows; B: 16
// float32 or 8 float64 columns) and other widths whose last group of lanes
// is 16 or 24 bytes: each group of 32 bytes of lanes is transposed 8
// (float64: 4) steps at a time, and the steps past the last whole block go
// to the Go code. It reports false, doing nothing, for other widths.
func packStridedAVX2[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) bool {
	size := int(unsafe.Sizeof(alpha))
	lanes := 32 / size
	// The widths of packWidths in gen_kernels.go: the routine stores
	// nothing for others.
	if r := w % lanes * size; r != 0 && r != 16 && r != 24 {
		return false
	}
	if kcb == 0 || w == 0 {
		return true
	}
	_ = dst[kcb*w-1]
	if n > 0 {
		_ = src[(n-1)*ld+kcb-1]
	}
	blocks := kcb / lanes
	for i0 := 0; i0 < w && blocks > 0; i0 += lanes {
		l := min(lanes, w-i0)
		sp, rows := laneGroup(src, ld, n, i0, l)
		dp := unsafe.Pointer(&dst[i0])
		if size == 4 {
			packTF32AVX2((*float32)(dp), (*float32)(sp), ld, w, rows, blocks, l*size, float32(alpha))
		} else {
			packTF64AVX2((*float64)(dp), (*float64)(sp), ld, w, rows, blocks, l*size, float64(alpha))
		}
	}
	if done := blocks * lanes; done < kcb {
		packStridedBlock(dst[done*w:], src[done:], ld, n, w, kcb-done, alpha)
	}
	return true
}

// packContigAVX2 is packContig with the AVX2 routines (packNF32AVX2,
// packNF64AVX2) for panels whose steps are whole (n = w) and 16, 24, 32, 48
// or 64 bytes wide: the AVX2 kernels' B panels (64 bytes) and A panels (6
// values). It reports false, doing nothing, for other panels.
func packContigAVX2[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) bool {
	if n != w {
		return false
	}
	switch w * int(unsafe.Sizeof(alpha)) {
	case 16, 24, 32, 48, 64: // the loops of emitPackN2 in gen_kernels.go
	default:
		return false
	}
	if kcb == 0 {
		return true
	}
	_ = dst[kcb*w-1]
	_ = src[(kcb-1)*ld+n-1]
	dp, sp := unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0])
	if unsafe.Sizeof(alpha) == 4 {
		packNF32AVX2((*float32)(dp), (*float32)(sp), ld, w, kcb, float32(alpha))
	} else {
		packNF64AVX2((*float64)(dp), (*float64)(sp), ld, w, kcb, float64(alpha))
	}
	return true
}

// laneGroup returns where the rows i0.. of a group of l lanes start in src
// (rows ld apart), and how many of the n rows the group holds.
func laneGroup[T float32 | float64](src []T, ld, n, i0, l int) (unsafe.Pointer, int) {
	rows := min(max(n-i0, 0), l)
	if rows == 0 {
		return unsafe.Pointer(unsafe.SliceData(src)), 0
	}
	return unsafe.Pointer(&src[i0*ld]), rows
}
