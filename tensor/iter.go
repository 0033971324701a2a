package tensor

import (
	"runtime"

	"github.com/goagx/agx/tensor/internal/team"
)

// parallelMin is the element count above which element-wise kernels split their
// work across goroutines. Below it the goroutine hand-off costs more than it saves.
var parallelMin = 1 << 16

// cheapFactor raises the split threshold for kernels that do about one memory
// pass per element: the vectorised float add, sub, mul and div, and float sums.
// At 0.1-0.15 ns per element (one core, data in L2) a [256,512] float32 add
// takes ~17 µs, the same order as handing half of it to a second goroutine
// and waiting for it (waking an idle thread costs several µs on a VM, and on a
// shared machine the second core is often busy, so the split waits for the
// slower half). With factor 2 they split from 2^17 float32 elements (512
// KiB, the same in every dtype: parallelMinCheap), so a [256,512]
// float32 result is written by both cores of a 2-core machine, as PyTorch's
// does. On the project's 2-vCPU VM with GOMAXPROCS=2 (three alternating runs
// of `agx bench -no-torch`, against factor 8): course_gelu 1.14 ms to 760 µs,
// course_my_sigmoid 476 to 340 µs, mul_self 111 to 80 µs, batchnorm_backward
// 523 to 425 µs, rows that do not split within the noise. (Factor 8 had been
// the better one while a collection on two Ps cost more; see heapfloor.go.)
// Costlier kernels (exp, tanh, pow by math.Pow, comparisons, strided
// gathers) keep parallelMin.
const cheapFactor = 2

// parallelMinCheap is parallelMin for the cheap kernels over elements of
// size bytes (see cheapFactor). Their cost is memory traffic, so they split
// from the same number of bytes in every dtype: 512 KiB, 2^17 float32 or
// 2^16 float64 elements. Counted in elements, lesson 10's 1e5 float64 ops
// (800 KiB) ran on one core at GOMAXPROCS=2 while PyTorch split them; on
// the Zen 3 a float64 add of 512 or 800 KiB takes 24 and 37 µs on one core
// and 12 and 19 split over two (BenchmarkCheapSplit). It follows
// parallelMin, so tests that lower parallelMin to exercise the parallel
// paths reach these kernels' too.
func parallelMinCheap(size int) int { return max(1, parallelMin*cheapFactor*4/size) }

// workers is the number of goroutines large element-wise kernels use.
func workers() int { return runtime.GOMAXPROCS(0) }

// collapse simplifies an iteration space over several operands: size-1 dims are
// dropped and adjacent dims are merged when every operand steps through them
// contiguously. The result has at least one dim.
func collapse(shape []int, strides [][]int) ([]int, [][]int) {
	// One backing array for the collapsed shape and every operand's strides.
	r := max(len(shape), 1)
	buf := make([]int, 0, r*(len(strides)+1))
	cs := buf[0:0:r]
	cst := make([][]int, len(strides))
	for k := range cst {
		cst[k] = buf[r*(k+1) : r*(k+1) : r*(k+2)]
	}
	for i, s := range shape {
		if s == 1 {
			continue
		}
		if j := len(cs) - 1; j >= 0 {
			merge := true
			for k := range strides {
				if cst[k][j] != strides[k][i]*s {
					merge = false
					break
				}
			}
			if merge {
				cs[j] *= s
				for k := range strides {
					cst[k][j] = strides[k][i]
				}
				continue
			}
		}
		cs = append(cs, s)
		for k := range strides {
			cst[k] = append(cst[k], strides[k][i])
		}
	}
	if len(cs) == 0 {
		cs = append(cs, 1)
		for k := range cst {
			cst[k] = append(cst[k], 0)
		}
	}
	return cs, cst
}

// rowFunc processes one innermost row of n elements: operand k starts at offs[k]
// and advances by inner[k] per element.
type rowFunc func(offs []int, n int, inner []int)

