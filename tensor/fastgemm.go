package tensor

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/goagx/agx/tensor/internal/gemm"
)

// UseFastGEMM installs (on) or removes (off) agx's own pure-Go GEMM as the
// float32 and float64 BLAS behind MatMul, through blas32.Use and blas64.Use.
//
// The default build (without the openblas build tag) installs it when the
// package is initialised. It packs both operands into cache-sized panels and
// multiplies them with assembly micro-kernels (AVX-512 or AVX2+FMA on amd64,
// chosen at run time; portable Go elsewhere), splitting large products over
// the cores. It is several times faster than gonum's pure-Go Sgemm/Dgemm;
// bench/README.md has the figures. UseFastGEMM(false) restores gonum's
// implementation. A program that plugs in another BLAS (for example OpenBLAS
// through gonum.org/v1/netlib) calls blas32.Use / blas64.Use itself after
// this package's init, which replaces this one; MatMul uses whatever is
// installed. Like blas32.Use, it is not safe to call concurrently with MatMul.
func UseFastGEMM(on bool) {
	if on {
		blas32.Use(gemm.Implementation{})
		blas64.Use(gemm.Implementation{})
		return
	}
	blas32.Use(gonum.Implementation{})
	blas64.Use(gonum.Implementation{})
}

// gonumGEMM reports whether the BLAS installed for T is gonum's pure-Go one
// (after UseFastGEMM(false)), the only one that does not pack its operands,
// so that the layout of B matters to its speed.
func gonumGEMM[T Float]() bool {
	var z T
	if _, ok := any(z).(float32); ok {
		_, g := blas32.Implementation().(gonum.Implementation)
		return g
	}
	_, g := blas64.Implementation().(gonum.Implementation)
	return g
}
