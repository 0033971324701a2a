package vec

import (
	"fmt"
	"math"
	"unsafe"
)

// kernels is the part of an implementation beyond the arithmetic: fused
// activation gradients, relu, comparisons and selections. Like impl's
// routines, each takes a length n and pointers it reads only when n > 0.
type kernels[T Float] struct {
	// grad[g] computes dst[i] = g'(y[i])·g[i], gradS[g] g'(y[i])·s (see
	// GradMul).
	grad  [2]func(dst, y, gr *T, n int)
	gradS [2]func(dst, y *T, s T, n int)
	// rows[f][op] computes m rows of n elements, the rows sd, sa and sb
	// elements apart in dst, a and b: row i as one call of impl's vv[op]
	// (f = 0), of vs[op] with s = b[i·sb] (f = 1) or of sv[op] with s =
	// a[i·sa] and the row of b (f = 2) (see BinaryRows).
	rows [3][numOps]func(dst, a, b *T, n, m, sd, sa, sb int)
	// relu computes dst[i] = max(a[i], 0).
	relu func(dst, a *T, n int)
	// reluGrad computes dst[i] = y[i] > 0 ? gr[i] : +0.
	reluGrad func(dst, y, gr *T, n int)
	// sqrt computes dst[i] = √a[i].
	sqrt func(dst, a *T, n int)
	// axpby computes dst[i] = sa·a[i] + sb·b[i].
	axpby func(dst, a, b *T, sa, sb T, n int)
	// mulAdd computes dst[i] = a[i]·b[i] + c[i].
	mulAdd func(dst, a, b, c *T, n int)
	// sumDiffSq and sumDiffProd accumulate the sums of SumDiffSq and
	// SumDiffProd; mulMulAdd computes dst[i] = a[i]·b[i] + (c[i]·d[i] + e[i]).
	sumDiffSq   func(s, q, x, v *T, n int)
	sumDiffProd func(s, q, gr, x, v *T, n int)
	mulMulAdd   func(dst, a, b, c, d, e *T, n int)
	// softmaxGrad computes g[i] = ((g[i] - dot)·y[i])·s.
	softmaxGrad func(gr, y *T, dot, s T, n int)
	// widen computes dst[i] = float64(a[i]), narrow dst[i] = float32(a[i]);
	// the float32 implementations have widen, the float64 ones narrow.
	widen  func(dst *float64, a *float32, n int)
	narrow func(dst *float32, a *float64, n int)
	// transpose computes dst[i·ld + j] = src[j·ls + i] for i < rows and
	// j < cols; its assembly versions take rows and cols that are
	// multiples of transposeBlock.
	transpose func(dst *T, ld int, src *T, ls, rows, cols int)
	// cmp[op] computes dst[i] = a[i] op b[i], cmpS[op] a[i] op s.
	cmp  [6]func(dst *bool, a, b *T, n int)
	cmpS [6]func(dst *bool, a *T, s T, n int)
	// sel computes dst[i] = c[i] ? a[i] : b[i], selVS c[i] ? a[i] : s and
	// selSV c[i] ? s : a[i], copying bits.
	sel          func(dst, a, b *T, c *bool, n int)
	selVS, selSV func(dst, a *T, c *bool, s T, n int)
	// unary[f] computes dst[i] = f(a[i]) (see Fn).
	unary [6]func(dst, a *T, n int)
	// clamp computes dst[i] = ClampOf(a[i], lo, hi).
	clamp func(dst, a *T, lo, hi T, n int)
}

// Grad is an activation whose gradient GradMul computes from its output.
type Grad uint8

// The activations.
const (
	// SigmoidGrad is y = sigmoid(x): dy/dx = (1-y)·y.
	SigmoidGrad Grad = iota
	// TanhGrad is y = tanh(x): dy/dx = 1 - y·y.
	TanhGrad
)

