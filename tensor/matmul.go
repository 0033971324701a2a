package tensor

import "slices"

// MatMul is the matrix product of a and b with PyTorch's torch.matmul rules:
//
//   - 1-D · 1-D: the dot product, a 0-d tensor;
//   - 2-D · 2-D: the matrix product [m,k]·[k,n] → [m,n];
//   - 1-D · 2-D: a is treated as [1,k] and the 1 is removed from the result ([n]);
//   - 2-D · 1-D: b is treated as [k,1] and the 1 is removed ([m]);
//   - N-d (either operand with more than 2 dims): a batched product over the last
//     two dims, with the leading (batch) dims broadcast against each other; a 1-D
//     operand gets a dim prepended (a) or appended (b) that is removed again.
//
// Both operands must have the same float dtype (Float32 or Float64); integer and
// bool tensors panic with ErrDType and a hint to convert. Mismatched inner dims
// panic with ErrShape: "agx: MatMul: inner dimensions differ: [2 3] @ [4 5] (3 != 4)".
// The result is a new contiguous tensor.
func MatMul(a, b *Tensor) *Tensor {
	p := planMatMul("MatMul", a, b)
	out := emptyUninit(a.Backend(), a.DType(), p.full...)
	out.Backend().MatMul(out.Raw(), p.a.Raw(), p.b.Raw())
	if !p.dropM && !p.dropN {
		return out
	}
	return out.view(p.shape, contiguousStrides(p.shape), 0)
}

// MatMul is the method form of MatMul(t, b).
func (t *Tensor) MatMul(b *Tensor) *Tensor { return MatMul(t, b) }

// MatMulTo computes MatMul(a, b) into dst, which must have the result's shape and
// dtype and must not share storage with a or b. It bumps dst's version and
// returns dst.
func MatMulTo(dst, a, b *Tensor) *Tensor {
	p := planMatMul("MatMulTo", a, b)
	sameBackend("MatMulTo", dst, a)
	if dst.DType() != a.DType() {
		Panicf("MatMulTo", ErrDType, "destination dtype %v differs from the operands' %v", dst.DType(), a.DType())
	}
	if !slices.Equal(dst.shape, p.shape) {
		Panicf("MatMulTo", ErrShape, "destination shape %v differs from the result shape %v of %v @ %v", dst.shape, p.shape, a.shape, b.shape)
	}
	if dst.SameStorage(a) || dst.SameStorage(b) {
		PanicHint("MatMulTo", ErrArg, "write into a fresh tensor and copy it back", "the destination shares storage with an operand")
	}
	// View dst with the full (batch, m, n) rank: re-insert the removed unit dims.
	d := dst
	if p.dropM {
		d = d.Unsqueeze(-1 - boolInt(!p.dropN))
	}
	if p.dropN {
		d = d.Unsqueeze(-1)
	}
	dst.Backend().MatMul(d.Raw(), p.a.Raw(), p.b.Raw())
	dst.BumpVersion()
	return dst
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// matmulPlan holds the operands expanded to a common rank: a [..., m, k] and
// b [..., k, n], the full result shape and the shape after dropping unit dims.
type matmulPlan struct {
	a, b         *Tensor
	full, shape  []int
	dropM, dropN bool
}

func planMatMul(op string, a, b *Tensor) matmulPlan {
	if a == nil {
		Panicf(op, ErrArg, "argument 'input' (position 1) must be a Tensor, not nil")
	}
	if b == nil {
		Panicf(op, ErrArg, "argument 'other' (position 2) must be a Tensor, not nil")
	}
	sameBackend(op, a, b)
	if a.Dim() == 0 || b.Dim() == 0 {
		PanicHint(op, ErrShape, "use Mul for products with a scalar",
			"both arguments need at least 1 dim, but they are %d-d and %d-d", a.Dim(), b.Dim())
	}
	if !a.DType().IsFloat() || !b.DType().IsFloat() {
		PanicHint(op, ErrDType, "convert with To(tensor.Float32) or To(tensor.Float64) first",
			"matrix products need float tensors, got %v @ %v", a.DType(), b.DType())
	}
	if a.DType() != b.DType() {
		PanicHint(op, ErrDType, "convert one operand with To so that the dtypes match",
			"expected both operands to have the same dtype, got %v @ %v", a.DType(), b.DType())
	}
	ka, kb := a.shape[a.Dim()-1], b.shape[0]
	if b.Dim() >= 2 {
		kb = b.shape[b.Dim()-2]
	}
	if ka != kb {
		Panicf(op, ErrShape, "inner dimensions differ: %s @ %s (%d != %d)", shapeString(a.shape), shapeString(b.shape), ka, kb)
	}
	if a.Dim() == 2 && b.Dim() == 2 { // the common case, without views
		shape := []int{a.shape[0], b.shape[1]}
		return matmulPlan{a: a, b: b, full: shape, shape: shape}
	}
	p := matmulPlan{a: a, b: b}
	if a.Dim() == 1 {
		p.a, p.dropM = a.Unsqueeze(0), true
	}
	if b.Dim() == 1 {
		p.b, p.dropN = b.Unsqueeze(-1), true
	}
	ar, br := p.a.Dim(), p.b.Dim()
	batch := BroadcastShapes(op, p.a.shape[:ar-2], p.b.shape[:br-2])
	m, n := p.a.shape[ar-2], p.b.shape[br-1]
	p.a = p.a.Expand(append(slices.Clone(batch), m, ka)...)
	p.b = p.b.Expand(append(slices.Clone(batch), kb, n)...)
	p.full = append(slices.Clone(batch), m, n)
	p.shape = slices.Clone(batch)
	if !p.dropM {
		p.shape = append(p.shape, m)
	}
	if !p.dropN {
		p.shape = append(p.shape, n)
	}
	return p
}
