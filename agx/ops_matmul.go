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
	ma, mb := metaOf(a), metaOf(b)
	// An operand stored transposed (such as nn.Linear's w.T()) gets its
	// gradient computed as the transpose of a row-major product, so that
	// the gradient has the operand's layout, as PyTorch does: through the
	// transpose's backward the leaf then receives a contiguous gradient,
	// which the optimizer's element-wise updates read at full speed.
	aT, bT := ma.req && storedTransposed(a.data), mb.req && storedTransposed(b.data)
	return mmOp.run(mmArgs{ma, mb, aT, bT}, ins{a, b})
}

var (
	mmOp      opDef[mmArgs]
	matmulOps []rules
)

func init() {
	mmOp = opDef[mmArgs]{name: "MmBackward0", arity: 2, forward: mmForward, save: mmSaves, backward: mmBackward, dataBackward: mmDataBackward, jvp: mmJVP}

	matmulOps = []rules{mmOp.done()}
}

// mmArgs is what MatMul keeps of its operands: their metadata, and whether
// each requires grad and is stored transposed.
type mmArgs struct {
	ma, mb inMeta
	aT, bT bool
}

func mmForward(_ mmArgs, x ins) *tensor.Tensor { return tensor.MatMul(x[0].data, x[1].data) }

// mmSaves keeps a for b's gradient and b for a's, each only when needed.
func mmSaves(x ins) ins {
	return ins{saveIf(requires(x[1]), x[0]), saveIf(requires(x[0]), x[1])}
}

func mmBackward(p mmArgs, g *Tensor, s []*Tensor) []*Tensor {
	return mmGrads(p, g, s, MatMul, (*Tensor).MT)
}

// mmDataBackward is the same products of the data, without autograd views.
func mmDataBackward(p mmArgs, g *Tensor, s []*Tensor) []*Tensor {
	return mmGrads(p, g, s, matMulData, mtData)
}

// mmGrads is MatMul's backward with the product mm and the transpose mt.
func mmGrads(p mmArgs, g *Tensor, s []*Tensor, mm func(a, b *Tensor) *Tensor, mt func(*Tensor) *Tensor) []*Tensor {
	var ga, gb *Tensor
	switch {
	case p.aT: // dA = g·Bᵀ = (B·gᵀ)ᵀ
		ga = p.ma.reduce(mt(mm(s[1], mt(g))))
	case p.ma.req:
		ga = p.ma.reduce(mm(g, mt(s[1])))
	}
	switch {
	case p.bT: // dB = Aᵀ·g = (gᵀ·A)ᵀ
		gb = p.mb.reduce(mt(mm(mt(g), s[0])))
	case p.mb.req:
		gb = p.mb.reduce(mm(mt(s[0]), g))
	}
	return []*Tensor{ga, gb}
}

// mmJVP is dA·B + A·dB.
func mmJVP(_ mmArgs, x ins, _ *Tensor) *Tensor {
	var t *Tensor
	if ta := x[0].tangentOf(); ta != nil {
		t = MatMul(ta, x[1])
	}
	if tb := x[1].tangentOf(); tb != nil {
		t = addTangents(t, MatMul(x[0], tb))
	}
	return t
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
