package tensor

// softmaxRows is Softmax (LogSoftmax with log) over the last dim of a
// contiguous float tensor on the CPU, a row at a time: the row's max,
// x - max, its exp, the sum and the division (the log of the sum and the
// subtraction) run while the row is in cache, into one fresh result, where
// the composite makes five passes over the whole tensor and two or three
// results. It gives the composite's bits: each step is the function the
// composite's kernel applies to that row (maxContig, the vector sub and
// div, unaryContig's exp and log, pairwiseSum, which is vec.Sum, as the
// reduction's rows), and rows do not depend on each other, so neither the
// CPU nor the split over the cores changes a bit. It reports false, doing
// nothing, for another backend or dtype, a strided t, or a dim d
// (normalised) other than the last.
func softmaxRows(t *Tensor, d int, log bool) (*Tensor, bool) {
	if _, cpu := t.Backend().(CPU); !cpu || !t.IsContiguous() || (t.Dim() > 0 && d != t.Dim()-1) {
		return nil, false
	}
	n := 1
	if t.Dim() > 0 {
		n = t.Size(-1)
	}
	switch t.DType() {
	case Float32:
		out := emptyUninit(t.Backend(), Float32, t.shape...)
		softmaxLast(Data[float32](out), Data[float32](t), n, log)
		return out, true
	case Float64:
		out := emptyUninit(t.Backend(), Float64, t.shape...)
		softmaxLast(Data[float64](out), Data[float64](t), n, log)
		return out, true
	}
	return nil, false
}

// softmaxLast sets each row of n elements of dst to the softmax (log) of
// that row of src. Large tensors split their rows over the cores as exp
// does.
func softmaxLast[T Float](dst, src []T, n int, log bool) {
	exp := floatUnary[T](OpExp, nil)
	lg := floatUnary[T](OpLog, nil)
	w := workers()
	if len(src) < parallelMin {
		w = 1
	}
	parallelChunks(len(src)/n, w, func(lo, hi int) {
		var e []T // LogSoftmax's exp of a row
		if log {
			e = make([]T, n)
		}
		for r := lo; r < hi; r++ {
			d, s := dst[r*n:(r+1)*n:(r+1)*n], src[r*n:(r+1)*n:(r+1)*n]
			vecBinaryScalar(OpSub, d, s, maxContig(s))
			if !log {
				unaryContig(OpExp, d, d, nil, exp)
				vecBinaryScalar(OpDiv, d, d, pairwiseSum(d))
				continue
			}
			unaryContig(OpExp, e, d, nil, exp)
			l := []T{pairwiseSum(e)}
			unaryContig(OpLog, l, l, nil, lg)
			vecBinaryScalar(OpSub, d, d, l[0])
		}
	})
}
