//go:build openblas

package tensor

import (
	"github.com/goagx/agx/tensor/internal/openblas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// With the openblas build tag, MatMul (and every other gonum BLAS call of the
// process) runs on the system's OpenBLAS through cgo (package
// tensor/internal/openblas; this package itself has no cgo). It needs a C
// toolchain and libopenblas (Debian: libopenblas-dev); OPENBLAS_NUM_THREADS
// sets its thread count.
func init() {
	blas32.Use(openblas.Implementation{})
	blas64.Use(openblas.Implementation{})
	linkedBLAS = func(impl any) (string, bool) {
		_, ok := impl.(openblas.Implementation)
		return openblas.Name(), ok
	}
}
