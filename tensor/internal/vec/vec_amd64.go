package vec

import "golang.org/x/sys/cpu"

// Routines of vec_amd64.s. vv computes dst[i] = a[i] op b[i], vs dst[i] =
// a[i] op s, sv dst[i] = s op a[i], for i < n.

//go:noescape
func vvAddF32AVX2(dst, a, b *float32, n int)

//go:noescape
func vvSubF32AVX2(dst, a, b *float32, n int)

//go:noescape
func vvMulF32AVX2(dst, a, b *float32, n int)

//go:noescape
func vvDivF32AVX2(dst, a, b *float32, n int)

//go:noescape
func vsAddF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func vsSubF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func vsMulF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func vsDivF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func svAddF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func svSubF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func svMulF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func svDivF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func vvAddF64AVX2(dst, a, b *float64, n int)

//go:noescape
func vvSubF64AVX2(dst, a, b *float64, n int)

//go:noescape
func vvMulF64AVX2(dst, a, b *float64, n int)

//go:noescape
func vvDivF64AVX2(dst, a, b *float64, n int)

//go:noescape
func vsAddF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func vsSubF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func vsMulF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func vsDivF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func svAddF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func svSubF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func svMulF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func svDivF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func vvAddF32AVX512(dst, a, b *float32, n int)

//go:noescape
func vvSubF32AVX512(dst, a, b *float32, n int)

//go:noescape
func vvMulF32AVX512(dst, a, b *float32, n int)

//go:noescape
func vvDivF32AVX512(dst, a, b *float32, n int)

//go:noescape
func vsAddF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func vsSubF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func vsMulF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func vsDivF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func svAddF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func svSubF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func svMulF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func svDivF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func vvAddF64AVX512(dst, a, b *float64, n int)

//go:noescape
func vvSubF64AVX512(dst, a, b *float64, n int)

//go:noescape
func vvMulF64AVX512(dst, a, b *float64, n int)

//go:noescape
func vvDivF64AVX512(dst, a, b *float64, n int)

//go:noescape
func vsAddF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func vsSubF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func vsMulF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func vsDivF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func svAddF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func svSubF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func svMulF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func svDivF64AVX512(dst, a *float64, s float64, n int)

// Maximum and Minimum take x (a[i], or s for sv) where x is NaN, else
// the VMAX/VMIN result (see gen.go).

//go:noescape
func vvMaximumF32AVX2(dst, a, b *float32, n int)

//go:noescape
func vvMinimumF32AVX2(dst, a, b *float32, n int)

//go:noescape
func vsMaximumF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func vsMinimumF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func svMaximumF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func svMinimumF32AVX2(dst, a *float32, s float32, n int)

//go:noescape
func vvMaximumF64AVX2(dst, a, b *float64, n int)

//go:noescape
func vvMinimumF64AVX2(dst, a, b *float64, n int)

//go:noescape
func vsMaximumF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func vsMinimumF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func svMaximumF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func svMinimumF64AVX2(dst, a *float64, s float64, n int)

//go:noescape
func vvMaximumF32AVX512(dst, a, b *float32, n int)

//go:noescape
func vvMinimumF32AVX512(dst, a, b *float32, n int)

//go:noescape
func vsMaximumF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func vsMinimumF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func svMaximumF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func svMinimumF32AVX512(dst, a *float32, s float32, n int)

//go:noescape
func vvMaximumF64AVX512(dst, a, b *float64, n int)

//go:noescape
func vvMinimumF64AVX512(dst, a, b *float64, n int)

//go:noescape
func vsMaximumF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func vsMinimumF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func svMaximumF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func svMinimumF64AVX512(dst, a *float64, s float64, n int)

//go:noescape
func sumLeafF32AVX2(v *float32, n int) float32

//go:noescape
func sumLeafF64AVX2(v *float64, n int) float64

//go:noescape
func sumRowsF32AVX2(dst, src *float32, n, m, stride int)

//go:noescape
func sumRowsF64AVX2(dst, src *float64, n, m, stride int)

//go:noescape
func addRowsF32AVX2(dst, src *float32, n, m, stride int)

//go:noescape
func addRowsF64AVX2(dst, src *float64, n, m, stride int)

//go:noescape
func maxRowsF32AVX2(dst, src *float32, n, m, stride int)

//go:noescape
func minRowsF32AVX2(dst, src *float32, n, m, stride int)

//go:noescape
func maxRowsF64AVX2(dst, src *float64, n, m, stride int)

//go:noescape
func minRowsF64AVX2(dst, src *float64, n, m, stride int)

//go:noescape
func dotLeafF32AVX2(a, b *float32, n int) float32

//go:noescape
func dotLeafF64AVX2(a, b *float64, n int) float64

// The extreme leaves take a positive multiple of 32 float32 (16 float64)
// elements and also report whether a NaN may be among them (see Max).

//go:noescape
func maxLeafF32AVX2(v *float32, n int) (m float32, nan bool)

//go:noescape
func minLeafF32AVX2(v *float32, n int) (m float32, nan bool)

//go:noescape
func maxLeafF64AVX2(v *float64, n int) (m float64, nan bool)

//go:noescape
func minLeafF64AVX2(v *float64, n int) (m float64, nan bool)

var (
	hasAVX2   = cpu.X86.HasAVX2
	hasAVX512 = hasAVX2 && cpu.X86.HasAVX512F
)

