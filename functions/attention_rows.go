package functions

import "github.com/goagx/agx/tensor"

// Row kernels of ScaledDotProductAttentionFunction's first-order pass. They
// work on private, contiguous CPU tensors in place, one softmax row at a
// time while it is in L1, instead of as separate whole-tensor ops with their
// row reductions (max, sum) as fresh tensors.

// attnRowsOK reports whether t can be handled by the row kernels.
func attnRowsOK(t *tensor.Tensor) bool {
	_, cpu := t.Backend().(tensor.CPU)
	return cpu && t.IsContiguous() && t.Dim() > 0 && t.Size(-1) > 0 &&
		(t.DType() == tensor.Float32 || t.DType() == tensor.Float64)
}

// attnSoftmaxScaled overwrites the score tensor s with softmax(s·scale) over
// its last dim, with the arithmetic of s.MulInPlace(scale) followed by a
// max-shifted softmax: x = s·scale, e = exp(x - max x), p = e / Σe.
func attnSoftmaxScaled(s *tensor.Tensor, scale float64) *tensor.Tensor {
	n := s.Size(-1)
	if s.DType() == tensor.Float32 {
		shiftRows(tensor.Data[float32](s), n, float32(scale))
	} else {
		shiftRows(tensor.Data[float64](s), n, scale)
	}
	tensor.UnaryTo(s, tensor.OpExp, s)
	if s.DType() == tensor.Float32 {
		normaliseRows(tensor.Data[float32](s), n)
	} else {
		normaliseRows(tensor.Data[float64](s), n)
	}
	s.BumpVersion()
	return s
}

// shiftRows sets each row x of d (rows of n) to x·scale - max(x·scale).
func shiftRows[T float32 | float64](d []T, n int, scale T) {
	for lo := 0; lo < len(d); lo += n {
		row := d[lo : lo+n]
		m := row[0] * scale
		for i, v := range row {
			v *= scale
			row[i] = v
			if v > m || v != v { // a NaN maximum turns the row into NaNs, like Amax
				m = v
			}
		}
		for i := range row {
			row[i] -= m
		}
	}
}

// normaliseRows divides each row of d (rows of n) by its sum. The sum is
// taken in float64 in four interleaved parts (independent additions, not one
// chain), and each element is multiplied by the float64 reciprocal of the
// sum instead of divided by it: for float32 that is one rounding of a value
// within 1e-16 relative of the exact quotient, for float64 within 1 ulp.
func normaliseRows[T float32 | float64](d []T, n int) {
	for lo := 0; lo < len(d); lo += n {
		row := d[lo : lo+n : lo+n]
		var s0, s1, s2, s3 float64
		i := 0
		for ; i+4 <= len(row); i += 4 {
			s0 += float64(row[i])
			s1 += float64(row[i+1])
			s2 += float64(row[i+2])
			s3 += float64(row[i+3])
		}
		for ; i < len(row); i++ {
			s0 += float64(row[i])
		}
		r := 1 / ((s0 + s1) + (s2 + s3))
		for i, v := range row {
			row[i] = T(float64(v) * r)
		}
	}
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
