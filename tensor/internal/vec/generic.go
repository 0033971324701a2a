package vec

import "unsafe"

// The portable loops: the implementation on CPUs without the assembly ones,
// and the reference the tests hold those to.

func goImpl[T Float]() *impl[T] {
	return &impl[T]{
		name:    "go",
		vv:      [numOps]func(dst, a, b *T, n int){goVV[T](Add), goVV[T](Sub), goVV[T](Mul), goVV[T](Div), goVV[T](Maximum), goVV[T](Minimum)},
		vs:      [numOps]func(dst, a *T, s T, n int){goVS[T](Add), goVS[T](Sub), goVS[T](Mul), goVS[T](Div), goVS[T](Maximum), goVS[T](Minimum)},
		sv:      [numOps]func(dst, a *T, s T, n int){goSV[T](Add), goSV[T](Sub), goSV[T](Mul), goSV[T](Div), goSV[T](Maximum), goSV[T](Minimum)},
		sumLeaf: func(v *T, n int) T { return sumLeafGo(unsafe.Slice(v, n)) },
		sumRows: sumRowsGo[T],
		addRows: addRowsGo[T],
		maxRows: extremeRowsGo[T](Maximum),
		minRows: extremeRowsGo[T](Minimum),
		dotLeaf: func(a, b *T, n int) T { return dotLeafGo(unsafe.Slice(a, n), unsafe.Slice(b, n)) },
		maxLeaf: func(v *T, n int) (T, bool) { return extremeLeafGo(unsafe.Slice(v, n), true) },
		minLeaf: func(v *T, n int) (T, bool) { return extremeLeafGo(unsafe.Slice(v, n), false) },
		kernels: goKernels[T](),
	}
}

func goVV[T Float](op Op) func(dst, a, b *T, n int) {
	return func(dp, ap, bp *T, n int) { ArithGo(op, unsafe.Slice(dp, n), unsafe.Slice(ap, n), unsafe.Slice(bp, n)) }
}

func goVS[T Float](op Op) func(dst, a *T, s T, n int) {
	return func(dp, ap *T, s T, n int) { ArithScalarGo(op, unsafe.Slice(dp, n), unsafe.Slice(ap, n), s) }
}

func goSV[T Float](op Op) func(dst, a *T, s T, n int) {
	return func(dp, ap *T, s T, n int) { ScalarArithGo(op, unsafe.Slice(dp, n), s, unsafe.Slice(ap, n)) }
}

// sumLeafGo sums v in lanes[T]() interleaved partial sums folded in halves,
// the order Sum documents. It computes the partial sums eight at a time, in
// registers, with one pass over v per group of eight.
func sumLeafGo[T Float](v []T) T {
	var buf [32]T
	l := buf[:lanes[T]()]
	for g := 0; g < len(l); g += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 T
		i := g
		for ; i+8 <= len(v); i += len(l) {
			w := v[i : i+8 : i+8]
			s0 += w[0]
			s1 += w[1]
			s2 += w[2]
			s3 += w[3]
			s4 += w[4]
			s5 += w[5]
			s6 += w[6]
			s7 += w[7]
		}
		p := l[g : g+8 : g+8]
		p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7] = s0, s1, s2, s3, s4, s5, s6, s7
		for j := 0; i+j < len(v) && j < 8; j++ {
			p[j] += v[i+j]
		}
	}
	for w := len(l) / 2; w >= 1; w /= 2 {
		for j := range w {
			l[j] += l[j+w]
		}
	}
	return l[0]
}

// sumRowsGo sets dst[r] to the sumLeafGo of the n elements from src + r·stride,
// for r < m.
func sumRowsGo[T Float](dst, src *T, n, m, stride int) {
	if m == 0 {
		return
	}
	d, s := unsafe.Slice(dst, m), unsafe.Slice(src, (m-1)*stride+n)
	for r := range d {
		d[r] = sumLeafGo(s[r*stride : r*stride+n])
	}
}

// addRowsGo adds the m rows of n elements from src, stride apart, into dst in
// order: dst[j] += row[j].
func addRowsGo[T Float](dst, src *T, n, m, stride int) {
	if m == 0 || n == 0 {
		return
	}
	d, s := unsafe.Slice(dst, n), unsafe.Slice(src, (m-1)*stride+n)
	for r := range m {
		row := s[r*stride : r*stride+n]
		for j, x := range row {
			d[j] += x
		}
	}
}

// extremeRowsGo returns the loop that folds the m rows of n elements from
// src, stride apart, into dst in order with op (Maximum or Minimum):
// dst[j] = op(row[j], dst[j]), as ArithGo computes it.
func extremeRowsGo[T Float](op Op) func(dst, src *T, n, m, stride int) {
	return func(dst, src *T, n, m, stride int) {
		if m == 0 || n == 0 {
			return
		}
		d, s := unsafe.Slice(dst, n), unsafe.Slice(src, (m-1)*stride+n)
		for r := range m {
			ArithGo(op, d, s[r*stride:r*stride+n], d)
		}
	}
}

// dotLeafGo is sumLeafGo of the products a[i]·b[i], each rounded to T.
func dotLeafGo[T Float](a, b []T) T {
	b = b[:len(a)]
	var buf [32]T
	l := buf[:lanes[T]()]
	for g := 0; g < len(l); g += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 T
		i := g
		for ; i+8 <= len(a); i += len(l) {
			x, y := a[i:i+8:i+8], b[i:i+8:i+8]
			s0 += T(x[0] * y[0])
			s1 += T(x[1] * y[1])
			s2 += T(x[2] * y[2])
			s3 += T(x[3] * y[3])
			s4 += T(x[4] * y[4])
			s5 += T(x[5] * y[5])
			s6 += T(x[6] * y[6])
			s7 += T(x[7] * y[7])
		}
		p := l[g : g+8 : g+8]
		p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7] = s0, s1, s2, s3, s4, s5, s6, s7
		for j := 0; i+j < len(a) && j < 8; j++ {
			p[j] += T(a[i+j] * b[i+j])
		}
	}
	for w := len(l) / 2; w >= 1; w /= 2 {
		for j := range w {
			l[j] += l[j+w]
		}
	}
	return l[0]
}

// extremeLeafGo is the portable extreme leaf: the largest (smallest) of the
// non-NaN elements of a non-empty v, and whether v has a NaN.
func extremeLeafGo[T Float](v []T, isMax bool) (T, bool) {
	m := v[0]
	nan := false
	for _, x := range v {
		switch {
		case x != x:
			nan = true
		case m != m, isMax && x > m, !isMax && x < m:
			m = x
		}
	}
	return m, nan
}