// GradMul sets dst[i] = ((1-y[i])·y[i])·g[i] (SigmoidGrad) or
// (1-y[i]·y[i])·g[i] (TanhGrad), rounding after every operation (no fused
// multiply-add), so the results are those of the scalar Go expressions
// (1-y)*y*g and (1-T(y*y))*g. The slices must have the same length; dst may
// be y or g.
func GradMul[T Float](gr Grad, dst, y, g []T) {
	checkLen("GradMul", len(dst), len(y))
	checkLen("GradMul", len(dst), len(g))
	active[T]().grad[gr](unsafe.SliceData(dst), unsafe.SliceData(y), unsafe.SliceData(g), len(dst))
}

// GradMulScalar is GradMul with g[i] = s for every i.
func GradMulScalar[T Float](gr Grad, dst, y []T, s T) {
	checkLen("GradMulScalar", len(dst), len(y))
	active[T]().gradS[gr](unsafe.SliceData(dst), unsafe.SliceData(y), s, len(dst))
}

// Relu sets dst[i] = ReluOf(a[i]): a[i] if it is positive or a NaN (with
// its bits unchanged), +0 if it is zero (of either sign) or negative. dst
// may be a.
func Relu[T Float](dst, a []T) {
	checkLen("Relu", len(dst), len(a))
	active[T]().relu(unsafe.SliceData(dst), unsafe.SliceData(a), len(dst))
}

// ReluGrad sets dst[i] = ReluGradOf(y[i], g[i]): g[i] (its bits) where
// y[i] > 0, +0 elsewhere, a NaN y[i] included. It is the gradient of Relu
// given its output y. The slices must have the same length; dst may be y
// or g.
func ReluGrad[T Float](dst, y, g []T) {
	checkLen("ReluGrad", len(dst), len(y))
	checkLen("ReluGrad", len(dst), len(g))
	active[T]().reluGrad(unsafe.SliceData(dst), unsafe.SliceData(y), unsafe.SliceData(g), len(dst))
}

// Sqrt sets dst[i] = √a[i], correctly rounded: bit for bit
// T(math.Sqrt(float64(a[i]))) (NaN for a negative a[i]). dst may be a.
func Sqrt[T Float](dst, a []T) {
	checkLen("Sqrt", len(dst), len(a))
	active[T]().sqrt(unsafe.SliceData(dst), unsafe.SliceData(a), len(dst))
}

// Transpose sets dst[i·ld + j] = src[j·ls + i] for i < rows and j < cols,
// copying bits: src holds cols rows of rows elements, ls elements apart,
// and dst receives their transpose, rows rows of cols elements, ld
// elements apart. The largest part whose sides are
// multiples of the kernels' block (8 float32 or 4 float64, a 256-bit
// vector) goes block by block in registers, the edges element by element.
// dst and src must not overlap.
func Transpose[T Float](dst []T, ld int, src []T, ls, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	if ld < cols || ls < rows || !spans(len(dst), rows, ld, cols) || !spans(len(src), cols, ls, rows) {
		panic(fmt.Sprintf("vec: Transpose: %d×%d with strides %d and %d over slices of %d and %d", rows, cols, ld, ls, len(dst), len(src)))
	}
	b := transposeBlock[T]()
	r, c := rows/b*b, cols/b*b
	if r > 0 && c > 0 {
		active[T]().transpose(&dst[0], ld, &src[0], ls, r, c)
	}
	if c < cols {
		goTranspose(&dst[c], ld, &src[c*ls], ls, rows, cols-c)
	}
	if r < rows && c > 0 {
		goTranspose(&dst[r*ld], ld, &src[r], ls, rows-r, c)
	}
}

// spans reports whether n rows of m elements, stride elements apart, fit
// in length elements: (n-1)·stride + m ≤ length, without overflow.
func spans(length, n, stride, m int) bool {
	return m <= length && (n == 1 || stride <= (length-m)/(n-1))
}

// transposeBlock is the side of the transpose kernels' blocks: one 256-bit
// vector of T.
func transposeBlock[T Float]() int {
	var z T
	return 32 / int(unsafe.Sizeof(z))
}

