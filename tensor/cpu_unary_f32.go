package tensor

import (
	"github.com/goagx/agx/tensor/internal/vmath"
)

// Float32 kernels for exp, sigmoid, tanh, erf, sin, cos and log.
//
// The generic path converts each float32 to float64 and calls math.Exp,
// math.Tanh or math.Erf, which handle the whole float64 range and are not
// inlined. A float32 result needs far less; package vmath has kernels in Go
// and in AVX2/AVX-512 assembly, bit-identical to the Go kernels on every
// CPU: exp, sigmoid and tanh in float32 lanes after range reduction, at
// most 1, 2 and 3 ulp from float32(math.Exp(float64(x))) etc.; erf in
// float32 lanes, a polynomial for each of eight intervals, at most 1 ulp
// from float32(math.Erf(float64(x))); sin and cos reduced in float64 and
// evaluated in float32 lanes, at most 1 ulp from the float64 kernels'
// results rounded to float32 for |x| < 2^20 and math.Sin's and math.Cos's
// rounded above; log in float32 lanes, at most 1 ulp from
// float32(math.Log(float64(x))).
// See the vmath package comment and its tests.

// unaryFloat32Fast runs the float32 kernels of exp, sigmoid, tanh, erf,
// sin, cos and log over contiguous slices; it reports false for other ops.
func unaryFloat32Fast(op UnaryOp, dd, ss []float32) bool {
	switch op {
	case OpExp:
		vmath.Exp(dd, ss)
	case OpSigmoid:
		vmath.Sigmoid(dd, ss)
	case OpTanh:
		vmath.Tanh(dd, ss)
	case OpErf:
		vmath.Erf(dd, ss)
	case OpLog:
		vmath.Log32s(dd, ss)
	case OpSin:
		vmath.Sin32s(dd, ss)
	case OpCos:
		vmath.Cos32s(dd, ss)
	default:
		return false
	}
	return true
}
