package tensor

import (
	"math"

	"github.com/goagx/agx/tensor/internal/vec"
)

// Binary implements Backend.
func (CPU) Binary(op BinaryOp, dst, a, b View) {
	if !op.IsLogical() && !op.IsCompare() && (flatArith(op, dst, a, b) || rowArith(op, dst, a, b)) {
		return
	}
	sh := dst.Shape
	st := [][]int{dst.Strides, a.Strides, b.Strides}
	off := []int{dst.Offset, a.Offset, b.Offset}
	switch {
	case op.IsLogical():
		logicalKernel(op, host[bool]("Binary", dst.Buf), host[bool]("Binary", a.Buf), host[bool]("Binary", b.Buf), sh, st, off)
	case op.IsCompare():
		d := host[bool]("Binary", dst.Buf)
		switch a.DType() {
		case Float32:
			compareKernel(op, d, host[float32]("Binary", a.Buf), host[float32]("Binary", b.Buf), sh, st, off)
		case Float64:
			compareKernel(op, d, host[float64]("Binary", a.Buf), host[float64]("Binary", b.Buf), sh, st, off)
		case Int64:
			compareKernel(op, d, host[int64]("Binary", a.Buf), host[int64]("Binary", b.Buf), sh, st, off)
		default:
			Panicf("Binary", ErrDType, "comparison of %v operands", a.DType())
		}
	default:
		switch dst.DType() {
		case Float32:
			arithKernel(op, host[float32]("Binary", dst.Buf), host[float32]("Binary", a.Buf), host[float32]("Binary", b.Buf), sh, st, off)
		case Float64:
			arithKernel(op, host[float64]("Binary", dst.Buf), host[float64]("Binary", a.Buf), host[float64]("Binary", b.Buf), sh, st, off)
		case Int64:
			arithKernel(op, host[int64]("Binary", dst.Buf), host[int64]("Binary", a.Buf), host[int64]("Binary", b.Buf), sh, st, off)
		default:
			Panicf("Binary", ErrDType, "arithmetic on %v operands", dst.DType())
		}
	}
}

func isNaN[T Num](x T) bool { return x != x }

func arithScalar[T Num](op BinaryOp) func(x, y T) T {
	switch op {
	case OpAdd:
		return func(x, y T) T { return x + y }
	case OpSub:
		return func(x, y T) T { return x - y }
	case OpMul:
		return func(x, y T) T { return x * y }
	case OpDiv:
		return func(x, y T) T { return x / y }
	case OpPow:
		if _, f32 := any(T(0)).(float32); f32 {
			return func(x, y T) T { return T(powPair32(float32(x), float32(y))) }
		}
		return func(x, y T) T {
			if y == 2 {
				return x * x
			}
			return T(math.Pow(float64(x), float64(y)))
		}
	case OpMaximum:
		return func(x, y T) T {
			if isNaN(x) || x > y {
				return x
			}
			return y
		}
	case OpMinimum:
		return func(x, y T) T {
			if isNaN(x) || x < y {
				return x
			}
			return y
		}
	}
	Panicf("Binary", ErrArg, "unknown arithmetic op %d", op)
	return nil
}

func arithKernel[T Num](op BinaryOp, d, a, b []T, sh []int, st [][]int, off []int) {
	f := arithScalar[T](op)
	pmin := parallelMin
	if vecArith[T](op) {
		pmin = parallelMinCheap(DTypeOf[T]().Size())
	}
	forEachRow3(pmin, sh, st, off, func(p, q, r, n int, in []int, m int, step []int) {
		if m > 1 && arithRows(op, d, a, b, p, q, r, n, in, m, step) {
			return
		}
		for k := range m {
			if k > 0 {
				p, q, r = p+step[0], q+step[1], r+step[2]
			}
			arithRow(op, f, d, a, b, p, q, r, n, in)
		}
	})
}

// arithRow computes one row of n elements of an arithmetic op.
func arithRow[T Num](op BinaryOp, f func(x, y T) T, d, a, b []T, p, q, r, n int, in []int) {
	switch {
	case in[0] == 1 && in[1] == 1 && in[2] == 1:
		dd, aa, bb := d[p:p+n], a[q:q+n], b[r:r+n]
		if vecBinary(op, dd, aa, bb) {
			return
		}
		aa, bb = aa[:len(dd)], bb[:len(dd)] // lets the compiler drop bounds checks
		for i := range dd {
			dd[i] = f(aa[i], bb[i])
		}
	case in[0] == 1 && in[1] == 1 && in[2] == 0:
		dd, aa, y := d[p:p+n], a[q:q+n], b[r]
		if vecBinaryScalar(op, dd, aa, y) {
			return
		}
		dd = dd[:len(aa)]
		for i, x := range aa {
			dd[i] = f(x, y)
		}
	case in[0] == 1 && in[1] == 0 && in[2] == 1:
		dd, x, bb := d[p:p+n], a[q], b[r:r+n]
		if vecScalarBinary(op, dd, x, bb) {
			return
		}
		dd = dd[:len(bb)]
		for i, y := range bb {
			dd[i] = f(x, y)
		}
	default:
		for range n {
			d[p] = f(a[q], b[r])
			p, q, r = p+in[0], q+in[1], r+in[2]
		}
	}
}

