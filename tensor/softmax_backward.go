package tensor

import (
	"slices"

	"github.com/goagx/agx/tensor/internal/vec"
)

// SoftmaxBackwardInPlace turns t, the gradient with respect to
// y = Softmax(scale·x) over the last dim, into the gradient with respect to
// x (PyTorch's _softmax_backward_data, with the scale folded in):
//
//	t = scale · y ⊙ (t - Σ_k t⊙y),
//
// the sum running along the last dim, row by row (scale = 1 for a plain
// Softmax). It bumps t's version and returns t.
//
// t and y are contiguous Float32 or Float64 CPU tensors of one dtype and
// shape, y may be t itself; a 0-dim tensor is one row of one element.
// Other dtypes panic with ErrDType, differing shapes with ErrShape, other
// backends with ErrDevice, strided views and a t that partly overlaps y
// with ErrArg. Those tensors can use the composite
// t.SubInPlace(t.Mul(y).SumKeep(-1)).MulInPlace(y).MulInPlace(scale).
//
// Each row is one vectorised pass for Σ t⊙y and one for the update, while
// it is in cache; nothing is allocated. The sum is formed in t's dtype,
// each product rounded, as a pairwise sum (the order of Sum over a
// contiguous row), so its rounding error grows with the logarithm of the
// row length; the update rounds (t - Σ), the product with y and the one
// with scale in turn. The results do not depend on the CPU.
func (t *Tensor) SoftmaxBackwardInPlace(y *Tensor, scale float64) *Tensor {
	const op = "SoftmaxBackwardInPlace"
	t.needFloat(op)
	if y.DType() != t.DType() {
		Panicf(op, ErrDType, "gradient has dtype %v, softmax output %v", t.DType(), y.DType())
	}
	if !slices.Equal(t.shape, y.shape) {
		Panicf(op, ErrShape, "gradient has shape %v, softmax output %v", t.shape, y.shape)
	}
	for _, u := range []*Tensor{t, y} {
		if _, cpu := u.Backend().(CPU); !cpu {
			Panicf(op, ErrDevice, "tensor lives on backend %q, not the CPU", u.Backend().Name())
		}
		if !u.IsContiguous() {
			PanicHint(op, ErrArg, "call Contiguous() first, or use the composite ops of the doc comment",
				"tensor of shape %v with strides %v is not contiguous", u.shape, u.strides)
		}
	}
	if t.Numel() > 0 {
		checkWrite(op, t, y)
		n := 1
		if t.Dim() > 0 {
			n = t.Size(-1)
		}
		if t.DType() == Float32 {
			vec.SoftmaxBackward(Data[float32](t), Data[float32](y), n, float32(scale))
		} else {
			vec.SoftmaxBackward(Data[float64](t), Data[float64](y), n, scale)
		}
	}
	t.BumpVersion()
	return t
}
