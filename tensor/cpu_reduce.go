package tensor

import (
	"bytes"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/goagx/agx/tensor/internal/team"
	"github.com/goagx/agx/tensor/internal/vec"
)

// Reduce implements Backend.
//
// Sum, Prod, Max and Min work over Float32, Float64 and Int64 (the frontend casts
// Bool first). The kernel picks one of two loop orders from the source strides:
//
//   - when the dim with the smallest source stride is reduced (the common "sum over
//     the last dim" case), each destination element is computed by a tight loop
//     over the reduced elements; contiguous float runs are summed pairwise
//     (vec.Sum: runs of 1024 float32 or 512 float64 elements in 32 or 16
//     interleaved partial sums, then a pairwise tree), so the rounding error
//     grows with log(n) rather than n, and the accumulator keeps the element
//     type (as PyTorch does for float32);
//   - when that dim is kept (e.g. sum over dim 0 of a row-major matrix), the
//     destination is accumulated slice by slice: dst_row op= src_row, a
//     contiguous vector update instead of a strided gather per element.
//
// Large reductions are split across goroutines along a kept dim (disjoint
// destination elements) where one has an entry for every worker. Else a
// float sum of dense runs (a full sum, a sum over trailing dims) shares out
// the runs, or the subtrees of each run's pairwise tree (vec.SumParts),
// and other reductions make per-worker partial results along the largest
// reduced dim, combined in order. Results do not depend on scheduling; the
// last bits of those partial sums and products depend on GOMAXPROCS (a max
// or min only in which of several NaNs it returns), all others are the
// serial reduction's.
//
// OpArgMax and OpArgMin take exactly one dim and write Int64 indices: the first
// index of the extreme value, where NaN counts as the extreme (as in PyTorch).
func (CPU) Reduce(op ReduceOp, dst, src View, dims []int) {
	if len(dst.Shape) != len(src.Shape) {
		Panicf("Reduce", ErrShape, "destination rank %d differs from source rank %d", len(dst.Shape), len(src.Shape))
	}
	if op == OpArgMax || op == OpArgMin {
		if len(dims) != 1 {
			Panicf("Reduce", ErrArg, "arg reductions take exactly one dim, got %v", dims)
		}
		d := host[int64]("Reduce", dst.Buf)
		switch src.DType() {
		case Float32:
			argReduce(op, d, host[float32]("Reduce", src.Buf), dst, src, dims[0])
		case Float64:
			argReduce(op, d, host[float64]("Reduce", src.Buf), dst, src, dims[0])
		case Int64:
			argReduce(op, d, host[int64]("Reduce", src.Buf), dst, src, dims[0])
		default:
			Panicf("Reduce", ErrDType, "arg reduction of %v", src.DType())
		}
		return
	}
	if dst.DType() != src.DType() {
		Panicf("Reduce", ErrDType, "destination %v differs from source %v", dst.DType(), src.DType())
	}
	if reduceTrailing(op, dst, src, dims) {
		return
	}
	reduced := make([]bool, len(src.Shape))
	for _, d := range dims {
		reduced[d] = true
	}
	switch src.DType() {
	case Float32:
		reduceT(op, host[float32]("Reduce", dst.Buf), host[float32]("Reduce", src.Buf), dst, src, reduced)
	case Float64:
		reduceT(op, host[float64]("Reduce", dst.Buf), host[float64]("Reduce", src.Buf), dst, src, reduced)
	case Int64:
		reduceT(op, host[int64]("Reduce", dst.Buf), host[int64]("Reduce", src.Buf), dst, src, reduced)
	default:
		Panicf("Reduce", ErrDType, "reduction of %v", src.DType())
	}
}

// identity returns the neutral element of op for T.
func identity[T Num](op ReduceOp) T {
	var z T
	switch op {
	case OpSum:
		return 0
	case OpProd:
		return 1
	case OpMax:
		switch any(z).(type) {
		case int64:
			m := int64(math.MinInt64) // a variable: T may be a 32-bit int
			return T(m)
		}
		return T(math.Inf(-1))
	case OpMin:
		switch any(z).(type) {
		case int64:
			m := int64(math.MaxInt64)
			return T(m)
		}
		return T(math.Inf(1))
	}
	Panicf("Reduce", ErrArg, "unknown reduction op %d", op)
	return z
}