// arithRows runs m rows of a float op of vecOp (add, sub, mul, div,
// maximum, minimum) whose rows are dense in the destination, each operand
// dense or one scalar along the row, and at least vecMin long, in one call
// of vec.BinaryRows (see forEachRow3), and reports whether it did;
// otherwise the caller runs the rows one by one.
func arithRows[T Num](op BinaryOp, d, a, b []T, p, q, r, n int, in []int, m int, step []int) bool {
	o, ok := vecOp(op)
	if !ok || n < vecMin || in[0] != 1 {
		return false
	}
	switch dd := any(d).(type) {
	case []float32:
		return vecRows(o, op, dd, any(a).([]float32), any(b).([]float32), p, q, r, n, in, m, step)
	case []float64:
		return vecRows(o, op, dd, any(a).([]float64), any(b).([]float64), p, q, r, n, in, m, step)
	}
	return false
}

// vecRows is arithRows for a float type: all m rows in one call of
// vec.BinaryRows, which runs the kernel of a row (Binary, BinaryScalar or
// ScalarBinary) on each in turn. A division by a scalar a row divides,
// where vecBinaryScalar multiplies by an exact reciprocal: the same bits.
func vecRows[T vec.Float](o vec.Op, op BinaryOp, d, a, b []T, p, q, r, n int, in []int, m int, step []int) bool {
	var f vec.Form
	switch {
	case step[0] < 0 || step[1] < 0 || step[2] < 0:
		return false
	case in[1] == 1 && in[2] == 1:
		f = vec.VV
	case in[1] == 1 && in[2] == 0:
		f = vec.VS
	case in[1] == 0 && in[2] == 1:
		f = vec.SV
	default:
		return false
	}
	vec.BinaryRows(o, f, d[p:], a[q:], b[r:], n, m, step[0], step[1], step[2])
	return true
}

func compareKernel[T Num](op BinaryOp, d []bool, a, b []T, sh []int, st [][]int, off []int) {
	var f func(x, y T) bool
	switch op {
	case OpEq:
		f = func(x, y T) bool { return x == y }
	case OpNe:
		f = func(x, y T) bool { return x != y }
	case OpLt:
		f = func(x, y T) bool { return x < y }
	case OpLe:
		f = func(x, y T) bool { return x <= y }
	case OpGt:
		f = func(x, y T) bool { return x > y }
	case OpGe:
		f = func(x, y T) bool { return x >= y }
	}
	forEachRow(sh, st, off, func(o []int, n int, in []int) {
		if compareFast(op, d, a, b, o, n, in) {
			return
		}
		for i, p, q, r := 0, o[0], o[1], o[2]; i < n; i, p, q, r = i+1, p+in[0], q+in[1], r+in[2] {
			d[p] = f(a[q], b[r])
		}
	})
}

func logicalKernel(op BinaryOp, d, a, b []bool, sh []int, st [][]int, off []int) {
	forEachRow(sh, st, off, func(o []int, n int, in []int) {
		if in[0] == 1 && in[1] == 1 && in[2] == 1 {
			logicalRow(op, d[o[0]:o[0]+n], a[o[1]:o[1]+n], b[o[2]:o[2]+n])
			return
		}
		for i, p, q, r := 0, o[0], o[1], o[2]; i < n; i, p, q, r = i+1, p+in[0], q+in[1], r+in[2] {
			switch op {
			case OpAnd:
				d[p] = a[q] && b[r]
			case OpOr:
				d[p] = a[q] || b[r]
			default:
				d[p] = a[q] != b[r]
			}
		}
	})
}

