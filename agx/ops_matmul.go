package agx

import "github.com/goagx/agx/tensor"

// MatMul is the matrix product with PyTorch's rules: 1-D·1-D is a dot product,
// a 1-D operand is treated as a row (left) or column (right) vector, and leading
// batch dims broadcast. Backward: dA = g·Bᵀ, dB = Aᵀ·g, summed over broadcast
// batch dims.
func MatMul(a, b *Tensor) *Tensor {
	if a.Dim() == 0 || b.Dim() == 0 {
		tensor.Panicf("MatMul", tensor.ErrShape, "both arguments to matmul need to be at least 1D, but they are %dD and %dD", a.Dim(), b.Dim())
	}
	if a.Dim() == 1 || b.Dim() == 1 {
		x, y := a, b
		if a.Dim() == 1 {
			x = a.Unsqueeze(0)
		}
		if b.Dim() == 1 {
			y = b.Unsqueeze(-1)
		}
		out := MatMul(x, y)
		// Drop the row dim before the column dim: for 1-D·1-D the result is
		// [1, 1], and squeezing -1 first would leave no dim -2.
		if a.Dim() == 1 {
			out = out.Squeeze(-2)
		}
		if b.Dim() == 1 {
			out = out.Squeeze(-1)
		}
		return out
	}
	out := tensor.MatMul(a.data, b.data)
	ma, mb := metaOf(a), metaOf(b)
	return record("MmBackward0", out, []*Tensor{a, b}, []*Tensor{saveIf(mb.req, a), saveIf(ma.req, b)},
		func(g *Tensor, s []*Tensor) []*Tensor {
			var ga, gb *Tensor
			if ma.req {
				ga = ma.reduce(MatMul(g, s[1].MT()))
			}
			if mb.req {
				gb = mb.reduce(MatMul(s[0].MT(), g))
			}
			return []*Tensor{ga, gb}
		})
}

// MatMul is the method form of MatMul.
func (t *Tensor) MatMul(b *Tensor) *Tensor { return MatMul(t, b) }
