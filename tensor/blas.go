package tensor

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/goagx/agx/tensor/internal/gemm"
)

// linkedBLAS, set by a build that links a BLAS of its own (the openblas
// tag), names that BLAS if impl is it.
var linkedBLAS func(impl any) (name string, ok bool)

// BLAS names the BLAS implementation MatMul runs on, the one installed as
// gonum's float32 BLAS now: agx's own GEMM (pure Go with assembly
// micro-kernels, see UseFastGEMM; the names of its float32 and float64
// kernels follow) by default, OpenBLAS (with its thread count) in a build
// with the openblas tag, gonum's pure-Go BLAS after UseFastGEMM(false), or
// the type of one the program installed itself.
func BLAS() string {
	impl := blas32.Implementation()
	switch impl.(type) {
	case gemm.Implementation:
		f32, f64 := gemm.Kernels()
		return "agx GEMM (pure Go, micro-kernels " + f32 + " and " + f64 + ")"
	case gonum.Implementation:
		return "gonum (pure Go)"
	}
	if linkedBLAS != nil {
		if name, ok := linkedBLAS(impl); ok {
			return name
		}
	}
	return fmt.Sprintf("%T (installed by the program)", impl)
}