// Where implements Backend.
func (CPU) Where(dst, cond, a, b View) {
	c := host[bool]("Where", cond.Buf)
	sh := dst.Shape
	st := [][]int{dst.Strides, cond.Strides, a.Strides, b.Strides}
	off := []int{dst.Offset, cond.Offset, a.Offset, b.Offset}
	switch dst.DType() {
	case Float32:
		whereKernel(host[float32]("Where", dst.Buf), c, host[float32]("Where", a.Buf), host[float32]("Where", b.Buf), sh, st, off)
	case Float64:
		whereKernel(host[float64]("Where", dst.Buf), c, host[float64]("Where", a.Buf), host[float64]("Where", b.Buf), sh, st, off)
	case Int64:
		whereKernel(host[int64]("Where", dst.Buf), c, host[int64]("Where", a.Buf), host[int64]("Where", b.Buf), sh, st, off)
	case Bool:
		whereKernel(host[bool]("Where", dst.Buf), c, host[bool]("Where", a.Buf), host[bool]("Where", b.Buf), sh, st, off)
	}
}

func whereKernel[T Elem](d []T, c []bool, a, b []T, sh []int, st [][]int, off []int) {
	forEachRow(sh, st, off, func(o []int, n int, in []int) {
		if whereFast(d, c, a, b, o, n, in) {
			return
		}
		for i, p, q, r, s := 0, o[0], o[1], o[2], o[3]; i < n; i, p, q, r, s = i+1, p+in[0], q+in[1], r+in[2], s+in[3] {
			if c[q] {
				d[p] = a[r]
			} else {
				d[p] = b[s]
			}
		}
	})
}

// flatLayout reports whether v covers its elements contiguously from Offset
// (a dense row-major tensor or a single element), and how many it has.
func flatLayout(v View) (n int, ok bool) {
	n, s := 1, 1
	for i := len(v.Shape) - 1; i >= 0; i-- {
		if v.Shape[i] != 1 && v.Strides[i] != s {
			ok = false
			for _, d := range v.Shape {
				n *= d
			}
			return n, n == 1
		}
		s *= v.Shape[i]
		n *= v.Shape[i]
	}
	return n, true
}

// singleElement reports whether every element of v is the one at Offset (a
// single element broadcast with stride 0).
func singleElement(v View) bool {
	for i, d := range v.Shape {
		if d != 1 && v.Strides[i] != 0 {
			return false
		}
	}
	return true
}

// flatArith is the allocation-free path of small arithmetic ops: dst dense,
// each operand dense with dst's size or a single (broadcast) element. Large
// ops keep the general path, which spreads the work over the cores.
func flatArith(op BinaryOp, dst, a, b View) bool {
	n, ok := flatLayout(dst)
	pmin := parallelMin
	if _, cheap := vecOp(op); cheap {
		pmin = parallelMinCheap(dst.DType().Size()) // flatArith only takes float dtypes
	}
	if !ok || n >= pmin {
		return false
	}
	if n == 0 {
		return true // nothing to write (a stride-0 operand may have no element)
	}
	na, oka := flatLayout(a)
	if !oka && singleElement(a) {
		na, oka = 1, true // a Go number or 0-d tensor expanded to dst's shape
	}
	nb, okb := flatLayout(b)
	if !okb && singleElement(b) {
		nb, okb = 1, true
	}
	if !oka || !okb || (na != n && na != 1) || (nb != n && nb != 1) {
		return false
	}
	switch dst.DType() {
	case Float32:
		flatKernel(op, host[float32]("Binary", dst.Buf)[dst.Offset:dst.Offset+n],
			host[float32]("Binary", a.Buf)[a.Offset:a.Offset+na], host[float32]("Binary", b.Buf)[b.Offset:b.Offset+nb])
	case Float64:
		flatKernel(op, host[float64]("Binary", dst.Buf)[dst.Offset:dst.Offset+n],
			host[float64]("Binary", a.Buf)[a.Offset:a.Offset+na], host[float64]("Binary", b.Buf)[b.Offset:b.Offset+nb])
	default:
		return false
	}
	return true
}

// flatKernel computes d = a op b where a and b have len(d) elements or one.
func flatKernel[T Float](op BinaryOp, d, a, b []T) {
	switch {
	case len(a) == len(d) && len(b) == len(d):
		if vecBinary(op, d, a, b) {
			return
		}
	case len(a) == len(d):
		if vecBinaryScalar(op, d, a, b[0]) {
			return
		}
	case len(b) == len(d):
		if vecScalarBinary(op, d, a[0], b) {
			return
		}
	}
	f := arithScalar[T](op)
	for i := range d {
		x, y := a[0], b[0]
		if len(a) > 1 {
			x = a[i]
		}
		if len(b) > 1 {
			y = b[i]
		}
		d[i] = f(x, y)
	}
}