// goTranspose is the portable transpose kernel.
func goTranspose[T Float](dp *T, ld int, sp *T, ls, rows, cols int) {
	d := unsafe.Slice(dp, (rows-1)*ld+cols)
	s := unsafe.Slice(sp, (cols-1)*ls+rows)
	for j := range cols {
		sj := s[j*ls : j*ls+rows]
		for i, v := range sj {
			d[i*ld+j] = v
		}
	}
}

// Float32To64 sets dst[i] = float64(a[i]), Float64To32 dst[i] =
// float32(a[i]) (rounded to nearest, to ±Inf past the float32 range), with
// the bits of Go's conversions, NaN payloads included. The slices must have
// the same length and must not overlap.
func Float32To64(dst []float64, a []float32) {
	checkLen("Float32To64", len(dst), len(a))
	active32.widen(unsafe.SliceData(dst), unsafe.SliceData(a), len(dst))
}

// Float64To32 sets dst[i] = float32(a[i]); see Float32To64.
func Float64To32(dst []float32, a []float64) {
	checkLen("Float64To32", len(dst), len(a))
	active64.narrow(unsafe.SliceData(dst), unsafe.SliceData(a), len(dst))
}

// Axpby sets dst[i] = sa·a[i] + sb·b[i], rounding each product and then
// the sum (no fused multiply-add), so the results are those of the scalar
// Go expression T(sa*a[i]) + T(sb*b[i]). The slices must have the same
// length; dst may be a or b.
func Axpby[T Float](dst, a, b []T, sa, sb T) {
	checkLen("Axpby", len(dst), len(a))
	checkLen("Axpby", len(dst), len(b))
	active[T]().axpby(unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), sa, sb, len(dst))
}

// AxpbyOf is Axpby of one element.
func AxpbyOf[T Float](a, b, sa, sb T) T { return T(sa*a) + T(sb*b) }

// MulAdd sets dst[i] = a[i]·b[i] + c[i], rounding the product and then
// the sum (no fused multiply-add), so the results are those of the scalar
// Go expression T(a[i]*b[i]) + c[i]. The slices must have the same length;
// dst may be any of the operands.
func MulAdd[T Float](dst, a, b, c []T) {
	checkLen("MulAdd", len(dst), len(a))
	checkLen("MulAdd", len(dst), len(b))
	checkLen("MulAdd", len(dst), len(c))
	active[T]().mulAdd(unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), len(dst))
}

// MulAddOf is MulAdd of one element.
func MulAddOf[T Float](a, b, c T) T { return T(a*b) + c }

// SumDiffSq adds d = x[i] - v[i] to s[i] and d·d to q[i], rounding every
// operation (no fused multiply-add), as SumDiffSqOf. The slices must have
// the same length; s and q must not overlap each other, x or v.
func SumDiffSq[T Float](s, q, x, v []T) {
	checkLen("SumDiffSq", len(s), len(q))
	checkLen("SumDiffSq", len(s), len(x))
	checkLen("SumDiffSq", len(s), len(v))
	active[T]().sumDiffSq(unsafe.SliceData(s), unsafe.SliceData(q), unsafe.SliceData(x), unsafe.SliceData(v), len(s))
}

// SumDiffSqOf is SumDiffSq of one element: it returns the new s and q.
func SumDiffSqOf[T Float](s, q, x, v T) (T, T) {
	d := x - v
	return s + d, q + T(d*d)
}

// SumDiffProd adds g[i] to s[i] and (x[i] - v[i])·g[i] to q[i], rounding
// every operation (no fused multiply-add), as SumDiffProdOf. The slices
// must have the same length; s and q must not overlap each other or the
// other operands.
func SumDiffProd[T Float](s, q, g, x, v []T) {
	checkLen("SumDiffProd", len(s), len(q))
	checkLen("SumDiffProd", len(s), len(g))
	checkLen("SumDiffProd", len(s), len(x))
	checkLen("SumDiffProd", len(s), len(v))
	active[T]().sumDiffProd(unsafe.SliceData(s), unsafe.SliceData(q), unsafe.SliceData(g), unsafe.SliceData(x), unsafe.SliceData(v), len(s))
}

