package tensor

import (
	"github.com/goagx/agx/tensor/internal/vec"
	"github.com/goagx/agx/tensor/internal/vmath"
)

// Float32 kernels for exp, sigmoid, tanh and erf (and log, sin and cos
// through the float64 ones).
//
// The generic path converts each float32 to float64 and calls math.Exp,
// math.Tanh or math.Erf, which handle the whole float64 range and are not
// inlined. A float32 result needs far less; package vmath has kernels in Go
// and in AVX2/AVX-512 assembly, bit-identical to the Go kernels on every
// CPU: exp, sigmoid and tanh in float32 lanes after range reduction, at
// most 1, 2 and 3 ulp from float32(math.Exp(float64(x))) etc.; erf in
// float32 lanes, a polynomial for each of eight intervals, at most 1 ulp
// from float32(math.Erf(float64(x))); log as the float64 kernel rounded once,
// equal to float32(math.Log(float64(x))) over a sweep of the float32 range.
// See the vmath package comment and its tests.

// unaryFloat32Fast runs the float32 kernels of exp, sigmoid, tanh and erf,
// and log, sin and cos, over contiguous slices; it reports false for other
// ops.
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
	case OpSin, OpCos:
		trig32(op, dd, ss)
	default:
		return false
	}
	return true
}

// trig32 computes float32 sin or cos with vmath's float64 kernels (within 2
// ulp of math.Sin and math.Cos), a block at a time: each float32 widened
// exactly, the float64 result rounded once to float32, as the scalar
// functions of floatUnaryVMath do for strided rows.
func trig32(op UnaryOp, dd, ss []float32) {
	var buf [256]float64
	for len(ss) > 0 {
		b := buf[:min(len(ss), len(buf))]
		vec.Float32To64(b, ss[:len(b)])
		if op == OpSin {
			vmath.Sin(b, b)
		} else {
			vmath.Cos(b, b)
		}
		vec.Float64To32(dd[:len(b)], b)
		dd, ss = dd[len(b):], ss[len(b):]
	}
}
