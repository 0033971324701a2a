package tensor

// The sum of a log-sum-exp without its intermediate.
//
// logSumExp shifts x by its maximum m and sums exp(x - m). Composed of
// ops, that is a whole-size result for x - m, exp in place and a
// reduction over it: two more passes over memory, into a fresh result,
// than the sum needs. sumExpShifted computes the same sums a block at a
// time in a small scratch buffer that stays in cache, for a dense CPU
// float x reduced over one dim r, seen as [outer, r, inner]:
//
//   - inner = 1 (the last dim, as for logits): each row's differences and
//     their exp go to a scratch row, and vec's Sum adds it, as the sum
//     reduction does for every layout of a dense source (a row's vec.Sum,
//     split over the cores or not).
//   - inner ≥ vecMin (an earlier dim, such as LogSumExp(0)): blocks of
//     columns of each outer slab add the rows' exp(x - m) in order into
//     the result, as the reduction's row folds do. The reduction adds in
//     that order unless it splits a large source over the cores along the
//     reduced dim, which it does only where no kept dim has an entry for
//     every worker; there, and for 1 < inner < vecMin, logSumExp composes
//     the ops.
//
// So the results are the composite's to the bit, NaN payloads aside.

// sumExpShifted returns Σ exp(x - m) over dim r of x, keeping r with
// size 1, for x dense on the CPU in a float dtype, m dense of that kept
// shape and r the only dim of more than one entry that is reduced, and
// reports whether it applied.
func sumExpShifted(x, m *Tensor, r int) (*Tensor, bool) {
	if _, cpu := x.Backend().(CPU); !cpu || !x.IsContiguous() || !m.IsContiguous() {
		return nil, false
	}
	if _, cpu := m.Backend().(CPU); !cpu || !x.DType().IsFloat() || m.DType() != x.DType() {
		return nil, false
	}
	outer, inner := 1, 1
	for _, n := range x.shape[:r] {
		outer *= n
	}
	for _, n := range x.shape[r+1:] {
		inner *= n
	}
	rows, n, w := x.shape[r], x.Numel(), workers()
	if rows < 2 || n == 0 {
		return nil, false
	}
	serial := n < parallelMin
	switch {
	case inner == 1:
		// Rows are shared out whole; a long row in a tensor of fewer rows
		// than workers is left to the reduction's split of its sum.
		if !serial && outer < w {
			return nil, false
		}
	case inner >= vecMin:
		// reduceParallelMin of a float sum.
		if n >= parallelMinCheap(x.DType().Size()) && w > 1 && !keptDimFor(x.shape, r, w) {
			return nil, false
		}
	default:
		return nil, false
	}
	if serial {
		w = 1
	}
	s := EmptyOn(x.Backend(), x.DType(), keptShape(x.shape, []int{r})...)
	switch x.DType() {
	case Float32:
		sumExpBlocks(Data[float32](s), Data[float32](x), Data[float32](m), outer, rows, inner, w)
	default:
		sumExpBlocks(Data[float64](s), Data[float64](x), Data[float64](m), outer, rows, inner, w)
	}
	return s, true
}

// keptDimFor reports whether a dim of shape other than r has at least w
// entries: then the reduction over r, split over w workers, splits along a
// kept dim and adds each result's terms in order.
func keptDimFor(shape []int, r, w int) bool {
	for i, n := range shape {
		if i != r && n >= w {
			return true
		}
	}
	return false
}

// sumExpBytes is the size of sumExpBlocks's blocks of columns: the block
// of the result, of the shift and of the scratch stay in L1.
const sumExpBytes = 8 << 10

// sumExpBlocks sets s (outer·inner, +0 on entry) to Σ_i exp(x[o,i,j] -
// m[o,j]) over the rows i of x ([outer, rows, inner]), on w workers.
func sumExpBlocks[T Float](s, x, m []T, outer, rows, inner, w int) {
	exp := floatUnary[T](OpExp, nil)
	if inner == 1 {
		parallelChunks(outer, w, func(lo, hi int) {
			e := make([]T, rows)
			for o := lo; o < hi; o++ {
				vecBinaryScalar(OpSub, e, x[o*rows:(o+1)*rows], m[o])
				unaryContig(OpExp, e, e, nil, exp)
				s[o] = pairwiseSum(e)
			}
		})
		return
	}
	// Each outer slab's columns in pieces, so that every worker has one
	// where there are fewer slabs than workers; each piece in blocks.
	pieces := 1
	if outer < w {
		pieces = max(1, min((w+outer-1)/outer, inner/vecMin))
	}
	block := max(vecMin, sumExpBytes/DTypeOf[T]().Size())
	parallelChunks(outer*pieces, w, func(lo, hi int) {
		e := make([]T, min(block, inner))
		for k := lo; k < hi; k++ {
			o, p := k/pieces, k%pieces
			base := o * inner
			for b0, end := p*inner/pieces, (p+1)*inner/pieces; b0 < end; b0 += block {
				b1 := min(b0+block, end)
				acc, sh, ee := s[base+b0:base+b1], m[base+b0:base+b1], e[:b1-b0]
				for i := range rows {
					row := (o*rows + i) * inner
					vecBinary(OpSub, ee, x[row+b0:row+b1], sh)
					unaryContig(OpExp, ee, ee, nil, exp)
					vecBinary(OpAdd, acc, acc, ee)
				}
			}
		}
	})
}
