//go:build !openblas

package tensor

// The default build multiplies matrices with agx's own GEMM; a build with the
// openblas tag installs OpenBLAS instead.
func init() { UseFastGEMM(true) }