// SumDiffProdOf is SumDiffProd of one element: it returns the new s and q.
func SumDiffProdOf[T Float](s, q, g, x, v T) (T, T) {
	return s + g, q + T(T(x-v)*g)
}

// MulMulAdd sets dst[i] = a[i]·b[i] + (c[i]·d[i] + e[i]), rounding every
// operation (no fused multiply-add), as MulMulAddOf. The slices must have
// the same length; dst may be any of the operands.
func MulMulAdd[T Float](dst, a, b, c, d, e []T) {
	checkLen("MulMulAdd", len(dst), len(a))
	checkLen("MulMulAdd", len(dst), len(b))
	checkLen("MulMulAdd", len(dst), len(c))
	checkLen("MulMulAdd", len(dst), len(d))
	checkLen("MulMulAdd", len(dst), len(e))
	active[T]().mulMulAdd(unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), unsafe.SliceData(d), unsafe.SliceData(e), len(dst))
}

// MulMulAddOf is MulMulAdd of one element.
func MulMulAddOf[T Float](a, b, c, d, e T) T { return T(a*b) + (T(c*d) + e) }

// SoftmaxBackward applies the backward of a softmax over rows of n
// elements in place: g and y hold the same rows, y a softmax's output and
// g the gradient with respect to it, and each row of g becomes
//
//	g[i] = ((g[i] - r)·y[i])·s,   r = Dot(g, y) over the row,
//
// the gradient with respect to x of softmax(x·s) for s the scale (1 for
// a plain softmax). The dot product rounds as Dot does; the rest rounds
// every operation (no fused multiply-add), as SoftmaxBackwardOf, so the
// results do not depend on the implementation. Each row is read twice
// while it is in cache. The slices must have the same length, a multiple
// of n (n > 0 unless they are empty); g may be y.
func SoftmaxBackward[T Float](g, y []T, n int, s T) {
	checkLen("SoftmaxBackward", len(g), len(y))
	if len(g) == 0 {
		return
	}
	if n <= 0 || len(g)%n != 0 {
		panic(fmt.Sprintf("vec: SoftmaxBackward: rows of %d elements for slices of length %d", n, len(g)))
	}
	im := active[T]()
	block := SumBlock[T]()
	for lo := 0; lo < len(g); lo += n {
		gr, yr := g[lo:lo+n:lo+n], y[lo:lo+n:lo+n]
		var r T
		if n <= block {
			r = im.dotLeaf(&gr[0], &yr[0], n) // pairwise2's first step
		} else {
			r = pairwise2(im.dotLeaf, gr, yr, block)
		}
		im.softmaxGrad(&gr[0], &yr[0], r, s, n)
	}
}

// SoftmaxBackwardOf is SoftmaxBackward of one element, given its row's
// dot product r.
func SoftmaxBackwardOf[T Float](g, y, r, s T) T { return T(T(g-r)*y) * s }

// Cmp is a comparison.
type Cmp uint8

// The comparisons, with Go's semantics: a comparison with a NaN is false,
// except Ne, which is true.
const (
	Eq Cmp = iota
	Ne
	Lt
	Le
	Gt
	Ge
)

// Compare sets dst[i] = a[i] op b[i]. The slices must have the same length.
func Compare[T Float](op Cmp, dst []bool, a, b []T) {
	checkLen("Compare", len(dst), len(a))
	checkLen("Compare", len(dst), len(b))
	active[T]().cmp[op](unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), len(dst))
}

// CompareScalar sets dst[i] = a[i] op s. The slices must have the same
// length.
func CompareScalar[T Float](op Cmp, dst []bool, a []T, s T) {
	checkLen("CompareScalar", len(dst), len(a))
	active[T]().cmpS[op](unsafe.SliceData(dst), unsafe.SliceData(a), s, len(dst))
}

