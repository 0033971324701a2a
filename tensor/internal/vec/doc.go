// Package vec holds agx's vectorised loops over contiguous float32 and float64
// slices: the four arithmetic operations (and Maximum, Minimum) between two
// slices or a slice and a scalar, also over many short rows in one call
// (BinaryRows: a broadcast such as an outer difference), the leaves of the pairwise sum and dot product (Sum, Dot), the
// folds of rows into one (SumRows, AddRows, MaxRows, MinRows), the
// backward of a softmax over rows (SoftmaxBackward), the fused gradients of sigmoid and
// tanh (GradMul), Relu, Sqrt, Axpby, MulAdd (a·b + c over three slices),
// MulMulAdd (a·b + c·d + e), the batch-norm sums SumDiffSq and SumDiffProd, the
// six comparisons into bools (Compare), the selection by a bool mask
// (Select, on raw 4- and 8-byte values), Neg, Abs, Round, Sign, Floor and
// Ceil (Unary) and Clamp. Package
// tensor calls them from its element-wise and reduction kernels for dense
// runs of elements.
//
// # Implementations
//
// On amd64 the loops are Go assembly (vec_amd64.s, written by gen.go): AVX2
// with four vectors per iteration, or AVX-512 with a masked tail, chosen at
// run time with golang.org/x/sys/cpu. Elsewhere, and on CPUs without AVX2,
// plain Go loops do the same work; they are also the reference the tests
// compare the assembly with.
//
// # Invariants
//
// Add, Sub, Mul and Div give exactly the results of the scalar Go expressions
// a+b, a-b, a*b and a/b, element by element (one IEEE rounding each; division
// is a true division, never a reciprocal estimate), on every implementation.
// Likewise GradMul (and Axpby, MulAdd, MulMulAdd, SumDiffSq, SumDiffProd,
// and SoftmaxBackward outside its dot products) rounds each of its operations, without fused
// multiply-adds; Relu, Compare and Select give the bits of ReluOf (x for a
// positive x or a NaN, else +0), Go's comparison operators and a bitwise
// select; Unary and Clamp the bits of NegOf, AbsOf, SignOf and ClampOf
// (-0 and NaNs kept where those keep them) and, but for a NaN's payload,
// RoundOf (ties to even), FloorOf and CeilOf.
// Sum's (and Dot's) order of additions is fixed by the package, not by the CPU: every
// implementation returns the same bits (see Sum). dst may be the same slice as
// an operand (dst = a op dst is an in-place update); partial overlaps are not
// allowed.
package vec