// combine returns op(x, y); Max and Min propagate NaN.
func combine[T Num](op ReduceOp, x, y T) T {
	switch op {
	case OpSum:
		return x + y
	case OpProd:
		return x * y
	case OpMax:
		if y > x || y != y {
			return y
		}
		return x
	default:
		if y < x || y != y {
			return y
		}
		return x
	}
}

// reduceState is one reduction laid out for the serial kernels: the views share
// rank, and reduced marks the dims that collapse to size 1 in dst.
type reduceState[T Num] struct {
	op      ReduceOp
	d, s    []T
	reduced []bool
}

func reduceT[T Num](op ReduceOp, d, s []T, dst, src View, reduced []bool) {
	fillT(d, dst, identity[T](op))
	n := 1
	for _, x := range src.Shape {
		n *= x
	}
	if n == 0 {
		return
	}
	rs := &reduceState[T]{op: op, d: d, s: s, reduced: reduced}
	w := workers()
	// The order of the dims, from the whole source: a part of a split takes
	// the same path through its dims as the serial reduction, also where
	// its share of the split dim is a single entry, so each result element
	// is reduced in the same order and gives the same bits.
	order := rs.order(src)
	if n < reduceParallelMin[T](op) || w < 2 {
		rs.serial(dst, src, order)
		return
	}
	best := keptSplitDim(src.Shape, reduced, w)
	if best >= 0 {
		parallelChunks(src.Shape[best], w, func(lo, hi int) {
			rs.serial(narrowView(dst, best, lo, hi), narrowView(src, best, lo, hi), order)
		})
		return
	}
	if op == OpSum && sumRunsSplit(d, s, dst, src, reduced, w) {
		return
	}
	// Reduce to few elements: per-worker partial results along the largest
	// reduced dim, combined in a fixed order.
	for i, sz := range src.Shape {
		if reduced[i] && (best < 0 || sz > src.Shape[best]) {
			best = i
		}
	}
	if best < 0 || src.Shape[best] < w {
		// Nothing reduced (a copy), or too little of it to share out.
		rs.serial(dst, src, order)
		return
	}
	dn := 1
	for _, x := range dst.Shape {
		dn *= x
	}
	parts := make([][]T, w)
	pstr := contiguousStrides(dst.Shape)
	var chunks [][2]int
	chunk := (src.Shape[best] + w - 1) / w
	for lo := 0; lo < src.Shape[best]; lo += chunk {
		chunks = append(chunks, [2]int{lo, min(src.Shape[best], lo+chunk)})
	}
	for ci := range chunks {
		parts[ci] = make([]T, dn)
	}
	team.Do(len(chunks), w, func(ci, _ int) {
		c, part := chunks[ci], parts[ci]
		pv := View{Shape: dst.Shape, Strides: pstr}
		prs := &reduceState[T]{op: op, d: part, s: s, reduced: reduced}
		fillT(part, pv, identity[T](op))
		prs.serial(pv, narrowView(src, best, c[0], c[1]), order)
	})
	i := 0
	forEachIndex(dst.Shape, [][]int{dst.Strides}, []int{dst.Offset}, func(o []int) {
		acc := parts[0][i]
		for _, p := range parts[1:len(chunks)] {
			acc = combine(op, acc, p[i])
		}
		d[o[0]] = acc
		i++
	})
}

// keptSplitDim returns the kept dim along which reduceT splits a large
// reduction over w workers, or -1 where no kept dim has w entries (it then
// shares out runs, makes per-worker partial results along a reduced dim
// of at least w entries, or reduces serially). It is the outermost kept
// dim with at least 4·w entries (the parts, whose sizes differ by at most
// one, within a quarter of one another), so that the parts of a dense
// source are dense blocks, which the fast paths take (an inner dim's
// parts are strided rows: a [32,64,64] sum over dim 1 split along dim 2
// took the general loop), else the largest with at least w.
func keptSplitDim(shape []int, reduced []bool, w int) int {
	for i, sz := range shape {
		if !reduced[i] && sz >= 4*w {
			return i
		}
	}
	best := -1
	for i, sz := range shape {
		if !reduced[i] && sz >= w && (best < 0 || sz > shape[best]) {
			best = i
		}
	}
	return best
}

