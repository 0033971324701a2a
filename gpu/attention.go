package gpu

import (
	"math"
	"slices"

	"github.com/goagx/agx/tensor"
)

// Kernel geometry of attention.cu.
const (
	attnBlock   = 32  // AGX_ATTN_B: rows per block
	attnThreads = 128 // AGX_ATTN_THREADS: AGX_ATTN_S = 4 threads per row
	attnMaxD    = 64  // AGX_ATTN_MAXD
)

// attnDims checks q [..., Lq, D], k and v [..., Lk, D] and returns BH, Lq, Lk, D.
func attnDims(op string, q, k, v *tensor.Tensor) (bh, lq, lk, d int) {
	qs, ks, vs := q.Shape(), k.Shape(), v.Shape()
	r := len(qs)
	if r < 2 || len(ks) != r || !slices.Equal(ks, vs) || !slices.Equal(qs[:r-2], ks[:r-2]) || qs[r-1] != ks[r-1] {
		tensor.Panicf(op, tensor.ErrShape, "want q [..., Lq, D] and k, v [..., Lk, D] with the same batch dims, got %v %v %v", qs, ks, vs)
	}
	if q.DType() != k.DType() || q.DType() != v.DType() || !q.DType().IsFloat() {
		tensor.Panicf(op, tensor.ErrDType, "q, k and v must share a float dtype, got %v %v %v", q.DType(), k.DType(), v.DType())
	}
	d = qs[r-1]
	if d > attnMaxD {
		tensor.Panicf(op, tensor.ErrShape, "head dimension %d is larger than the kernel's maximum %d", d, attnMaxD)
	}
	return tensor.NumelOf(qs[:r-2]), qs[r-2], ks[r-2], d
}

// dev returns a contiguous copy of t on b and its buffer.
func (b *Backend) dev(t *tensor.Tensor) *Buffer {
	return t.ToBackend(b).Contiguous().Raw().Buf.(*Buffer)
}

func grid2(rows, bh int) Dim3 { return Dim3{X: max((rows+attnBlock-1)/attnBlock, 1), Y: bh} }

// Attention computes softmax(q·kᵀ·scale)·v with the fused FlashAttention-style
// kernel (causal masks key j > query i), without storing the score matrix. It
// returns o (q's shape) and the row log-sum-exp lse ([..., Lq]) that
// AttentionBackward needs. Inputs on other backends are copied to b; the
// results live on b.
func (b *Backend) Attention(q, k, v *tensor.Tensor, scale float64, causal bool) (o, lse *tensor.Tensor) {
	bh, lq, lk, d := attnDims("Attention", q, k, v)
	dt := q.DType()
	qb, kb, vb := b.dev(q), b.dev(k), b.dev(v)
	if lk == 0 {
		// No key to attend to (or no query at all): as the composite (an
		// empty softmax row times an empty inner dim), o is zero and the row
		// log-sum-exp is -Inf.
		return tensor.EmptyOn(b, dt, q.Shape()...), tensor.EmptyOn(b, dt, q.Shape()[:q.Dim()-1]...).Fill(math.Inf(-1))
	}
	o = tensor.EmptyUninitOn(b, dt, q.Shape()...)
	lse = tensor.EmptyUninitOn(b, dt, q.Shape()[:q.Dim()-1]...)
	if bh*lq == 0 {
		return o, lse
	}
	ob, lb := o.Raw().Buf.(*Buffer), lse.Raw().Buf.(*Buffer)
	b.do(func() {
		b.launch("Attention", "attn_fwd_"+suffix[dt], grid2(lq, bh), Dim3{X: attnThreads},
			lq, lk, d, qb, kb, vb, ob, lb, scale, causal)
	})
	return o, lse
}

// AttentionBackward returns the gradients of q, k and v given the output
// gradient dout and Attention's o and lse (FlashAttention-2's two passes: dQ
// over key tiles, dK and dV over query tiles).
func (b *Backend) AttentionBackward(q, k, v, o, lse, dout *tensor.Tensor, scale float64, causal bool) (dq, dk, dv *tensor.Tensor) {
	bh, lq, lk, d := attnDims("AttentionBackward", q, k, v)
	dt := q.DType()
	qb, kb, vb, ob, lb, gb := b.dev(q), b.dev(k), b.dev(v), b.dev(o), b.dev(lse), b.dev(dout.To(dt))
	if bh*lq*lk == 0 {
		// No query (dk, dv), no key (dq) or no batch: nothing contributes,
		// every gradient is zero.
		return tensor.EmptyOn(b, dt, q.Shape()...), tensor.EmptyOn(b, dt, k.Shape()...), tensor.EmptyOn(b, dt, v.Shape()...)
	}
	dq = tensor.EmptyUninitOn(b, dt, q.Shape()...)
	dk = tensor.EmptyUninitOn(b, dt, k.Shape()...)
	dv = tensor.EmptyUninitOn(b, dt, v.Shape()...)
	delta := b.AllocUninit(dt, bh*lq).(*Buffer)
	dqb, dkb, dvb := dq.Raw().Buf.(*Buffer), dk.Raw().Buf.(*Buffer), dv.Raw().Buf.(*Buffer)
	sfx := suffix[dt]
	b.do(func() {
		b.launch("AttentionBackward", "attn_delta_"+sfx, blocks(bh*lq, elementwiseThreads), Dim3{X: elementwiseThreads},
			bh*lq, d, ob, gb, delta)
		b.launch("AttentionBackward", "attn_dq_"+sfx, grid2(lq, bh), Dim3{X: attnThreads},
			lq, lk, d, qb, kb, vb, gb, lb, delta, dqb, scale, causal)
		b.launch("AttentionBackward", "attn_dkdv_"+sfx, grid2(lk, bh), Dim3{X: attnThreads},
			lq, lk, d, qb, kb, vb, gb, lb, delta, dkb, dvb, scale, causal)
	})
	return dq, dk, dv
}
