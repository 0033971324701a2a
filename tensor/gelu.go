package tensor

import (
	"math"

	"github.com/goagx/agx/tensor/internal/vec"
	"github.com/goagx/agx/tensor/internal/vmath"
)

// GELU returns x·Φ(x), Φ the standard normal CDF in its erf form, with the
// bits of the ops it is made of: Φ(x) is x.Mul(1/√2).Erf().Add(1).Mul(0.5)
// and the result x.Mul(Φ(x)). For a contiguous float32 or float64 CPU
// tensor those ops run one block of geluBlock elements at a time, the
// later ones on the block while it is in L1, so that they make one pass
// over memory into one result instead of five passes into five fresh ones;
// float32 runs all five in one kernel (on one Zen 5 core, in one process,
// [256,512] float32 takes about 100 µs composed and 43 fused); blocks
// split over the cores from parallelMin elements. Other tensors compose
// the ops.
func (t *Tensor) GELU() *Tensor {
	if _, cpu := t.Backend().(CPU); cpu && t.IsContiguous() {
		switch t.DType() {
		case Float32:
			return geluDense[float32](t)
		case Float64:
			return geluDense[float64](t)
		}
	}
	return t.Mul(t.Mul(1 / math.Sqrt2).Erf().Add(1).Mul(0.5))
}

// geluBlock is the block of GELU's fused ops: 8 KiB of float32, 16 of
// float64.
const geluBlock = 2048

func geluDense[T vec.Float](x *Tensor) *Tensor {
	y := emptyUninit(x.Backend(), x.DType(), x.Shape()...)
	xs, ys := Data[T](x), Data[T](y)
	run := func(lo, hi int) {
		for b := lo; b < hi; b += geluBlock {
			e := min(b+geluBlock, hi)
			geluRun(ys[b:e], xs[b:e])
		}
	}
	if w := workers(); len(xs) >= parallelMin && w > 1 {
		parallelChunks(len(xs), w, run)
	} else {
		run(0, len(xs))
	}
	return y
}

// geluRun computes y = x·Φ(x) over one block with the kernels the ops use
// on contiguous rows (which give the same bits at any length); float32 in
// one kernel, vmath.GELU, which runs the same ops in registers.
func geluRun[T vec.Float](y, x []T) {
	if y32, ok := any(y).([]float32); ok {
		vmath.GELU(y32, any(x).([]float32))
		return
	}
	vecBinaryScalar(OpMul, y, x, T(1/math.Sqrt2))
	if !unaryRowVector(OpErf, y, y, nil) {
		f := floatUnary[T](OpErf, nil)
		for i, v := range y {
			y[i] = f(v)
		}
	}
	vecBinaryScalar(OpAdd, y, y, 1)
	vecBinaryScalar(OpMul, y, y, 0.5)
	vecBinary(OpMul, y, x, y)
}