// sumRunsSplit sums a dense float source whose reduced dims come after its
// kept ones (a full sum, a mean's sum) and reports whether it applied (see
// sumRuns).
func sumRunsSplit[T Num](d, s []T, dst, src View, reduced []bool, w int) bool {
	n, dense := flatLayout(src)
	if !dense || !src.DType().IsFloat() {
		return false
	}
	inner, seen := 1, false
	for i, sz := range src.Shape {
		switch {
		case sz == 1:
		case reduced[i]:
			seen = true
			inner *= sz
		case seen:
			return false
		}
	}
	// Where each run's result goes, in the order of the runs; a dense
	// destination's elements from its offset on are the runs' in order.
	var at []int
	if _, dense := flatLayout(dst); dense {
		d = d[dst.Offset:]
	} else {
		at = make([]int, 0, n/inner)
		forEachIndex(dst.Shape, [][]int{dst.Strides}, []int{dst.Offset}, func(o []int) { at = append(at, o[0]) })
	}
	if s32, ok := any(s).([]float32); ok {
		sumRuns(any(d).([]float32), s32[src.Offset:src.Offset+n], at, inner, w)
	} else {
		sumRuns(any(d).([]float64), any(s).([]float64)[src.Offset:src.Offset+n], at, inner, w)
	}
	return true
}

// sumRuns sets d[at[r]] (d[r] when at is nil) to the vec.Sum of run r of s
// (inner elements each): with at least w runs, the runs shared out to the
// w workers; with fewer, each run's pairwise tree split by vec.SumParts
// into the subtrees of its top levels (about two a worker, fewer for a run
// of few blocks), which the workers share. Either way the results are the
// serial bits at every w, unlike the partial sums of reduceT's last path.
// d holds +0 (reduceT's identity), and +0 + Σ is Σ (a Sum is never -0), so
// writing Σ is what the serial combine gives.
func sumRuns[F float32 | float64](d, s []F, at []int, inner, w int) {
	runs := len(s) / inner
	if runs >= w {
		parallelChunks(runs, w, func(lo, hi int) {
			if at == nil {
				vec.SumRows(d[lo:hi], s[lo*inner:hi*inner], inner, inner)
				return
			}
			for r := lo; r < hi; r++ {
				d[at[r]] = vec.Sum(s[r*inner : (r+1)*inner])
			}
		})
		return
	}
	depth := bits.Len(uint(w - 1)) // 2^depth ≥ w subtrees,
	if w&(w-1) != 0 {
		depth++ // and two a worker where w is not a power of two
	}
	for r := range runs {
		sum := vec.SumParts(s[r*inner:(r+1)*inner], depth, func(n int, part func(i int)) {
			team.Do(n, w, func(i, _ int) { part(i) })
		})
		if at == nil {
			d[r] = sum
		} else {
			d[at[r]] = sum
		}
	}
}

// reduceParallelMin is the source size from which a reduction is split
// across goroutines: float sums run on package vec at about one memory pass
// per element, and split later (parallelMinCheap).
func reduceParallelMin[T Num](op ReduceOp) int {
	var z T
	switch any(z).(type) {
	case float32, float64:
		if op == OpSum {
			return parallelMinCheap(DTypeOf[T]().Size())
		}
	}
	return parallelMin
}

// parallelChunks splits [0, n) into min(n, w) ranges whose lengths differ
// by at most one and runs fn on each, on the team of workers.
func parallelChunks(n, w int, fn func(lo, hi int)) {
	parts := min(n, w)
	team.Do(parts, w, func(c, _ int) { fn(c*n/parts, (c+1)*n/parts) })
}

// narrowView restricts dim d of v to [lo, hi) (a size-1 dim stays whole, so a
// destination view can be narrowed along a dim it keeps).
func narrowView(v View, d, lo, hi int) View {
	if v.Shape[d] == 1 && hi-lo != 1 {
		return v
	}
	sh := slices.Clone(v.Shape)
	sh[d] = hi - lo
	return View{Buf: v.Buf, Shape: sh, Strides: v.Strides, Offset: v.Offset + lo*v.Strides[d]}
}