// forEachRow runs fn over every innermost row of the iteration space given by
// shape, with per-operand strides and starting offsets. Spaces of parallelMin
// elements or more are split across goroutines; fn must only write to disjoint
// destination elements.
func forEachRow(shape []int, strides [][]int, offsets []int, fn rowFunc) {
	forEachRowMin(parallelMin, shape, strides, offsets, fn)
}

// forEachRowMin is forEachRow splitting spaces of at least pmin elements.
func forEachRowMin(pmin int, shape []int, strides [][]int, offsets []int, fn rowFunc) {
	if n, ok := denseRow(shape, strides); ok && (n < pmin || workers() < 2) {
		// Every operand is row-major and dense: the space is one row, and needs
		// no collapsed copy of the shape and strides, nor an odometer.
		if n > 0 {
			fn(offsets, n, unitStrides[:len(strides):len(strides)])
		}
		return
	}
	cs, cst := collapse(shape, strides)
	forEachRowIn(pmin, cs, cst, offsets, fn)
}

// shortRow is the row length below which forEachRow3 walks the rows of a
// run in a loop of its own instead of the odometer's, when there are at
// least shortRowsMin rows (below that, the loop's setup costs more than it
// saves).
const (
	shortRow     = 512
	shortRowsMin = 16
)

// rows3Func runs a kernel over m rows of n elements of three operands
// (destination and two sources): row k starts at offsets p, q and r plus k
// times step[0], step[1] and step[2] (step is nil when m is 1), and steps by
// inner within the row.
type rows3Func func(p, q, r, n int, inner []int, m int, step []int)

// forEachRow3 is forEachRowMin for three operands. When the collapsed
// space's rows are shorter than shortRow, it treats each row as one element
// of the space without the last dim and hands fn whole runs of rows along
// the next dim, to run in one loop (the arithmetic ops: in one call of
// vec.BinaryRows): a broadcast such as [32,64,1] - [32,1,64] has 2048
// rows of 64 elements, and advancing the odometer and calling the kernel
// cost more per row than the row's vector kernel. The split over the
// cores is then by rows, from pmin elements as before. Otherwise fn gets
// one row at a time.
func forEachRow3(pmin int, shape []int, strides [][]int, offsets []int, fn rows3Func) {
	if _, dense := denseRow(shape, strides); dense {
		forEachRowMin(pmin, shape, strides, offsets, fn.oneRow())
		return
	}
	cs, cst := collapse(shape, strides)
	if last := len(cs) - 1; last >= 1 && cs[last] < shortRow && NumelOf(cs[:last]) >= shortRowsMin {
		n := cs[last]
		inner := []int{cst[0][last], cst[1][last], cst[2][last]}
		outer := [][]int{cst[0][:last], cst[1][:last], cst[2][:last]}
		forEachRowMin((pmin+n-1)/n, cs[:last], outer, offsets, func(o []int, m int, step []int) {
			fn(o[0], o[1], o[2], n, inner, m, step)
		})
		return
	}
	forEachRowIn(pmin, cs, cst, offsets, fn.oneRow())
}

// oneRow adapts fn to a rowFunc, which hands it one row at a time.
func (fn rows3Func) oneRow() rowFunc {
	return func(o []int, n int, in []int) { fn(o[0], o[1], o[2], n, in, 1, nil) }
}

// forEachRowIn is forEachRow over a collapsed space. It is a function of its
// own so that forEachRow's arguments stay on its callers' stacks (only the
// collapsed copies are captured by the worker goroutines).
func forEachRowIn(pmin int, shape []int, strides [][]int, offsets []int, fn rowFunc) {
	nops := len(strides)
	last := len(shape) - 1
	// Scratch for the inner strides and, on the serial path, runRows' offsets
	// and odometer: one allocation.
	scratch := make([]int, 2*nops+last)
	inner := scratch[:nops:nops]
	for k := range strides {
		inner[k] = strides[k][last]
	}
	rowLen := shape[last]
	rows := 1
	for _, s := range shape[:last] {
		rows *= s
	}
	total := rows * rowLen
	if total == 0 {
		return
	}
	w := workers()
	if total < pmin || w < 2 {
		runRowsIn(shape, strides, offsets, 0, rows, fn, inner, scratch[nops:])
		return
	}
	if rows == 1 {
		// One long row: split it into chunks.
		chunk := (rowLen + w - 1) / w
		team.Do((rowLen+chunk-1)/chunk, w, func(c, _ int) {
			start := c * chunk
			offs := make([]int, nops)
			for k := range offs {
				offs[k] = offsets[k] + start*inner[k]
			}
			fn(offs, min(chunk, rowLen-start), inner)
		})
		return
	}
	per := (rows + w - 1) / w
	team.Do((rows+per-1)/per, w, func(c, _ int) {
		runRows(shape, strides, offsets, c*per, min(rows, (c+1)*per), fn, inner)
	})
}

