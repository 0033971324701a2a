package tensor

// blasName is set by the build that links a BLAS other than gonum's.
var blasName = "gonum (pure Go)"

// BLAS names the BLAS implementation MatMul runs on: gonum's pure-Go one by
// default, OpenBLAS in a build with the openblas tag.
func BLAS() string { return blasName }
