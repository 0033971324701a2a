package agx

import "github.com/goagx/agx/tensor"

// MatMul is the matrix product with PyTorch's rules: 1-D·1-D is a dot product,
// a 1-D operand is treated as a row (left) or column (right) vector, and leading
// batch dims broadcast. Backward: dA = g·Bᵀ, dB = Aᵀ·g, summed over broadcast
// batch dims.
func MatMul(a, b *Tensor) *Tensor {
	need("MatMul", "input", 1, a)
	need("MatMul", "other", 2, b)
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
			// The row dim is the last one once b's column dim is gone.
			row := -2
			if b.Dim() == 1 {
				row = -1
			}
			out = out.Squeeze(row)
		}
		if b.Dim() == 1 {
			out = out.Squeeze(-1)
		}
		return out
	}
	out := tensor.MatMul(a.data, b.data)
	ma, mb := metaOf(a), metaOf(b)
	// An operand stored transposed (such as nn.Linear's w.T()) gets its
	// gradient computed as the transpose of a row-major product, so that
	// the gradient has the operand's layout, as PyTorch does: through the
	// transpose's backward the leaf then receives a contiguous gradient,
	// which the optimizer's element-wise updates read at full speed.
	aT, bT := ma.req && storedTransposed(a.data), mb.req && storedTransposed(b.data)
	r := record("MmBackward0", out, []*Tensor{a, b}, []*Tensor{saveIf(mb.req, a), saveIf(ma.req, b)},
		func(g *Tensor, s []*Tensor) []*Tensor {
			mm, mt := MatMul, (*Tensor).MT
			if recordsNothing(g, s[0], s[1]) {
				// Nothing to record: the same products of the data,
				// without autograd views.
				mm, mt = matMulData, mtData
			}
			var ga, gb *Tensor
			switch {
			case aT: // dA = g·Bᵀ = (B·gᵀ)ᵀ
				ga = ma.reduce(mt(mm(s[1], mt(g))))
			case ma.req:
				ga = ma.reduce(mm(g, mt(s[1])))
			}
			switch {
			case bT: // dB = Aᵀ·g = (gᵀ·A)ᵀ
				gb = mb.reduce(mt(mm(mt(g), s[0])))
			case mb.req:
				gb = mb.reduce(mm(mt(s[0]), g))
			}
			return []*Tensor{ga, gb}
		})
	if isDual(a, b) {
		// dA·B + A·dB
		jvp(r, func() *Tensor {
			var t *Tensor
			if ta := a.tangentOf(); ta != nil {
				t = MatMul(ta, b)
			}
			if tb := b.tangentOf(); tb != nil {
				t = addTangents(t, MatMul(a, tb))
			}
			return t
		})
	}
	return r
}

// matMulData and mtData are MatMul and MT on the data alone, for a
// backward that records nothing.
func matMulData(a, b *Tensor) *Tensor { return wrap(tensor.MatMul(a.data, b.data)) }

func mtData(t *Tensor) *Tensor { return wrap(t.data.MT()) }

// storedTransposed reports whether the matrices in t's last two dims are
// stored column by column (the transpose of a row-major matrix), with more
// than one row and column.
func storedTransposed(t *tensor.Tensor) bool {
	n := t.Dim()
	if n < 2 {
		return false
	}
	r, c := t.Size(n-2), t.Size(n-1)
	return r > 1 && c > 1 && t.Stride(n-2) == 1 && t.Stride(n-1) == r
}

// MatMul is the method form of MatMul.
func (t *Tensor) MatMul(b *Tensor) *Tensor {
	return MatMul(t, b)
}