// Bits is the element types of the selections: 4- and 8-byte values moved
// as raw bits (float32 and float64 through math.Float32bits and
// Float64bits, int64 by conversion).
type Bits interface{ ~uint32 | ~uint64 }

// Select sets dst[i] = a[i] if c[i], else b[i]. The slices must have the
// same length; dst may be a or b.
func Select[U Bits](dst []U, c []bool, a, b []U) {
	checkLen("Select", len(dst), len(c))
	checkLen("Select", len(dst), len(a))
	checkLen("Select", len(dst), len(b))
	d, ap, bp, cp, n := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.SliceData(c), len(dst)
	if unsafe.Sizeof(U(0)) == 4 {
		active32.sel((*float32)(d), (*float32)(ap), (*float32)(bp), cp, n)
	} else {
		active64.sel((*float64)(d), (*float64)(ap), (*float64)(bp), cp, n)
	}
}

// SelectScalar sets dst[i] = a[i] if c[i], else s. The slices must have
// the same length.
func SelectScalar[U Bits](dst []U, c []bool, a []U, s U) {
	selectScalar(dst, c, a, s, false)
}

// ScalarSelect sets dst[i] = s if c[i], else b[i]. The slices must have
// the same length.
func ScalarSelect[U Bits](dst []U, c []bool, s U, b []U) {
	selectScalar(dst, c, b, s, true)
}

func selectScalar[U Bits](dst []U, c []bool, a []U, s U, swap bool) {
	checkLen("Select", len(dst), len(c))
	checkLen("Select", len(dst), len(a))
	d, ap, cp, n := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(a)), unsafe.SliceData(c), len(dst)
	if unsafe.Sizeof(U(0)) == 4 {
		f := active32.selVS
		if swap {
			f = active32.selSV
		}
		f((*float32)(d), (*float32)(ap), cp, math.Float32frombits(uint32(s)), n)
	} else {
		f := active64.selVS
		if swap {
			f = active64.selSV
		}
		f((*float64)(d), (*float64)(ap), cp, math.Float64frombits(uint64(s)), n)
	}
}

// The portable kernels.

