//go:build openblas

package tensor

// #cgo LDFLAGS: -lopenblas
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

// With the openblas build tag, MatMul (and every other gonum BLAS call of the
// process) runs on the system's OpenBLAS through cgo. It needs a C toolchain
// and libopenblas (Debian: libopenblas-dev); OPENBLAS_NUM_THREADS sets its
// thread count.
func init() {
	blas32.Use(netlib.Implementation{})
	blas64.Use(netlib.Implementation{})
	copyBTransposed = false // OpenBLAS packs B itself
	blasName = "OpenBLAS (cgo, gonum.org/v1/netlib)"
}