// Row broadcasts.
//
// x - max(x, keepdim), e / sum(e, keepdim) and x + bias combine a dense
// operand with one that is broadcast along the last dim (one value per row)
// or along every other dim (one row for all rows): the steps of a softmax,
// a log-sum-exp or a normalisation. On small tensors the general path's
// collapsed iteration space, row closure and offsets (five allocations an
// op) cost more than the arithmetic; rowArith runs them row by row with
// the vector kernels and allocates nothing. gradcheck_logsumexp, whose
// forward is mostly such ops on [4,16], spends a third of its time in them.

// rowShape classifies an operand v of a binary op whose destination is
// dense with v's shape (after broadcasting), with rows of the last dim's
// length: rowFull (dense, one element per destination element), rowCol (one
// element per row, the last dim broadcast, the rows dense) or rowRow (one
// row for all rows, every other dim broadcast); else rowNone.
func rowShape(v View) rowKind {
	last := len(v.Shape) - 1
	if last < 1 {
		return rowNone
	}
	if _, ok := flatLayout(v); ok {
		return rowFull
	}
	if v.Shape[last] == 1 || v.Strides[last] == 0 {
		s := 1
		for i := last - 1; i >= 0; i-- {
			if v.Shape[i] != 1 && v.Strides[i] != s {
				return rowNone
			}
			s *= v.Shape[i]
		}
		return rowCol
	}
	if v.Strides[last] != 1 {
		return rowNone
	}
	for i := last - 1; i >= 0; i-- {
		if v.Shape[i] != 1 && v.Strides[i] != 0 {
			return rowNone
		}
	}
	return rowRow
}

type rowKind uint8

const (
	rowNone rowKind = iota
	rowFull
	rowCol
	rowRow
)

// rowArith computes a small float arithmetic op whose destination is dense
// and whose operands are one dense and one row-broadcast (see rowShape),
// row by row, and reports whether it did. Large ops keep the general path,
// which spreads them over the cores.
func rowArith(op BinaryOp, dst, a, b View) bool {
	n, ok := flatLayout(dst)
	if !ok || n == 0 || len(dst.Shape) < 2 {
		return false
	}
	pmin := parallelMin
	if _, cheap := vecOp(op); cheap {
		pmin = parallelMinCheap(dst.DType().Size())
	}
	if n >= pmin {
		return false
	}
	ka, kb := rowShape(a), rowShape(b)
	if !(ka == rowFull && (kb == rowCol || kb == rowRow) || kb == rowFull && (ka == rowCol || ka == rowRow)) {
		return false
	}
	switch dst.DType() {
	case Float32:
		rowKernel(op, host[float32]("Binary", dst.Buf)[dst.Offset:dst.Offset+n], host[float32]("Binary", a.Buf), host[float32]("Binary", b.Buf), a.Offset, b.Offset, ka, kb, dst.Shape[len(dst.Shape)-1])
	case Float64:
		rowKernel(op, host[float64]("Binary", dst.Buf)[dst.Offset:dst.Offset+n], host[float64]("Binary", a.Buf), host[float64]("Binary", b.Buf), a.Offset, b.Offset, ka, kb, dst.Shape[len(dst.Shape)-1])
	default:
		return false
	}
	return true
}

// rowKernel computes d = a op b row by row (rows of cols elements), a and b
// starting at aOff and bOff and laid out as ka and kb say.
func rowKernel[T Float](op BinaryOp, d, a, b []T, aOff, bOff int, ka, kb rowKind, cols int) {
	var f func(x, y T) T // the scalar op, for rows the vector kernels leave
	scalar := func() func(x, y T) T {
		if f == nil {
			f = arithScalar[T](op)
		}
		return f
	}
	for r, lo := 0, 0; lo < len(d); r, lo = r+1, lo+cols {
		dd := d[lo : lo+cols]
		switch {
		case ka == rowFull && kb == rowCol:
			aa, y := a[aOff+lo:aOff+lo+cols], b[bOff+r]
			if !vecBinaryScalar(op, dd, aa, y) {
				f := scalar()
				for i, x := range aa {
					dd[i] = f(x, y)
				}
			}
		case ka == rowCol && kb == rowFull:
			x, bb := a[aOff+r], b[bOff+lo:bOff+lo+cols]
			if !vecScalarBinary(op, dd, x, bb) {
				f := scalar()
				for i, y := range bb {
					dd[i] = f(x, y)
				}
			}
		default: // a full row and a shared row
			aa, bb := a[aOff:aOff+cols], b[bOff:bOff+cols]
			if ka == rowFull {
				aa = a[aOff+lo : aOff+lo+cols]
			} else {
				bb = b[bOff+lo : bOff+lo+cols]
			}
			if !vecBinary(op, dd, aa, bb) {
				f := scalar()
				for i := range dd {
					dd[i] = f(aa[i], bb[i])
				}
			}
		}
	}
}
