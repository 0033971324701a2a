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
// CPU nor the split over the cores changes a bit. (Of a row with several
// NaNs, the composite's max split over the reduced dim can pick another,
// so the NaNs' payloads can differ.) It reports false, doing nothing, for
// another backend or dtype, a strided or 0-d t, a dim d (normalised) other
// than the last, short rows (softmaxRowMin: the composite's whole-tensor
// passes are faster there) and a large t of fewer rows than workers (the
// composite splits each pass over the cores).
func softmaxRows(t *Tensor, d int, log bool) (*Tensor, bool) {
	if _, cpu := t.Backend().(CPU); !cpu || !t.IsContiguous() || t.Dim() == 0 || d != t.Dim()-1 {
		return nil, false
	}
	n, rowMin := t.Size(-1), softmaxRowMin
	if log {
		rowMin *= 2
	}
	if n < rowMin || (t.Numel() >= parallelMin && t.Numel()/n < workers()) {
		return nil, false
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

// softmaxRowMin is the shortest row softmaxRows takes for Softmax, twice
// that for LogSoftmax. Per row it calls four or five vector routines (six
// for LogSoftmax), which on short rows cost more than the composite's
// whole-tensor passes. On the Zen 3 at one thread, over 2^20 float32
// elements: Softmax fused against composed took 5.7 and 5.5 ms in rows of
// 16, 2.8 and 3.1 in rows of 64, 1.3 and 1.6 in rows of 128; LogSoftmax
// 3.3 and 3.1 in rows of 64, 1.5 and 1.6 in rows of 128.
const softmaxRowMin = 64

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
		var e, l []T // LogSoftmax's exp of a row, and its sum
		if log {
			e, l = make([]T, n), make([]T, 1)
		}
		for r := lo; r < hi; r++ {
			d, s := dst[r*n:(r+1)*n:(r+1)*n], src[r*n:(r+1)*n:(r+1)*n]
			if !log {
				vecBinaryScalar(OpDiv, d, d, expShiftedSum(d, s, maxContig(s), exp))
				continue
			}
			vecBinaryScalar(OpSub, d, s, maxContig(s))
			unaryContig(OpExp, e, d, nil, exp)
			l[0] = pairwiseSum(e)
			unaryContig(OpLog, l, l, nil, lg)
			vecBinaryScalar(OpSub, d, d, l[0])
		}
	})
}