// order returns the dims of src other than those of size 1, by source
// stride, largest first, so that the last is the one that moves fastest
// through memory.
func (rs *reduceState[T]) order(src View) []int {
	order := make([]int, 0, len(src.Shape))
	for i, n := range src.Shape {
		if n != 1 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(x, y int) int { return src.Strides[y] - src.Strides[x] })
	return order
}

// serial reduces src into dst (already holding the identity) on one
// goroutine, walking the dims in the given order (see order; for a part of
// a split, the whole source's).
func (rs *reduceState[T]) serial(dst, src View, order []int) {
	if len(order) == 0 || rs.reduced[order[len(order)-1]] {
		rs.innerReduce(dst, src, order)
		return
	}
	rs.outerReduce(dst, src, order)
}

// innerReduce computes each destination element by a loop over its reduced
// source elements.
func (rs *reduceState[T]) innerReduce(dst, src View, order []int) {
	var kShape, rShape []int
	var kStr [][]int = [][]int{nil, nil}
	var rStr []int
	for _, i := range order {
		if rs.reduced[i] {
			rShape = append(rShape, src.Shape[i])
			rStr = append(rStr, src.Strides[i])
		} else {
			kShape = append(kShape, src.Shape[i])
			kStr[0] = append(kStr[0], dst.Strides[i])
			kStr[1] = append(kStr[1], src.Strides[i])
		}
	}
	if len(rShape) == 0 {
		rShape, rStr = []int{1}, []int{0}
	}
	rShape2, rStr2 := collapse(rShape, [][]int{rStr})
	rs1 := rStr2[0]
	last := len(rShape2) - 1
	rowLen, rowStr := rShape2[last], rs1[last]
	outer := rShape2[:last]
	if len(kShape) != 0 && len(outer) == 0 && rowStr == 1 && rs.op == OpSum {
		if sumRows := vecSumRows[T](); sumRows != nil {
			// Float sums of contiguous rows (a softmax's or a soft rank's
			// sum over the last dim): package vec's Sum of each row, a
			// run of kept positions in one call of SumRows where their
			// results are contiguous. d holds +0, and +0 + Σ is Σ (a Sum is
			// never -0), so writing Σ is what combine(d, 0 + Σ) below
			// gives, to the bit.
			d, s := rs.d, rs.s
			runRowsSerial(kShape, kStr, []int{dst.Offset, src.Offset}, func(o []int, n int, in []int) {
				if in[0] == 1 {
					sumRows(d[o[0]:o[0]+n], s[o[1]:], rowLen, in[1])
					return
				}
				for i, p, q := 0, o[0], o[1]; i < n; i, p, q = i+1, p+in[0], q+in[1] {
					sumRows(d[p:p+1], s[q:], rowLen, 0)
				}
			})
			return
		}
	}
	idx := make([]int, len(outer))
	one := func(so int) T {
		acc := identity[T](rs.op)
		clear(idx)
		for {
			acc = combine(rs.op, acc, rs.row(so, rowLen, rowStr))
			d := len(outer) - 1
			for ; d >= 0; d-- {
				idx[d]++
				so += rs1[d]
				if idx[d] < outer[d] {
					break
				}
				so -= idx[d] * rs1[d]
				idx[d] = 0
			}
			if d < 0 {
				return acc
			}
		}
	}
	if len(kShape) == 0 {
		rs.d[dst.Offset] = combine(rs.op, rs.d[dst.Offset], one(src.Offset))
		return
	}
	runRowsSerial(kShape, kStr, []int{dst.Offset, src.Offset}, func(o []int, n int, in []int) {
		for i, p, q := 0, o[0], o[1]; i < n; i, p, q = i+1, p+in[0], q+in[1] {
			rs.d[p] = combine(rs.op, rs.d[p], one(q))
		}
	})
}

// row reduces n source elements starting at off with the given stride.
func (rs *reduceState[T]) row(off, n, stride int) T {
	s := rs.s
	if stride == 1 {
		v := s[off : off+n]
		switch rs.op {
		case OpSum:
			return pairwiseSum(v)
		case OpMax:
			return maxContig(v)
		case OpMin:
			return minContig(v)
		}
		acc := T(1)
		for _, x := range v {
			acc *= x
		}
		return acc
	}
	acc := identity[T](rs.op)
	for i, q := 0, off; i < n; i, q = i+1, q+stride {
		acc = combine(rs.op, acc, s[q])
	}
	return acc
}

