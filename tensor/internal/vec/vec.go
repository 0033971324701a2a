package vec

import (
	"fmt"
	"math"
	"unsafe"
)

//go:generate go run gen.go

// Float is the element types the package handles.
type Float interface{ float32 | float64 }

// Op is an element-wise binary operation.
type Op uint8

// The operations, in the order of the routine tables. Maximum(x, y) is x
// when x is NaN or x > y, else y; Minimum the same with x < y. So a NaN in
// either operand gives a NaN, as torch.maximum does, and of two equal
// operands (+0 and -0 among them) the result is y.
const (
	Add Op = iota
	Sub
	Mul
	Div
	Maximum
	Minimum
	numOps
)

// impl is one implementation of the loops for element type T. Every routine
// takes a length n and pointers to the first elements (which it reads only
// when n > 0; the rows routines, which take m rows of n, only with m and n
// above 0).
type impl[T Float] struct {
	name string
	// vv[op] computes dst[i] = a[i] op b[i].
	vv [numOps]func(dst, a, b *T, n int)
	// vs[op] computes dst[i] = a[i] op s, sv[op] dst[i] = s op a[i].
	vs, sv [numOps]func(dst, a *T, s T, n int)
	// sumLeaf sums n elements in lanes(T) interleaved partial sums (see Sum).
	sumLeaf func(v *T, n int) T
	// sumRows sets dst[r] = sumLeaf(src + r·stride, n) for r < m.
	sumRows func(dst, src *T, n, m, stride int)
	// addRows adds the m rows of n elements from src, stride elements
	// apart, into dst in order: dst[j] += row[j].
	addRows func(dst, src *T, n, m, stride int)
	// maxRows and minRows fold the rows into dst in order with Maximum and
	// Minimum: dst[j] = op(row[j], dst[j]).
	maxRows, minRows func(dst, src *T, n, m, stride int)
	// dotLeaf is sumLeaf of the products a[i]·b[i] (see Dot).
	dotLeaf func(a, b *T, n int) T
	// maxLeaf and minLeaf return the largest (smallest) of n elements, n a
	// positive multiple of extremeBlock, and whether a NaN may be among
	// them (see Max).
	maxLeaf, minLeaf func(v *T, n int) (T, bool)
	kernels[T]
}

// active returns the implementation in use for T: the first of impls32 or
// impls64 that this CPU runs.
func active[T Float]() *impl[T] {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(active32).(*impl[T])
	}
	return any(active64).(*impl[T])
}

var (
	active32 = impls32()[0]
	active64 = impls64()[0]
)

// Name names the implementation in use for T ("avx512", "avx2" or "go").
func Name[T Float]() string { return active[T]().name }

func checkLen(fn string, n, m int) {
	if n != m {
		panic(fmt.Sprintf("vec: %s: operand of length %d for a destination of length %d", fn, m, n))
	}
}

// Binary sets dst[i] = a[i] op b[i]. The slices must have the same length.
func Binary[T Float](op Op, dst, a, b []T) {
	checkLen("Binary", len(dst), len(a))
	checkLen("Binary", len(dst), len(b))
	active[T]().vv[op](unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), len(dst))
}

// BinaryScalar sets dst[i] = a[i] op s. The slices must have the same length.
func BinaryScalar[T Float](op Op, dst, a []T, s T) {
	checkLen("BinaryScalar", len(dst), len(a))
	active[T]().vs[op](unsafe.SliceData(dst), unsafe.SliceData(a), s, len(dst))
}

// ScalarBinary sets dst[i] = s op b[i]. The slices must have the same length.
func ScalarBinary[T Float](op Op, dst []T, s T, b []T) {
	checkLen("ScalarBinary", len(dst), len(b))
	active[T]().sv[op](unsafe.SliceData(dst), unsafe.SliceData(b), s, len(dst))
}

// Form is how BinaryRows reads its operands: both as rows (VV), a as rows
// and b as one scalar a row (VS), or a as one scalar a row and b as rows
// (SV).
type Form uint8

const (
	VV Form = iota
	VS
	SV
)

const (
	formVV = int(VV)
	formVS = int(VS)
	formSV = int(SV)
)

// BinaryRows computes m rows of n elements: for i < m and j < n,
// dst[i·sd+j] = x op y with x = a[i·sa+j] (a[i·sa] for SV) and y =
// b[i·sb+j] (b[i·sb] for VS). That is the bits of m calls of Binary,
// BinaryScalar or ScalarBinary, one a row, in order, in one call (a
// broadcast whose rows are short). The strides must not be negative,
// every row must fit in its slice, and the rows of dst must not overlap
// those of a or b except by being the same elements.
func BinaryRows[T Float](op Op, f Form, dst, a, b []T, n, m, sd, sa, sb int) {
	if m <= 0 || n <= 0 {
		if m < 0 || n < 0 {
			panic(fmt.Sprintf("vec: BinaryRows: %d rows of %d elements", m, n))
		}
		return
	}
	na, nb := n, n
	switch f {
	case VS:
		nb = 1
	case SV:
		na = 1
	}
	checkRows("BinaryRows", len(dst), n, m, sd)
	checkRows("BinaryRows", len(a), na, m, sa)
	checkRows("BinaryRows", len(b), nb, m, sb)
	active[T]().rows[f][op](unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), n, m, sd, sa, sb)
}

