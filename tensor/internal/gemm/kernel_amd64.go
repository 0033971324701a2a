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

// The AVX-512 kernels take kc = 512: each call then loads and stores its C
// tile once per 512 steps instead of 256, and the packed A block (238×512
// float32, 168×512 float64: 476 and 672 KiB) still fits a 1 MiB L2 beside
// the B panel being read. The B micro-panel (64 KiB) no longer fits L1, but
// the kernels stream it from L2 without loss. nc is halved (float64:
// quartered) so that one packing buffer stays within stashMax. On a Zen 4
// core (agx bench -peak, square 1024 and 2048, runs alternating with kc =
// 256) this took float32 from 84-90 % to 88-91 % of peak and float64 from
// 82-86 % to 87-91 %. The AVX2 kernels gained nothing from a deeper kc
// there and keep 256.
var (
	kernelsF32 = []*kernel[float32]{
		{name: "avx512-14x32", mr: 14, nr: 32, mc: 238, kc: 512, nc: 1536, fn: kernF32x14x32AVX512, set: kernF32x14x32AVX512Set, edge: edgeF32x14x32AVX512},
		{name: "avx2-6x16", mr: 6, nr: 16, mc: 240, kc: 256, nc: 3072, fn: kernF32x6x16AVX2, set: kernF32x6x16AVX2Set},
		genericF32,
	}
	kernelsF64 = []*kernel[float64]{
		{name: "avx512-14x16", mr: 14, nr: 16, mc: 168, kc: 512, nc: 768, fn: kernF64x14x16AVX512, set: kernF64x14x16AVX512Set, edge: edgeF64x14x16AVX512},
		{name: "avx2-6x8", mr: 6, nr: 8, mc: 240, kc: 256, nc: 3072, fn: kernF64x6x8AVX2, set: kernF64x6x8AVX2Set},
		genericF64,
	}
)

// available reports which of kernelsF32/kernelsF64 (same order) this CPU
// runs. The environment variable AGX_GEMM_ISA, read once at start-up, can
// rule out the wider ones, so that a machine with AVX-512 measures what a
// machine with AVX2 only would run: "avx2" leaves the AVX2 kernels (and the
// Go packing), "go" leaves gonum's GEMM; other values change nothing here
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

// asmPack says whether packStrided and packContig use the AVX-512 packing
// routines; the tests turn it off to compare them with the Go code.
var asmPack = available()[0]

// packStridedAsm is packStrided in AVX-512 assembly: each group of 64 bytes
// of lanes (16 float32 or 8 float64) is transposed a block of as many steps
// at a time. It reports false, doing nothing, when asmPack is off.
func packStridedAsm[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) bool {
	if !asmPack {
		return false
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
		rows := min(max(n-i0, 0), l)
		sp := unsafe.Pointer(unsafe.SliceData(src))
		if rows > 0 {
			sp = unsafe.Pointer(&src[i0*ld])
		}
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

// packContigAsm is packContig in AVX-512 assembly, for micro-panels at most
// two vectors wide. It reports false, doing nothing, when asmPack is off or
// the panel is wider.
func packContigAsm[T float32 | float64](dst, src []T, ld, n, w, kcb int, alpha T) bool {
	lanes := 64 / int(unsafe.Sizeof(alpha))
	if !asmPack || w > 2*lanes {
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