// sumBlock is the run length of Int64 sums summed with plain (4-way)
// accumulation before pairwise combination takes over.
const sumBlock = 128

// pairwiseSum sums v with pairwise (cascade) summation: floats with vec.Sum
// (runs of 1024 float32 or 512 float64 elements, each summed in 32 or 16
// interleaved partial sums, so that no element goes through more than 32
// additions before the pairwise tree), Int64 over blocks of sumBlock.
func pairwiseSum[T Num](v []T) T {
	switch f := any(v).(type) {
	case []float32:
		return T(vec.Sum(f))
	case []float64:
		return T(vec.Sum(f))
	}
	if len(v) <= sumBlock {
		var a0, a1, a2, a3 T
		i := 0
		for ; i+4 <= len(v); i += 4 {
			a0 += v[i]
			a1 += v[i+1]
			a2 += v[i+2]
			a3 += v[i+3]
		}
		for ; i < len(v); i++ {
			a0 += v[i]
		}
		return (a0 + a1) + (a2 + a3)
	}
	h := (len(v)/2 + sumBlock - 1) / sumBlock * sumBlock
	return pairwiseSum(v[:h]) + pairwiseSum(v[h:])
}

// maxContig and minContig return the first NaN of v if it has one, else
// the first element with the largest (smallest) value, or the identity for
// an empty v; long float runs go to package vec, which gives the same bits.
func maxContig[T Num](v []T) T {
	if m, ok := vecExtreme(v, true); ok {
		return m
	}
	acc := identity[T](OpMax)
	for _, x := range v {
		if x > acc {
			acc = x
		} else if x != x {
			return x
		}
	}
	return acc
}

func minContig[T Num](v []T) T {
	if m, ok := vecExtreme(v, false); ok {
		return m
	}
	acc := identity[T](OpMin)
	for _, x := range v {
		if x < acc {
			acc = x
		} else if x != x {
			return x
		}
	}
	return acc
}

// vecExtreme is vec.Max (isMax) or vec.Min of a long float run; ok is false
// for a short run or an integer one, which the callers' loops handle.
func vecExtreme[T Num](v []T, isMax bool) (m T, ok bool) {
	if len(v) < vecMin {
		return m, false
	}
	switch s := any(v).(type) {
	case []float32:
		if isMax {
			return any(vec.Max(s)).(T), true
		}
		return any(vec.Min(s)).(T), true
	case []float64:
		if isMax {
			return any(vec.Max(s)).(T), true
		}
		return any(vec.Min(s)).(T), true
	}
	return m, false
}

// outerReduce accumulates the source slice by slice into dst: the innermost
// (fastest) dim is kept, so every step is a vector update of a destination row.
func (rs *reduceState[T]) outerReduce(dst, src View, order []int) {
	if rows := vecFoldRows[T](rs.op); rows != nil && rs.foldBlocks(dst, src, rows) {
		return
	}
	shape := make([]int, len(order))
	st := [][]int{make([]int, len(order)), make([]int, len(order))}
	for j, i := range order {
		shape[j] = src.Shape[i]
		if !rs.reduced[i] {
			st[0][j] = dst.Strides[i]
		}
		st[1][j] = src.Strides[i]
	}
	d, s, op := rs.d, rs.s, rs.op
	runRowsSerial(shape, st, []int{dst.Offset, src.Offset}, func(o []int, n int, in []int) {
		if in[0] == 0 {
			// The collapsed row is a reduction after all: the kept dims
			// under it have size 1 (a part of a split) or merged away.
			// Its elements go into d one at a time, in order, as every
			// other row of this loop does, so the bits do not depend on
			// how the dims collapsed.
			p := o[0]
			for i, q := 0, o[1]; i < n; i, q = i+1, q+in[1] {
				d[p] = combine(op, d[p], s[q])
			}
			return
		}
		if in[0] == 1 && in[1] == 1 {
			dd, ss := d[o[0]:o[0]+n], s[o[1]:o[1]+n]
			switch op {
			case OpSum:
				if vecBinary(OpAdd, dd, dd, ss) {
					return
				}
				for i, x := range ss {
					dd[i] += x
				}
			case OpProd:
				if vecBinary(OpMul, dd, dd, ss) {
					return
				}
				for i, x := range ss {
					dd[i] *= x
				}
			case OpMax:
				// dd[i] = Maximum(ss[i], dd[i]): the source element where it
				// is NaN or larger, else dd[i], as combine does.
				vecBinary(OpMaximum, dd, ss, dd)
			default:
				vecBinary(OpMinimum, dd, ss, dd)
			}
			return
		}
		for i, p, q := 0, o[0], o[1]; i < n; i, p, q = i+1, p+in[0], q+in[1] {
			d[p] = combine(op, d[p], s[q])
		}
	})
}

