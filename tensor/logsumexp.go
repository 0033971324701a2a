package tensor

// The sum of a log-sum-exp without its intermediate.
//
// logSumExp shifts x by its maximum m and sums exp(x - m). Composed of
// ops, that is a whole-size result for x - m, exp in place and a
// reduction over it: two more passes over memory, into a fresh result,
// than the sum needs. sumExpShifted computes the same sums without it,
// for a dense CPU float x reduced over one dim of nr entries, seen as
// [outer, nr, inner]:
//
//   - inner = 1 (the last dim, as for logits): each of the outer rows'
//     differences and their exp go to a scratch row, one per core, and
//     vec's Sum adds it, as the sum reduction does for every layout of a
//     dense source (a row's vec.Sum, split over the cores or not).
//   - inner > 1 (an earlier dim, such as LogSumExp(0)): blocks of columns
//     of each outer slab add the nr rows' exp(x - m) in order into the
//     result, through a scratch block that stays in L1, as the reduction's
//     row folds do. The reduction adds in that order too, unless a large
//     source has no kept dim with an entry for every core (keptSplitDim):
//     then it may add per-core partial sums along the reduced dim, and
//     logSumExp composes the ops, which keeps their bits.
//
// So the results are the composite's to the bit, NaN payloads aside.
// logSumExp also composes the ops where they are faster: rows of fewer
// than sumExpRowMin elements and fewer than sumExpColMin columns (three
// vector calls per short row cost more than the passes they save), and,
// in a tensor large enough to split, fewer outer rows than cores (the
// reduction then splits each row's sum over the cores).

// sumExpRowMin and sumExpColMin are the shortest rows and the fewest
// columns sumExpShifted takes: at one thread on a Zen 5, LogSumExp(1) of
// [16384,16] float32 took 1.13 ms with it and 0.86 composed, LogSumExp(0)
// of [32768,32] 0.88 and 0.45; they break even at about 64 elements a row
// and 128 columns.
const (
	sumExpRowMin = 64
	sumExpColMin = 128
)

// sumExpBytes is the size of sumExpBlocks's blocks of columns: the block
// of the result, of the shift and of the scratch stay in L1.
const sumExpBytes = 8 << 10

// sumExpShifted returns Σ exp(x - m) over the dims ds of x, keeping them
// with size 1, for m dense of x's dtype and the kept shape. It returns nil
// where logSumExp composes the ops instead: unless ds has exactly one dim
// of more than one entry and x is dense on the CPU in a float dtype, and
// in the cases above.
func sumExpShifted(x, m *Tensor, ds []int) *Tensor {
	if _, cpu := x.Backend().(CPU); !cpu || !x.IsContiguous() || !m.IsContiguous() {
		return nil
	}
	switch x.DType() {
	case Float32:
		return sumExpShiftedT[float32](x, m, ds)
	case Float64:
		return sumExpShiftedT[float64](x, m, ds)
	}
	return nil
}

func sumExpShiftedT[T Float](x, m *Tensor, ds []int) *Tensor {
	reduced := make([]bool, x.Dim())
	for _, d := range ds {
		reduced[d] = true
	}
	r := onlyReduced(x.shape, reduced)
	if r < 0 {
		return nil
	}
	outer, nr, inner := 1, x.shape[r], 1
	for _, n := range x.shape[:r] {
		outer *= n
	}
	for _, n := range x.shape[r+1:] {
		inner *= n
	}
	n, procs := x.Numel(), workers()
	w := procs
	if n < parallelMin {
		w = 1 // the blocks split from parallelMin, as exp does
	}
	if inner == 1 {
		if nr < sumExpRowMin || outer < w {
			return nil
		}
	} else {
		// The reduction splits from reduceParallelMin (a float sum's, one
		// pass an element).
		split := n >= reduceParallelMin[T](OpSum) && procs > 1
		if inner < sumExpColMin || split && keptSplitDim(x.shape, reduced, procs) < 0 {
			return nil
		}
	}
	s := EmptyOn(x.Backend(), x.DType(), keptShape(x.shape, ds)...)
	sumExpBlocks(Data[T](s), Data[T](x), Data[T](m), outer, nr, inner, w)
	return s
}

// sumExpBlocks sets s (outer·inner, +0 on entry) to Σ_i exp(x[o,i,j] -
// m[o,j]) over the nr rows i of each slab of x ([outer, nr, inner]), on w
// workers.
func sumExpBlocks[T Float](s, x, m []T, outer, nr, inner, w int) {
	exp := floatUnary[T](OpExp, nil)
	if inner == 1 {
		parallelChunks(outer, w, func(lo, hi int) {
			e := make([]T, nr)
			for o := lo; o < hi; o++ {
				s[o] = expShiftedSum(e, x[o*nr:(o+1)*nr], m[o], exp)
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
	block := sumExpBytes / DTypeOf[T]().Size()
	parallelChunks(outer*pieces, w, func(lo, hi int) {
		e := make([]T, min(block, inner))
		for k := lo; k < hi; k++ {
			o, p := k/pieces, k%pieces
			base := o * inner
			for b0, end := p*inner/pieces, (p+1)*inner/pieces; b0 < end; b0 += block {
				b1 := min(b0+block, end)
				acc, sh, ee := s[base+b0:base+b1], m[base+b0:base+b1], e[:b1-b0]
				for i := range nr {
					row := (o*nr + i) * inner
					vecBinary(OpSub, ee, x[row+b0:row+b1], sh)
					unaryContig(OpExp, ee, ee, nil, exp)
					vecBinary(OpAdd, acc, acc, ee)
				}
			}
		}
	})
}

// expShiftedSum sets d = exp(src - m) and returns vec's Sum of d (the
// steps of a softmax row and of a log-sum-exp row).
func expShiftedSum[T Float](d, src []T, m T, exp func(T) T) T {
	vecBinaryScalar(OpSub, d, src, m)
	unaryContig(OpExp, d, d, nil, exp)
	return pairwiseSum(d)
}
