package tensor

import "github.com/goagx/agx/tensor/internal/vmath"

// Float64 kernels for sin and cos.
//
// math.Sin and math.Cos are scalar calls; package vmath has kernels for
// |x| < 2^20 that reduce by π/2 in four parts and evaluate both polynomials,
// in Go and in AVX-512 assembly (bit-identical to the Go kernels), 8
// float64 per step; larger |x|, ±Inf and NaN go to math.Sin and math.Cos.
// Their outputs are within 2 ulp of sin and cos (see the vmath tests); near
// multiples of π they are closer than math.Sin's.

// unaryFloat64Fast runs the float64 kernels of sin and cos over contiguous
// slices; it reports false for other ops.
func unaryFloat64Fast(op UnaryOp, dd, ss []float64) bool {
	switch op {
	case OpSin:
		vmath.Sin(dd, ss)
	case OpCos:
		vmath.Cos(dd, ss)
	default:
		return false
	}
	return true
}