// foldBlocks is outerReduce for a float sum, maximum or minimum over one
// dim r (others reduced have size 1), not the last, where the dims after r
// are one contiguous run of at least vecMin elements in both src and dst:
// a dense source, or a part of one split over the cores along a kept dim.
// Each such run of dst folds in the runs of src under it along r, in
// order, as the general loop does, in one call of rows (vec's AddRows,
// MaxRows or MinRows, rows stride elements apart), which keeps the run of
// dst in registers (the soft-rank exercise's sum over the middle dim of
// [32,64,64] took 43 µs the general way, 2048 rows of 64, and 31 with an
// add per row; Amax(0) of [256,512] float32 took 6.4 µs with a Maximum per
// row and takes 5.1, timed in one process on one Zen 5 core). It reports
// whether it applied.
func (rs *reduceState[T]) foldBlocks(dst, src View, rows func(dst, src []T, m, stride int)) bool {
	r := onlyReduced(src.Shape, rs.reduced)
	if r < 0 || src.Strides[r] < 0 {
		return false
	}
	b, ok := flatLayout(View{Shape: src.Shape[r+1:], Strides: src.Strides[r+1:]})
	if !ok || b < vecMin {
		return false
	}
	if _, ok := flatLayout(View{Shape: src.Shape[r+1:], Strides: dst.Strides[r+1:]}); !ok {
		return false
	}
	for j, n := range src.Shape[:r] {
		// An expanded dim (stride 0) before r is left to the general loop,
		// which walks it innermost and adds element by element: its NaN
		// payloads, where two NaNs meet, are not the row folds'.
		if n == 0 || n > 1 && src.Strides[j] == 0 {
			return false
		}
	}
	m, stride := src.Shape[r], src.Strides[r]
	// idx runs over the dims before r, odometer style.
	idx := make([]int, r)
	for {
		so, do := src.Offset, dst.Offset
		for j, k := range idx {
			so += k * src.Strides[j]
			do += k * dst.Strides[j]
		}
		rows(rs.d[do:do+b], rs.s[so:so+(m-1)*stride+b], m, stride)
		j := r - 1
		for ; j >= 0; j-- {
			if idx[j]++; idx[j] < src.Shape[j] {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return true
		}
	}
}

// onlyReduced returns the one reduced dim of more than one entry, or -1
// where there are none or several.
func onlyReduced(shape []int, reduced []bool) int {
	r := -1
	for i, red := range reduced {
		if red && shape[i] != 1 {
			if r >= 0 {
				return -1
			}
			r = i
		}
	}
	return r
}

// argReduce writes the index of the extreme value along dim for every position
// of dst.
func argReduce[T Num](op ReduceOp, d []int64, s []T, dst, src View, dim int) {
	n := src.Shape[dim]
	if n == 0 {
		Panicf("Reduce", ErrArg, "arg reduction over an empty dim %d", dim)
	}
	sd := src.Strides[dim]
	sh := slices.Clone(src.Shape)
	sh[dim] = 1
	isMax := op == OpArgMax
	vecRows := sd == 1 && n >= argVecMin
	forEachRow(sh, [][]int{dst.Strides, src.Strides}, []int{dst.Offset, src.Offset}, func(o []int, m int, in []int) {
		var eq []bool // argRowVec's scratch, one per run of rows
		if vecRows {
			eq = make([]bool, n)
		}
		for i, p, q := 0, o[0], o[1]; i < m; i, p, q = i+1, p+in[0], q+in[1] {
			if vecRows {
				if j, ok := argRowVec(s[q:q+n], isMax, eq); ok {
					d[p] = int64(j)
					continue
				}
			}
			best, bi := s[q], 0
			if best == best {
				for j, r := 1, q+sd; j < n; j, r = j+1, r+sd {
					x := s[r]
					if x != x {
						best, bi = x, j
						break
					}
					if (isMax && x > best) || (!isMax && x < best) {
						best, bi = x, j
					}
				}
			}
			d[p] = int64(bi)
		}
	})
}

// argVecMin is the shortest contiguous row that argReduce hands to
// argRowVec.
const argVecMin = 64

// argRowVec returns the index of the first largest (isMax) or smallest
// element of a contiguous float row, a NaN counting as the extreme, as
// argReduce's loop finds it: package vec's Max or Min finds the value (the
// first NaN if there is one), and its comparison kernel marks the positions
// holding it in eq (len(row) bools; an equal value: -0 and +0 alike, as the
// loop's ties keep the first), the first of which bytes.IndexByte finds.
// ok is false for integer rows (and rows shorter than vecMin, which
// argReduce does not hand it). On one Zen 5 core MaxDim over the rows of
// [256,512] float32 took 127 µs with the loop alone, 39 with a scalar scan
// for the position, and takes about 22.
func argRowVec[T Num](row []T, isMax bool, eq []bool) (j int, ok bool) {
	m, ok := vecExtreme(row, isMax)
	if !ok {
		return 0, false
	}
	if m != m {
		for j, x := range row {
			if x != x {
				return j, true
			}
		}
	}
	switch r := any(row).(type) {
	case []float32:
		vec.CompareScalar(vec.Eq, eq, r, any(m).(float32))
	case []float64:
		vec.CompareScalar(vec.Eq, eq, r, any(m).(float64))
	}
	// A bool is one byte, 1 for true, as vec's comparison kernels write it.
	return bytes.IndexByte(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(eq))), len(eq)), 1), true
}

