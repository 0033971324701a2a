package functions

import "github.com/goagx/agx/tensor"

// The row kernel of ScaledDotProductAttentionFunction's first-order
// backward. It works on private, contiguous CPU tensors in place, one
// softmax row at a time while it is in L1, instead of as separate
// whole-tensor ops with the row sums as a fresh tensor. (The forward's
// softmax runs as whole-tensor ops: vectorised, they are faster than a
// fused scalar loop.)

// attnRowsOK reports whether t can be handled by the row kernels.
func attnRowsOK(t *tensor.Tensor) bool {
	_, cpu := t.Backend().(tensor.CPU)
	return cpu && t.IsContiguous() && t.Dim() > 0 && t.Size(-1) > 0 &&
		(t.DType() == tensor.Float32 || t.DType() == tensor.Float64)
}

// attnSoftmaxGrad overwrites dp with dS = (dp - Σ_k dp⊙p)⊙p·scale, row by row;
// p has dp's shape.
func attnSoftmaxGrad(dp, p *tensor.Tensor, scale float64) *tensor.Tensor {
	n := dp.Size(-1)
	if dp.DType() == tensor.Float32 {
		softmaxGradRows(tensor.Data[float32](dp), tensor.Data[float32](p), n, float32(scale))
	} else {
		softmaxGradRows(tensor.Data[float64](dp), tensor.Data[float64](p), n, scale)
	}
	dp.BumpVersion()
	return dp
}

func softmaxGradRows[T float32 | float64](dp, p []T, n int, scale T) {
	for lo := 0; lo < len(dp); lo += n {
		d, q := dp[lo:lo+n:lo+n], p[lo:lo+n:lo+n]
		q = q[:len(d)]
		var s0, s1, s2, s3 float64 // Σ d⊙q in four interleaved parts
		i := 0
		for ; i+4 <= len(d); i += 4 {
			s0 += float64(d[i] * q[i])
			s1 += float64(d[i+1] * q[i+1])
			s2 += float64(d[i+2] * q[i+2])
			s3 += float64(d[i+3] * q[i+3])
		}
		for ; i < len(d); i++ {
			s0 += float64(d[i] * q[i])
		}
		r := T((s0 + s1) + (s2 + s3))
		for i, v := range d {
			d[i] = (v - r) * q[i] * scale
		}
	}
}
