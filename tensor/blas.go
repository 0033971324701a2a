package tensor

// blasName is set by the build that links a BLAS other than gonum's.
var blasName = "gonum (pure Go)"

// BLAS names the BLAS implementation MatMul runs on: agx's own GEMM (pure Go
// with assembly micro-kernels, see UseFastGEMM) by default, OpenBLAS (with
// its thread count) in a build with the openblas tag, or gonum's pure-Go
// BLAS when neither is in use.
func BLAS() string {
	if packingGEMM[float32]() {
		return "agx GEMM (pure Go, assembly micro-kernels)"
	}
	return blasName
}
