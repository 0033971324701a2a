package vmath

import "golang.org/x/sys/cpu"

//go:generate go run gen_kernels.go

//go:noescape
func expAVX2(dst, src *float32, n int)

//go:noescape
func sigmoidAVX2(dst, src *float32, n int)

//go:noescape
func tanhAVX2(dst, src *float32, n int)

//go:noescape
func expAVX512(dst, src *float32, n int)

//go:noescape
func sigmoidAVX512(dst, src *float32, n int)

//go:noescape
func tanhAVX512(dst, src *float32, n int)

//go:noescape
func erfAVX2(dst, src *float32, n int)

//go:noescape
func erfAVX512(dst, src *float32, n int)

//go:noescape
func geluAVX2(dst, src *float32, n int)

//go:noescape
func geluAVX512(dst, src *float32, n int)

// sinCosAVX512 sets dst[i] to sin src[i] (q0 = 0) or cos src[i] (q0 = 1)
// for i < n and reports whether some |src[i]| was not below trigMax or was
// NaN; for those it stores src[i] unchanged, for the caller to replace.
//
//go:noescape
func sinCosAVX512(dst, src *float64, n int, q0 uint64) bool

// sinCosAVX2 is sinCosAVX512 for n a multiple of 4.
//
//go:noescape
func sinCosAVX2(dst, src *float64, n int, q0 uint64) bool

// sinCos32AVX512 is sinCosAVX512 for float32: dst[i] = sin src[i] (q0 = 0)
// or cos src[i] (q0 = 1), with !(|src[i]| < 2^20) stored unchanged and
// reported.
//
//go:noescape
func sinCos32AVX512(dst, src *float32, n int, q0 uint32) bool

// sinCos32AVX2 is sinCos32AVX512 for n a multiple of 8.
//
//go:noescape
func sinCos32AVX2(dst, src *float32, n int, q0 uint32) bool

//go:noescape
func tanh64AVX512(dst, src *float64, n int)

//go:noescape
func tanh64AVX2(dst, src *float64, n int)

//go:noescape
func exp64AVX512(dst, src *float64, n int)

//go:noescape
func exp64AVX2(dst, src *float64, n int)

//go:noescape
func mathExpAVX512(dst, src *float64, n int)

// mathExpAVX2 uses FMA instructions: see mathExpKernels.
//
//go:noescape
func mathExpAVX2(dst, src *float64, n int)

//go:noescape
func log64AVX512(dst, src *float64, n int)

//go:noescape
func log64AVX2(dst, src *float64, n int)

//go:noescape
func log32AVX512(dst, src *float32, n int)

//go:noescape
func log32AVX2(dst, src *float32, n int)

//go:noescape
func erf64AVX512(dst, src *float64, n int)

//go:noescape
func erf64AVX2(dst, src *float64, n int)

func detect() int {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512DQ:
		return levelAVX512
	case cpu.X86.HasAVX2:
		return levelAVX2
	}
	return levelGo
}

// simd runs the kernel of the current level over a prefix of src and returns
// its length; the caller finishes the rest in Go. The AVX2 kernels take
// multiples of avx2Lanes.
func simd(avx512, avx2 func(dst, src *float32, n int), avx2Lanes int, dst, src []float32) int {
	switch level {
	case levelAVX512:
		if len(src) > 0 {
			avx512(&dst[0], &src[0], len(src))
		}
		return len(src)
	case levelAVX2:
		n := len(src) / avx2Lanes * avx2Lanes
		if n > 0 {
			avx2(&dst[0], &src[0], n)
		}
		return n
	}
	return 0
}

func expSIMD(dst, src []float32) int     { return simd(expAVX512, expAVX2, 8, dst, src) }
func sigmoidSIMD(dst, src []float32) int { return simd(sigmoidAVX512, sigmoidAVX2, 8, dst, src) }
func tanhSIMD(dst, src []float32) int    { return simd(tanhAVX512, tanhAVX2, 8, dst, src) }
func erfSIMD(dst, src []float32) int     { return simd(erfAVX512, erfAVX2, 8, dst, src) }
func geluSIMD(dst, src []float32) int    { return simd(geluAVX512, geluAVX2, 8, dst, src) }
func log32SIMD(dst, src []float32) int   { return simd(log32AVX512, log32AVX2, 8, dst, src) }

// simd64 runs the float64 kernel of the current level over a prefix of src
// and returns its length, as simd does; the AVX2 kernels take multiples of
// 4.
func simd64(avx512, avx2 func(dst, src *float64, n int), dst, src []float64) int {
	switch level {
	case levelAVX512:
		if len(src) > 0 {
			avx512(&dst[0], &src[0], len(src))
		}
		return len(src)
	case levelAVX2:
		n := len(src) / 4 * 4
		if n > 0 {
			avx2(&dst[0], &src[0], n)
		}
		return n
	}
	return 0
}

func trigSIMD(dst, src []float64, q0 uint64) (int, bool) {
	switch level {
	case levelAVX512:
		if len(src) > 0 {
			return len(src), sinCosAVX512(&dst[0], &src[0], len(src), q0)
		}
	case levelAVX2:
		if n := len(src) / 4 * 4; n > 0 {
			return n, sinCosAVX2(&dst[0], &src[0], n, q0)
		}
	}
	return 0, false
}

func tanh64SIMD(dst, src []float64) int { return simd64(tanh64AVX512, tanh64AVX2, dst, src) }

func erf64SIMD(dst, src []float64) int { return simd64(erf64AVX512, erf64AVX2, dst, src) }

func exp64SIMD(dst, src []float64) int   { return simd64(exp64AVX512, exp64AVX2, dst, src) }
func mathExpSIMD(dst, src []float64) int { return simd64(mathExpAVX512, mathExpAVX2, dst, src) }

func log64SIMD(dst, src []float64) int { return simd64(log64AVX512, log64AVX2, dst, src) }

// trig32SIMD runs sinCos32 (q0 = 0: sin, 1: cos) over a prefix of src, as
// trigSIMD does: it returns the prefix's length and whether some lane was
// out of range (stored unchanged).
func trig32SIMD(dst, src []float32, q0 uint32) (int, bool) {
	switch level {
	case levelAVX512:
		if len(src) > 0 {
			return len(src), sinCos32AVX512(&dst[0], &src[0], len(src), q0)
		}
	case levelAVX2:
		if n := len(src) / 8 * 8; n > 0 {
			return n, sinCos32AVX2(&dst[0], &src[0], n, q0)
		}
	}
	return 0, false
}