func avx2Impl32() *impl[float32] {
	return &impl[float32]{
		name:    "avx2",
		vv:      [numOps]func(dst, a, b *float32, n int){vvAddF32AVX2, vvSubF32AVX2, vvMulF32AVX2, vvDivF32AVX2, vvMaximumF32AVX2, vvMinimumF32AVX2},
		vs:      [numOps]func(dst, a *float32, s float32, n int){vsAddF32AVX2, vsSubF32AVX2, vsMulF32AVX2, vsDivF32AVX2, vsMaximumF32AVX2, vsMinimumF32AVX2},
		sv:      [numOps]func(dst, a *float32, s float32, n int){svAddF32AVX2, svSubF32AVX2, svMulF32AVX2, svDivF32AVX2, svMaximumF32AVX2, svMinimumF32AVX2},
		sumLeaf: sumLeafF32AVX2,
		sumRows: sumRowsF32AVX2,
		addRows: addRowsF32AVX2,
		maxRows: maxRowsF32AVX2,
		minRows: minRowsF32AVX2,
		dotLeaf: dotLeafF32AVX2,
		maxLeaf: maxLeafF32AVX2,
		minLeaf: minLeafF32AVX2,
		kernels: kernelsAVX2F32(),
	}
}

func avx2Impl64() *impl[float64] {
	return &impl[float64]{
		name:    "avx2",
		vv:      [numOps]func(dst, a, b *float64, n int){vvAddF64AVX2, vvSubF64AVX2, vvMulF64AVX2, vvDivF64AVX2, vvMaximumF64AVX2, vvMinimumF64AVX2},
		vs:      [numOps]func(dst, a *float64, s float64, n int){vsAddF64AVX2, vsSubF64AVX2, vsMulF64AVX2, vsDivF64AVX2, vsMaximumF64AVX2, vsMinimumF64AVX2},
		sv:      [numOps]func(dst, a *float64, s float64, n int){svAddF64AVX2, svSubF64AVX2, svMulF64AVX2, svDivF64AVX2, svMaximumF64AVX2, svMinimumF64AVX2},
		sumLeaf: sumLeafF64AVX2,
		sumRows: sumRowsF64AVX2,
		addRows: addRowsF64AVX2,
		maxRows: maxRowsF64AVX2,
		minRows: minRowsF64AVX2,
		dotLeaf: dotLeafF64AVX2,
		maxLeaf: maxLeafF64AVX2,
		minLeaf: minLeafF64AVX2,
		kernels: kernelsAVX2F64(),
	}
}

// The AVX-512 implementations share the AVX2 sum and dot leaves and row
// loops: a sum is
// one stream of loads (a dot product two), which AVX2 already runs at the
// speed of the caches.

func avx512Impl32() *impl[float32] {
	return &impl[float32]{
		name:    "avx512",
		vv:      [numOps]func(dst, a, b *float32, n int){vvAddF32AVX512, vvSubF32AVX512, vvMulF32AVX512, vvDivF32AVX512, vvMaximumF32AVX512, vvMinimumF32AVX512},
		vs:      [numOps]func(dst, a *float32, s float32, n int){vsAddF32AVX512, vsSubF32AVX512, vsMulF32AVX512, vsDivF32AVX512, vsMaximumF32AVX512, vsMinimumF32AVX512},
		sv:      [numOps]func(dst, a *float32, s float32, n int){svAddF32AVX512, svSubF32AVX512, svMulF32AVX512, svDivF32AVX512, svMaximumF32AVX512, svMinimumF32AVX512},
		sumLeaf: sumLeafF32AVX2,
		sumRows: sumRowsF32AVX2,
		addRows: addRowsF32AVX2,
		maxRows: maxRowsF32AVX2,
		minRows: minRowsF32AVX2,
		dotLeaf: dotLeafF32AVX2,
		maxLeaf: maxLeafF32AVX2,
		minLeaf: minLeafF32AVX2,
		kernels: kernelsAVX512F32(),
	}
}

func avx512Impl64() *impl[float64] {
	return &impl[float64]{
		name:    "avx512",
		vv:      [numOps]func(dst, a, b *float64, n int){vvAddF64AVX512, vvSubF64AVX512, vvMulF64AVX512, vvDivF64AVX512, vvMaximumF64AVX512, vvMinimumF64AVX512},
		vs:      [numOps]func(dst, a *float64, s float64, n int){vsAddF64AVX512, vsSubF64AVX512, vsMulF64AVX512, vsDivF64AVX512, vsMaximumF64AVX512, vsMinimumF64AVX512},
		sv:      [numOps]func(dst, a *float64, s float64, n int){svAddF64AVX512, svSubF64AVX512, svMulF64AVX512, svDivF64AVX512, svMaximumF64AVX512, svMinimumF64AVX512},
		sumLeaf: sumLeafF64AVX2,
		sumRows: sumRowsF64AVX2,
		addRows: addRowsF64AVX2,
		maxRows: maxRowsF64AVX2,
		minRows: minRowsF64AVX2,
		dotLeaf: dotLeafF64AVX2,
		maxLeaf: maxLeafF64AVX2,
		minLeaf: minLeafF64AVX2,
		kernels: kernelsAVX512F64(),
	}
}

// impls32 lists the float32 implementations this CPU runs, preferred first.
func impls32() []*impl[float32] {
	var l []*impl[float32]
	if hasAVX512 {
		l = append(l, avx512Impl32())
	}
	if hasAVX2 {
		l = append(l, avx2Impl32())
	}
	return append(l, goImpl[float32]())
}

// impls64 lists the float64 implementations this CPU runs, preferred first.
func impls64() []*impl[float64] {
	var l []*impl[float64]
	if hasAVX512 {
		l = append(l, avx512Impl64())
	}
	if hasAVX2 {
		l = append(l, avx2Impl64())
	}
	return append(l, goImpl[float64]())
}
