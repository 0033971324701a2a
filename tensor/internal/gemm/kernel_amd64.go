package gemm

import "golang.org/x/sys/cpu"

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

var (
	kernelsF32 = []*kernel[float32]{
		{name: "avx512-14x32", mr: 14, nr: 32, mc: 238, kc: 256, nc: 3072, fn: kernF32x14x32AVX512, set: kernF32x14x32AVX512Set},
		{name: "avx2-6x16", mr: 6, nr: 16, mc: 240, kc: 256, nc: 3072, fn: kernF32x6x16AVX2, set: kernF32x6x16AVX2Set},
		genericF32,
	}
	kernelsF64 = []*kernel[float64]{
		{name: "avx512-14x16", mr: 14, nr: 16, mc: 238, kc: 256, nc: 3072, fn: kernF64x14x16AVX512, set: kernF64x14x16AVX512Set},
		{name: "avx2-6x8", mr: 6, nr: 8, mc: 240, kc: 256, nc: 3072, fn: kernF64x6x8AVX2, set: kernF64x6x8AVX2Set},
		genericF64,
	}
)

// available reports which of kernelsF32/kernelsF64 (same order) this CPU runs.
func available() []bool {
	avx2 := cpu.X86.HasAVX2 && cpu.X86.HasFMA
	avx512 := avx2 && cpu.X86.HasAVX512F
	return []bool{avx512, avx2, true}
}