// unitStrides holds the inner strides of a dense row for up to its length of
// operands; rowFuncs only read their inner strides.
var unitStrides = [...]int{1, 1, 1, 1, 1, 1, 1, 1}

// denseRow reports whether every operand steps through shape row-major and
// densely (stride 1 in the last non-trivial dim, and so on outwards), so that
// the whole space is one row of n elements, and returns n.
func denseRow(shape []int, strides [][]int) (n int, ok bool) {
	if len(strides) > len(unitStrides) {
		return 0, false
	}
	for _, st := range strides {
		s := 1
		for i := len(shape) - 1; i >= 0; i-- {
			if shape[i] != 1 && st[i] != s {
				return 0, false
			}
			s *= shape[i]
		}
		n = s
	}
	return n, true
}

// runRows runs fn over rows [r0, r1) of the collapsed space.
func runRows(shape []int, strides [][]int, offsets []int, r0, r1 int, fn rowFunc, inner []int) {
	runRowsIn(shape, strides, offsets, r0, r1, fn, inner, make([]int, len(strides)+len(shape)-1))
}

// runRowsIn is runRows with scratch space for the offsets and the odometer
// (len(strides) + len(shape) - 1 ints).
func runRowsIn(shape []int, strides [][]int, offsets []int, r0, r1 int, fn rowFunc, inner, scratch []int) {
	nops := len(strides)
	last := len(shape) - 1
	outer := shape[:last]
	offs := scratch[:nops:nops]
	idx := scratch[nops : nops+last]
	clear(idx)
	copy(offs, offsets)
	// position at row r0
	r := r0
	for d := len(outer) - 1; d >= 0; d-- {
		idx[d] = r % outer[d]
		r /= outer[d]
		for k := 0; k < nops; k++ {
			offs[k] += idx[d] * strides[k][d]
		}
	}
	for row := r0; row < r1; row++ {
		fn(offs, shape[last], inner)
		// advance the odometer
		for d := len(outer) - 1; d >= 0; d-- {
			idx[d]++
			for k := 0; k < nops; k++ {
				offs[k] += strides[k][d]
			}
			if idx[d] < outer[d] {
				break
			}
			for k := 0; k < nops; k++ {
				offs[k] -= idx[d] * strides[k][d]
			}
			idx[d] = 0
		}
	}
}

// forEachIndex calls fn with the flat offsets of every element, in row-major
// order, serially. It is the slow, simple path for kernels that are not hot.
func forEachIndex(shape []int, strides [][]int, offsets []int, fn func(offs []int)) {
	nops := len(strides)
	cur := make([]int, nops)
	runRowsSerial(shape, strides, offsets, func(offs []int, n int, inner []int) {
		copy(cur, offs)
		for i := 0; i < n; i++ {
			fn(cur)
			for k := 0; k < nops; k++ {
				cur[k] += inner[k]
			}
		}
	})
}

func runRowsSerial(shape []int, strides [][]int, offsets []int, fn rowFunc) {
	shape, strides = collapse(shape, strides)
	last := len(shape) - 1
	inner := make([]int, len(strides))
	rows := 1
	for _, s := range shape[:last] {
		rows *= s
	}
	for k := range strides {
		inner[k] = strides[k][last]
	}
	if rows*shape[last] == 0 {
		return
	}
	runRows(shape, strides, offsets, 0, rows, fn, inner)
}