// reduceTrailing is the fast path of Reduce for small dense tensors reduced over
// trailing dims (the last dim of a row-major tensor, or all of them): each
// destination element is then one contiguous source run, reduced directly
// without the iteration plan of the general kernel, which for tensors of a few
// dozen elements costs more than the arithmetic. It reports whether it handled
// the reduction; the results are those of the general kernel.
func reduceTrailing(op ReduceOp, dst, src View, dims []int) bool {
	n, ok := flatLayout(src)
	pmin := parallelMin
	if op == OpSum && src.DType().IsFloat() {
		pmin = parallelMinCheap(src.DType().Size())
	}
	if !ok || n == 0 || n >= pmin {
		return false
	}
	if _, ok := flatLayout(dst); !ok {
		return false
	}
	// Every non-trivial reduced dim must come after every non-trivial kept one.
	inner, seenReduced := 1, false
	for i, sz := range src.Shape {
		if sz == 1 {
			continue
		}
		if slices.Contains(dims, i) {
			seenReduced = true
			inner *= sz
		} else if seenReduced {
			return false
		}
	}
	switch src.DType() {
	case Float32:
		reduceRuns(op, host[float32]("Reduce", dst.Buf)[dst.Offset:], host[float32]("Reduce", src.Buf)[src.Offset:src.Offset+n], inner)
	case Float64:
		reduceRuns(op, host[float64]("Reduce", dst.Buf)[dst.Offset:], host[float64]("Reduce", src.Buf)[src.Offset:src.Offset+n], inner)
	case Int64:
		reduceRuns(op, host[int64]("Reduce", dst.Buf)[dst.Offset:], host[int64]("Reduce", src.Buf)[src.Offset:src.Offset+n], inner)
	default:
		return false
	}
	return true
}

// reduceRuns sets d[r] to the reduction of s[r*inner : (r+1)*inner], combined
// with the identity as the general kernel does (so that, e.g., a sum of -0 is +0
// there and here alike).
func reduceRuns[T Num](op ReduceOp, d, s []T, inner int) {
	rs := reduceState[T]{op: op, s: s}
	id := identity[T](op)
	for r := range len(s) / inner {
		d[r] = combine(op, id, combine(op, id, rs.row(r*inner, inner, 1)))
	}
}
