package tensor

import "github.com/goagx/agx/tensor/internal/gemm"

// blasName is set by the build that links a BLAS other than gonum's.
var blasName = "gonum (pure Go)"

// BLAS names the BLAS implementation MatMul runs on: agx's own GEMM (pure Go
// with assembly micro-kernels, see UseFastGEMM; the names of its float32 and
// float64 kernels follow) by default, OpenBLAS (with
// its thread count) in a build with the openblas tag, or gonum's pure-Go
// BLAS when neither is in use.
func BLAS() string {
	if packingGEMM[float32]() {
		f32, f64 := gemm.Kernels()
		return "agx GEMM (pure Go, micro-kernels " + f32 + " and " + f64 + ")"
	}
	return blasName
}