func goKernels[T Float]() kernels[T] {
	return kernels[T]{
		grad:  [2]func(dst, y, gr *T, n int){goGrad[T](SigmoidGrad), goGrad[T](TanhGrad)},
		gradS: [2]func(dst, y *T, s T, n int){goGradS[T](SigmoidGrad), goGradS[T](TanhGrad)},
		rows:  goRows[T](),
		relu: func(dp, ap *T, n int) {
			d, a := unsafe.Slice(dp, n), unsafe.Slice(ap, n)
			for i, x := range a {
				d[i] = ReluOf(x)
			}
		},
		reluGrad: func(dp, yp, gp *T, n int) {
			d, y, g := unsafe.Slice(dp, n), unsafe.Slice(yp, n), unsafe.Slice(gp, n)
			for i := range d {
				d[i] = ReluGradOf(y[i], g[i])
			}
		},
		axpby: func(dp, ap, bp *T, sa, sb T, n int) {
			d, a, b := unsafe.Slice(dp, n), unsafe.Slice(ap, n), unsafe.Slice(bp, n)
			for i := range d {
				d[i] = AxpbyOf(a[i], b[i], sa, sb)
			}
		},
		mulAdd: func(dp, ap, bp, cp *T, n int) {
			d, a, b, c := unsafe.Slice(dp, n), unsafe.Slice(ap, n), unsafe.Slice(bp, n), unsafe.Slice(cp, n)
			for i := range d {
				d[i] = MulAddOf(a[i], b[i], c[i])
			}
		},
		sumDiffSq: func(sp, qp, xp, vp *T, n int) {
			s, q, x, v := unsafe.Slice(sp, n), unsafe.Slice(qp, n), unsafe.Slice(xp, n), unsafe.Slice(vp, n)
			for i := range s {
				s[i], q[i] = SumDiffSqOf(s[i], q[i], x[i], v[i])
			}
		},
		sumDiffProd: func(sp, qp, gp, xp, vp *T, n int) {
			s, q, g, x, v := unsafe.Slice(sp, n), unsafe.Slice(qp, n), unsafe.Slice(gp, n), unsafe.Slice(xp, n), unsafe.Slice(vp, n)
			for i := range s {
				s[i], q[i] = SumDiffProdOf(s[i], q[i], g[i], x[i], v[i])
			}
		},
		mulMulAdd: func(dp, ap, bp, cp, ddp, ep *T, n int) {
			dst, a, b, c, d, e := unsafe.Slice(dp, n), unsafe.Slice(ap, n), unsafe.Slice(bp, n), unsafe.Slice(cp, n), unsafe.Slice(ddp, n), unsafe.Slice(ep, n)
			for i := range dst {
				dst[i] = MulMulAddOf(a[i], b[i], c[i], d[i], e[i])
			}
		},
		softmaxGrad: func(gp, yp *T, r, s T, n int) {
			g, y := unsafe.Slice(gp, n), unsafe.Slice(yp, n)
			for i := range g {
				g[i] = SoftmaxBackwardOf(g[i], y[i], r, s)
			}
		},
		sqrt: func(dp, ap *T, n int) {
			d, a := unsafe.Slice(dp, n), unsafe.Slice(ap, n)
			for i, x := range a {
				d[i] = T(math.Sqrt(float64(x)))
			}
		},
		transpose: goTranspose[T],
		widen: func(dp *float64, ap *float32, n int) {
			d, a := unsafe.Slice(dp, n), unsafe.Slice(ap, n)
			for i, x := range a {
				d[i] = float64(x)
			}
		},
		narrow: func(dp *float32, ap *float64, n int) {
			d, a := unsafe.Slice(dp, n), unsafe.Slice(ap, n)
			for i, x := range a {
				d[i] = float32(x)
			}
		},
		cmp:   [6]func(dst *bool, a, b *T, n int){goCmp[T](Eq), goCmp[T](Ne), goCmp[T](Lt), goCmp[T](Le), goCmp[T](Gt), goCmp[T](Ge)},
		cmpS:  [6]func(dst *bool, a *T, s T, n int){goCmpS[T](Eq), goCmpS[T](Ne), goCmpS[T](Lt), goCmpS[T](Le), goCmpS[T](Gt), goCmpS[T](Ge)},
		unary: [6]func(dst, a *T, n int){goUnary[T](Neg), goUnary[T](Abs), goUnary[T](Round), goUnary[T](Sign), goUnary[T](Floor), goUnary[T](Ceil)},
		clamp: func(dp, ap *T, lo, hi T, n int) { ClampGo(unsafe.Slice(dp, n), unsafe.Slice(ap, n), lo, hi) },
		sel:   goSel[T],
		selVS: func(d, a *T, c *bool, s T, n int) { goSelS(d, a, c, s, n, false) },
		selSV: func(d, a *T, c *bool, s T, n int) { goSelS(d, a, c, s, n, true) },
	}
}

func goGrad[T Float](gr Grad) func(dst, y, g *T, n int) {
	return func(dp, yp, gp *T, n int) {
		GradMulGo(gr, unsafe.Slice(dp, n), unsafe.Slice(yp, n), unsafe.Slice(gp, n))
	}
}

func goGradS[T Float](gr Grad) func(dst, y *T, s T, n int) {
	return func(dp, yp *T, s T, n int) { GradMulScalarGo(gr, unsafe.Slice(dp, n), unsafe.Slice(yp, n), s) }
}

func goCmp[T Float](op Cmp) func(dst *bool, a, b *T, n int) {
	return func(dp *bool, ap, bp *T, n int) {
		CompareGo(op, unsafe.Slice(dp, n), unsafe.Slice(ap, n), unsafe.Slice(bp, n))
	}
}