// lanes is the number of interleaved partial sums of Sum's leaf: as many as
// four AVX2 vectors hold (32 float32, 16 float64).
func lanes[T Float]() int { return 128 / int(unsafe.Sizeof(T(0))) }

// SumBlock returns the length of Sum's leaf runs for T (1024 float32, 512
// float64): 32 elements per partial sum.
func SumBlock[T Float]() int { return 32 * lanes[T]() }

// Sum returns the sum of v by pairwise (cascade) summation over runs of
// SumBlock elements. A run is summed in L = lanes interleaved partial sums
// (partial sum j adds the elements at j, j+L, j+2L, ... in order, from +0),
// which are then folded in halves: partial j += partial j+w for w = L/2,
// L/4, ..., 1. A longer v is split at half its length rounded up to whole runs
// and the two halves' sums added. Each element thus passes through at most 32
// additions in its partial sum and about log2(len(v)) above it, so the
// rounding error grows with the logarithm of the length; the result does not
// depend on the implementation. The sum of no elements, and of only zeros, is
// +0.
func Sum[T Float](v []T) T {
	return pairwise(active[T]().sumLeaf, v, SumBlock[T]())
}

// SumRows sets dst[r] to the Sum of the n elements of src from r·stride on,
// for every r < len(dst): the bits of len(dst) calls of Sum, in one call
// for callers that sum many short rows (a sum over the last dim). Rows may
// overlap (stride < n); src must hold them all.
func SumRows[T Float](dst, src []T, n, stride int) {
	m := len(dst)
	checkRows("SumRows", len(src), n, m, stride)
	if m == 0 {
		return
	}
	im, block := active[T](), SumBlock[T]()
	if n <= block {
		im.sumRows(unsafe.SliceData(dst), unsafe.SliceData(src), n, m, stride)
		return
	}
	for r := range dst {
		dst[r] = pairwise(im.sumLeaf, src[r*stride:r*stride+n], block)
	}
}

// AddRows adds to dst, element by element, the m rows of len(dst) elements
// of src that start stride elements apart, in order: dst[j] += src[r·stride+j]
// for r = 0, 1, ..., m-1. That is the bits of m calls of Binary(Add, dst,
// dst, row), with dst kept in registers while the rows go by (a sum over a
// dim other than the last). src must hold the rows; it must not overlap dst.
func AddRows[T Float](dst, src []T, m, stride int) {
	n := len(dst)
	checkRows("AddRows", len(src), n, m, stride)
	if m == 0 || n == 0 {
		return
	}
	active[T]().addRows(unsafe.SliceData(dst), unsafe.SliceData(src), n, m, stride)
}

// MaxRows folds into dst, element by element, the m rows of len(dst)
// elements of src that start stride elements apart, in order: dst[j] =
// Maximum(src[r·stride+j], dst[j]) for r = 0, 1, ..., m-1, so the row's
// element where it is larger or NaN, else dst's. That is the bits of m
// calls of Binary(Maximum, dst, row, dst), with dst kept in registers while
// the rows go by (a maximum over a dim other than the last). src must hold
// the rows; it must not overlap dst.
func MaxRows[T Float](dst, src []T, m, stride int) {
	n := len(dst)
	checkRows("MaxRows", len(src), n, m, stride)
	if m == 0 || n == 0 {
		return
	}
	active[T]().maxRows(unsafe.SliceData(dst), unsafe.SliceData(src), n, m, stride)
}

// MinRows is MaxRows with Minimum: dst[j] = Minimum(src[r·stride+j],
// dst[j]) for each row in order.
func MinRows[T Float](dst, src []T, m, stride int) {
	n := len(dst)
	checkRows("MinRows", len(src), n, m, stride)
	if m == 0 || n == 0 {
		return
	}
	active[T]().minRows(unsafe.SliceData(dst), unsafe.SliceData(src), n, m, stride)
}

// checkRows panics unless m rows of n elements, stride apart, fit in a
// slice of length ls. It divides rather than multiplies, so that no
// stride large enough to overflow (m-1)·stride passes.
func checkRows(fn string, ls, n, m, stride int) {
	if n < 0 || m < 0 || stride < 0 {
		panic(fmt.Sprintf("vec: %s: negative rows, length or stride (%d rows of %d, stride %d)", fn, m, n, stride))
	}
	if m > 0 && (n > ls || m > 1 && stride > (ls-n)/(m-1)) {
		panic(fmt.Sprintf("vec: %s: %d rows of %d elements, stride %d, do not fit in a slice of length %d", fn, m, n, stride, ls))
	}
}

