package tensor

import "github.com/goagx/agx/tensor/internal/vec"

// The bridge from the generic kernels to package vec's vectorised loops
// (AVX2/AVX-512 assembly on amd64, plain Go elsewhere), for dense runs of
// float32 and float64. vec gives the same bits as the scalar loops, so the
// kernels may use it or not as speed dictates.

// vecMin is the shortest run handed to package vec: below it the dispatch (a
// type switch and an indirect call) costs more than the vector loop saves.
const vecMin = 16

// vecOp maps the four arithmetic ops to vec's.
func vecOp(op BinaryOp) (vec.Op, bool) {
	switch op {
	case OpAdd:
		return vec.Add, true
	case OpSub:
		return vec.Sub, true
	case OpMul:
		return vec.Mul, true
	case OpDiv:
		return vec.Div, true
	}
	return 0, false
}

// vecArith reports whether arithKernel[T] runs op with package vec.
func vecArith[T Num](op BinaryOp) bool {
	if _, ok := vecOp(op); !ok {
		return false
	}
	var z T
	switch any(z).(type) {
	case float32, float64:
		return true
	}
	return false
}

// vecBinary sets d[i] = a[i] op b[i] with package vec and reports whether it
// did (T float, op arithmetic, the run long enough). The slices have equal
// lengths; d may be a or b.
func vecBinary[T Num](op BinaryOp, d, a, b []T) bool {
	o, ok := vecOp(op)
	if !ok || len(d) < vecMin {
		return false
	}
	switch dd := any(d).(type) {
	case []float32:
		vec.Binary(o, dd, any(a).([]float32), any(b).([]float32))
	case []float64:
		vec.Binary(o, dd, any(a).([]float64), any(b).([]float64))
	default:
		return false
	}
	return true
}

// vecBinaryScalar is vecBinary for d[i] = a[i] op s.
func vecBinaryScalar[T Num](op BinaryOp, d, a []T, s T) bool {
	o, ok := vecOp(op)
	if !ok || len(d) < vecMin {
		return false
	}
	switch dd := any(d).(type) {
	case []float32:
		vec.BinaryScalar(o, dd, any(a).([]float32), any(s).(float32))
	case []float64:
		vec.BinaryScalar(o, dd, any(a).([]float64), any(s).(float64))
	default:
		return false
	}
	return true
}

// vecScalarBinary is vecBinary for d[i] = s op b[i].
func vecScalarBinary[T Num](op BinaryOp, d []T, s T, b []T) bool {
	o, ok := vecOp(op)
	if !ok || len(d) < vecMin {
		return false
	}
	switch dd := any(d).(type) {
	case []float32:
		vec.ScalarBinary(o, dd, any(s).(float32), any(b).([]float32))
	case []float64:
		vec.ScalarBinary(o, dd, any(s).(float64), any(b).([]float64))
	default:
		return false
	}
	return true
}
