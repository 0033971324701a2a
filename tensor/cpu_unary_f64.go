package tensor

import "github.com/goagx/agx/tensor/internal/vmath"

// Float64 kernels for exp, log, sin, cos, tanh and erf.
//
// math.Exp, math.Log, math.Sin, math.Cos, math.Tanh and math.Erf are
// scalar calls; package vmath has kernels in Go and in AVX2 and AVX-512
// assembly (bit-identical to the Go kernels), 4 or 8 float64 per step. Log is
// fdlibm's, as Go's math.Log computes it, with subnormal x scaled first
// (which math.Log's amd64 assembly gets wrong). Sin and cos, for |x| <
// 2^20, reduce by π/2 in four parts and evaluate both polynomials; larger
// |x|, ±Inf and NaN go to math.Sin and math.Cos. Below 2^20 their outputs
// are within 2 ulp of sin and cos (near multiples of π closer than
// math.Sin's); above, they are math.Sin's and math.Cos's, which near
// multiples of π can be thousands of ulp off. Tanh is (e^2|x| - 1)/(e^2|x|
// + 1) with e^r - 1 to degree 13, within 2 ulp of math.Tanh. Erf is a +
// a·P(a²) below 1 and 1 - e^(-a²)·t·G(t) with t = 3/(3 + a) above, within
// 1 ulp of math.Erf. Exp returns math.Exp's bits (vmath.MathExps): on
// amd64 with AVX and FMA, where math.Exp is an assembly routine, kernels
// that run that routine's operations; elsewhere math.Exp itself. See the
// vmath tests.

// unaryFloat64Fast runs the float64 kernels of exp, log, sin, cos, tanh and erf
// over contiguous slices; it reports false for other ops.
func unaryFloat64Fast(op UnaryOp, dd, ss []float64) bool {
	switch op {
	case OpExp:
		vmath.MathExps(dd, ss)
	case OpLog:
		vmath.Log64s(dd, ss)
	case OpTanh:
		vmath.Tanh64s(dd, ss)
	case OpSin:
		vmath.Sin(dd, ss)
	case OpCos:
		vmath.Cos(dd, ss)
	case OpErf:
		vmath.Erf64s(dd, ss)
	default:
		return false
	}
	return true
}