// Dot returns Σ a[i]·b[i], each product rounded to T (no fused
// multiply-add) and the products summed in Sum's order: pairwise over runs
// of SumBlock elements, a run in lanes interleaved partial sums folded in
// halves. Its rounding error thus grows with the logarithm of the length,
// and the result does not depend on the implementation. The slices must
// have the same length; the dot product of empty slices is +0.
func Dot[T Float](a, b []T) T {
	checkLen("Dot", len(a), len(b))
	return pairwise2(active[T]().dotLeaf, a, b, SumBlock[T]())
}

// Max returns the largest element of v, exactly as the loop
//
//	m := -Inf
//	for _, x := range v {
//		if x > m { m = x } else if x != x { return x }
//	}
//	return m
//
// does: the first NaN of v if it has one, else the first element with the
// largest value (-0 or +0 for a largest value of zero), -Inf for an empty v.
func Max[T Float](v []T) T { return extreme(active[T]().maxLeaf, v, true) }

// Min is Max for the smallest element (+Inf for an empty v).
func Min[T Float](v []T) T { return extreme(active[T]().minLeaf, v, false) }

// extremeBlock is the element count the extreme leaves work in multiples of.
func extremeBlock[T Float]() int { return 4 * lanes[T]() }

func extreme[T Float](leaf func(v *T, n int) (T, bool), v []T, isMax bool) T {
	n := len(v) / extremeBlock[T]() * extremeBlock[T]()
	if n == 0 {
		return extremeGo(v, isMax)
	}
	m, nan := leaf(unsafe.SliceData(v), n)
	if nan {
		// A NaN, or infinities that summed to one: the plain loop decides.
		return extremeGo(v, isMax)
	}
	for _, x := range v[n:] {
		switch {
		case x != x:
			return x
		case isMax && x > m, !isMax && x < m:
			m = x
		}
	}
	if m == 0 {
		// The sign of the first zero, as the loop keeps it.
		for _, x := range v {
			if x == 0 {
				return x
			}
		}
	}
	return m
}

// extremeGo is the loop of Max (isMax) or Min.
func extremeGo[T Float](v []T, isMax bool) T {
	m := T(math.Inf(1))
	if isMax {
		m = T(math.Inf(-1))
	}
	for _, x := range v {
		switch {
		case isMax && x > m, !isMax && x < m:
			m = x
		case x != x:
			return x
		}
	}
	return m
}

// SumParts returns Sum(v), the sums of the subtrees below Sum's top depth
// levels computed by run, which must call part(i) once for each i < n, on
// any goroutines (a tree's leaf, a single run, is a part of its own at a
// smaller depth). The parts' sums are added as Sum adds them, so the result
// is Sum(v) to the bit at any depth: a sum split over the cores gives the
// serial bits.
func SumParts[T Float](v []T, depth int, run func(n int, part func(i int))) T {
	im, block := active[T](), SumBlock[T]()
	var parts [][]T
	var split func(v []T, d int)
	split = func(v []T, d int) {
		if d == 0 || len(v) <= block {
			parts = append(parts, v)
			return
		}
		h := pairwiseHalf(len(v), block)
		split(v[:h], d-1)
		split(v[h:], d-1)
	}
	split(v, depth)
	sums := make([]T, len(parts))
	run(len(parts), func(i int) { sums[i] = pairwise(im.sumLeaf, parts[i], block) })
	next := 0
	var add func(v []T, d int) T
	add = func(v []T, d int) T {
		if d == 0 || len(v) <= block {
			next++
			return sums[next-1]
		}
		h := pairwiseHalf(len(v), block)
		l := add(v[:h], d-1)
		return l + add(v[h:], d-1)
	}
	return add(v, depth)
}

// pairwiseHalf is where pairwise splits n > block elements: at half of n
// rounded up to whole blocks.
func pairwiseHalf(n, block int) int { return (n/2 + block - 1) / block * block }

func pairwise[T Float](leaf func(v *T, n int) T, v []T, block int) T {
	if len(v) <= block {
		return leaf(unsafe.SliceData(v), len(v))
	}
	h := pairwiseHalf(len(v), block)
	return pairwise(leaf, v[:h], block) + pairwise(leaf, v[h:], block)
}

// pairwise2 is pairwise for a leaf of two slices of one length.
func pairwise2[T Float](leaf func(a, b *T, n int) T, a, b []T, block int) T {
	if len(a) <= block {
		return leaf(unsafe.SliceData(a), unsafe.SliceData(b), len(a))
	}
	h := pairwiseHalf(len(a), block)
	return pairwise2(leaf, a[:h], b[:h], block) + pairwise2(leaf, a[h:], b[h:], block)
}
