package tensor

import "github.com/goagx/agx/tensor/internal/vmath"

// Float64 kernels for sin, cos and tanh.
//
// math.Sin, math.Cos and math.Tanh are scalar calls; package vmath has
// kernels in Go and in AVX-512 assembly (bit-identical to the Go kernels),
// 8 float64 per step. Sin and cos, for |x| < 2^20, reduce by π/2 in four
// parts and evaluate both polynomials; larger |x|, ±Inf and NaN go to
// math.Sin and math.Cos. Their outputs are within 2 ulp of sin and cos (near
// multiples of π closer than math.Sin's). Tanh is (e^2|x| - 1)/(e^2|x| + 1)
// with e^r - 1 to degree 13, within 2 ulp of math.Tanh. See the vmath tests.

// unaryFloat64Fast runs the float64 kernels of sin, cos and tanh over
// contiguous slices; it reports false for other ops.
func unaryFloat64Fast(op UnaryOp, dd, ss []float64) bool {
	switch op {
	case OpTanh:
		vmath.Tanh64s(dd, ss)
	case OpSin:
		vmath.Sin(dd, ss)
	case OpCos:
		vmath.Cos(dd, ss)
	default:
		return false
	}
	return true
}