func goCmpS[T Float](op Cmp) func(dst *bool, a *T, s T, n int) {
	return func(dp *bool, ap *T, s T, n int) { CompareScalarGo(op, unsafe.Slice(dp, n), unsafe.Slice(ap, n), s) }
}

// b2u is 0 or 1 for a bool, without a branch.
func b2u(c bool) uint64 { return uint64(*(*uint8)(unsafe.Pointer(&c))) }

// goSel is SelectGo on the bits of the elements.
func goSel[T Float](dp, ap, bp *T, cp *bool, n int) {
	if unsafe.Sizeof(T(0)) == 4 {
		SelectGo(unsafe.Slice((*uint32)(unsafe.Pointer(dp)), n), unsafe.Slice(cp, n),
			unsafe.Slice((*uint32)(unsafe.Pointer(ap)), n), unsafe.Slice((*uint32)(unsafe.Pointer(bp)), n))
	} else {
		SelectGo(unsafe.Slice((*uint64)(unsafe.Pointer(dp)), n), unsafe.Slice(cp, n),
			unsafe.Slice((*uint64)(unsafe.Pointer(ap)), n), unsafe.Slice((*uint64)(unsafe.Pointer(bp)), n))
	}
}

// goSelS is goSel with a scalar: c[i] ? a[i] : s, or c[i] ? s : a[i] when
// swap.
func goSelS[T Float](dp, ap *T, cp *bool, s T, n int, swap bool) {
	var flip uint64
	if swap {
		flip = ^flip
	}
	if unsafe.Sizeof(T(0)) == 4 {
		selectScalarGo(unsafe.Slice((*uint32)(unsafe.Pointer(dp)), n), unsafe.Slice(cp, n),
			unsafe.Slice((*uint32)(unsafe.Pointer(ap)), n), *(*uint32)(unsafe.Pointer(&s)), uint32(flip))
	} else {
		selectScalarGo(unsafe.Slice((*uint64)(unsafe.Pointer(dp)), n), unsafe.Slice(cp, n),
			unsafe.Slice((*uint64)(unsafe.Pointer(ap)), n), *(*uint64)(unsafe.Pointer(&s)), flip)
	}
}

// ReluGradOf is one element of ReluGrad: g if y > 0, else +0 (for a NaN y
// too, and whatever g is).
func ReluGradOf[T ~float32 | ~float64](y, g T) T {
	if y > 0 {
		return g
	}
	return 0
}

// ReluOf is relu of one value: x if x > 0 or x is a NaN (same bits), else
// +0. (Go's max(x, 0) would clear a NaN's sign bit.)
func ReluOf[T ~float32 | ~float64](x T) T {
	if x > 0 || x != x {
		return x
	}
	return 0
}

// goRows is the portable rows table: each row through the portable loops.
func goRows[T Float]() [3][numOps]func(dst, a, b *T, n, m, sd, sa, sb int) {
	var t [3][numOps]func(dst, a, b *T, n, m, sd, sa, sb int)
	for f := range 3 {
		for op := range numOps {
			t[f][op] = func(dp, ap, bp *T, n, m, sd, sa, sb int) {
				na, nb := n, n
				switch f {
				case formVS:
					nb = 1
				case formSV:
					na = 1
				}
				d := unsafe.Slice(dp, (m-1)*sd+n)
				a, b := unsafe.Slice(ap, (m-1)*sa+na), unsafe.Slice(bp, (m-1)*sb+nb)
				for i := range m {
					dr, ar, br := d[i*sd:i*sd+n], a[i*sa:i*sa+na], b[i*sb:i*sb+nb]
					switch f {
					case formVV:
						ArithGo(op, dr, ar, br)
					case formVS:
						ArithScalarGo(op, dr, ar, br[0])
					case formSV:
						ScalarArithGo(op, dr, ar[0], br)
					}
				}
			}
		}
	}
	return t
}
