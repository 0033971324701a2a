package tensor

import (
	"slices"

	"github.com/goagx/agx/tensor/internal/vec"
)

// Fused gradient kernels of element-wise functions, given their output.
//
// The backward of y = sigmoid(x) is g·y·(1-y), that of y = tanh(x) is
// g·(1-y²) and that of y = relu(x) is g where y > 0. Composed from Binary
// (or a comparison and Where) they take two or three passes over memory and
// one or more temporaries; on the CPU, when y is dense and g has y's shape and
// dtype (dense, or broadcast as the gradient of a sum is), these functions
// compute them in a single pass with one result allocation. Other layouts
// and backends take the composite path. Both paths round the same
// operations in the same order, so the results are identical.

// SigmoidGrad returns g·(y·(1-y)), the gradient of Sigmoid with respect to
// its input, where y is Sigmoid's output and g the gradient of its output.
// g and y broadcast as in Mul.
func SigmoidGrad(g, y *Tensor) *Tensor {
	if out := fusedGrad("SigmoidGrad", g, y, sigmoidGradRow[float32], sigmoidGradRow[float64]); out != nil {
		return out
	}
	return Mul(g, Mul(y, Sub(1.0, y)))
}

// TanhGrad returns g·(1-y·y), the gradient of Tanh with respect to its
// input, where y is Tanh's output and g the gradient of its output.
func TanhGrad(g, y *Tensor) *Tensor {
	if out := fusedGrad("TanhGrad", g, y, tanhGradRow[float32], tanhGradRow[float64]); out != nil {
		return out
	}
	return Mul(g, Sub(1.0, Mul(y, y)))
}

// ReluGrad returns g where y > 0 and zero elsewhere (where y is a NaN
// too, whatever g is there), the gradient of Relu with respect to its
// input, where y is Relu's output and g the gradient of its output. It is
// Where(y.Gt(0), g, 0.0): g and y broadcast as there, and g's bits are
// copied.
func ReluGrad(g, y *Tensor) *Tensor {
	if out := fusedGrad("ReluGrad", g, y, vecReluGradRow[float32], vecReluGradRow[float64]); out != nil {
		return out
	}
	return Where(y.Gt(0), g, 0.0)
}

// The row kernels take g with stride gs (0 for a broadcast scalar, 1 for
// dense rows, anything else for strided views).

func sigmoidGradRow[T Float](d, y, g []T, gs int) { vecGradRow(vec.SigmoidGrad, d, y, g, gs) }

func tanhGradRow[T Float](d, y, g []T, gs int) { vecGradRow(vec.TanhGrad, d, y, g, gs) }

// fusedGrad runs a fused row kernel when y is a dense CPU tensor and g a CPU
// tensor of y's float dtype and shape; it returns nil otherwise.
func fusedGrad(op string, g, y *Tensor, f32 func(d, y, g []float32, gs int), f64 func(d, y, g []float64, gs int)) *Tensor {
	if g.DType() != y.DType() || !y.DType().IsFloat() || !slices.Equal(g.shape, y.shape) || !y.IsContiguous() {
		return nil
	}
	if _, ok := y.Backend().(CPU); !ok {
		return nil
	}
	if _, ok := g.Backend().(CPU); !ok {
		return nil
	}
	out := emptyUninit(y.Backend(), y.DType(), y.shape...)
	st := [][]int{out.strides, y.strides, g.strides}
	off := []int{out.offset, y.offset, g.offset}
	switch y.DType() {
	case Float32:
		d, ys, gs := host[float32](op, out.st.buf), host[float32](op, y.st.buf), host[float32](op, g.st.buf)
		forEachRow(y.shape, st, off, func(o []int, n int, in []int) {
			f32(d[o[0]:o[0]+n], ys[o[1]:o[1]+n], gs[o[2]:], in[2])
		})
	case Float64:
		d, ys, gs := host[float64](op, out.st.buf), host[float64](op, y.st.buf), host[float64](op, g.st.buf)
		forEachRow(y.shape, st, off, func(o []int, n int, in []int) {
			f64(d[o[0]:o[0]+n], ys[o[1]:o[1]+n], gs[o[2]:], in[2])
		})
	}
	return out
}
