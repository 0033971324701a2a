package vec

// The portable loops, exported: plain Go, no dispatch, for every element
// type a tensor kernel meets (int64 as well as the floats). They are the
// implementation on CPUs without the assembly routines, the reference the
// tests hold those to, and what callers run on rows too short for the
// dispatch to pay.

// Number is the element types of the portable arithmetic and comparisons.
type Number interface{ ~int64 | ~float32 | ~float64 }

// ArithGo sets d[i] = a[i] op b[i]. a and b must be at least as long as d.
func ArithGo[T Number](op Op, d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	switch op {
	case Add:
		for i := range d {
			d[i] = a[i] + b[i]
		}
	case Sub:
		for i := range d {
			d[i] = a[i] - b[i]
		}
	case Mul:
		for i := range d {
			d[i] = a[i] * b[i]
		}
	case Div:
		for i := range d {
			d[i] = a[i] / b[i]
		}
	case Maximum:
		for i := range d {
			d[i] = MaximumOf(a[i], b[i])
		}
	case Minimum:
		for i := range d {
			d[i] = MinimumOf(a[i], b[i])
		}
	}
}

// ArithScalarGo sets d[i] = a[i] op s.
func ArithScalarGo[T Number](op Op, d, a []T, s T) {
	a = a[:len(d)]
	switch op {
	case Add:
		for i, x := range a {
			d[i] = x + s
		}
	case Sub:
		for i, x := range a {
			d[i] = x - s
		}
	case Mul:
		for i, x := range a {
			d[i] = x * s
		}
	case Div:
		for i, x := range a {
			d[i] = x / s
		}
	case Maximum:
		for i, x := range a {
			d[i] = MaximumOf(x, s)
		}
	case Minimum:
		for i, x := range a {
			d[i] = MinimumOf(x, s)
		}
	}
}

// ScalarArithGo sets d[i] = s op b[i].
func ScalarArithGo[T Number](op Op, d []T, s T, b []T) {
	b = b[:len(d)]
	switch op {
	case Add:
		for i, x := range b {
			d[i] = s + x
		}
	case Sub:
		for i, x := range b {
			d[i] = s - x
		}
	case Mul:
		for i, x := range b {
			d[i] = s * x
		}
	case Div:
		for i, x := range b {
			d[i] = s / x
		}
	case Maximum:
		for i, x := range b {
			d[i] = MaximumOf(s, x)
		}
	case Minimum:
		for i, x := range b {
			d[i] = MinimumOf(s, x)
		}
	}
}

// MaximumOf is Maximum of x and y: x when x is NaN or x > y, else y.
func MaximumOf[T Number](x, y T) T {
	if x != x || x > y {
		return x
	}
	return y
}

// MinimumOf is Minimum of x and y: x when x is NaN or x < y, else y.
func MinimumOf[T Number](x, y T) T {
	if x != x || x < y {
		return x
	}
	return y
}

// CompareGo sets d[i] = a[i] op b[i].
func CompareGo[T Number](op Cmp, d []bool, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	switch op {
	case Eq:
		for i := range d {
			d[i] = a[i] == b[i]
		}
	case Ne:
		for i := range d {
			d[i] = a[i] != b[i]
		}
	case Lt:
		for i := range d {
			d[i] = a[i] < b[i]
		}
	case Le:
		for i := range d {
			d[i] = a[i] <= b[i]
		}
	case Gt:
		for i := range d {
			d[i] = a[i] > b[i]
		}
	case Ge:
		for i := range d {
			d[i] = a[i] >= b[i]
		}
	}
}

// CompareScalarGo sets d[i] = a[i] op s.
func CompareScalarGo[T Number](op Cmp, d []bool, a []T, s T) {
	a = a[:len(d)]
	switch op {
	case Eq:
		for i, x := range a {
			d[i] = x == s
		}
	case Ne:
		for i, x := range a {
			d[i] = x != s
		}
	case Lt:
		for i, x := range a {
			d[i] = x < s
		}
	case Le:
		for i, x := range a {
			d[i] = x <= s
		}
	case Gt:
		for i, x := range a {
			d[i] = x > s
		}
	case Ge:
		for i, x := range a {
			d[i] = x >= s
		}
	}
}

// SelectGo sets d[i] = a[i] if c[i], else b[i], with an and/or under a
// mask made from each bool, so that the loop has no data-dependent branch.
func SelectGo[U Bits](d []U, c []bool, a, b []U) {
	c, a, b = c[:len(d)], a[:len(d)], b[:len(d)]
	for i := range d {
		m := -U(b2u(c[i]))
		d[i] = a[i]&m | b[i]&^m
	}
}

// SelectScalarGo sets d[i] = a[i] if c[i], else s.
func SelectScalarGo[U Bits](d []U, c []bool, a []U, s U) { selectScalarGo(d, c, a, s, 0) }

// ScalarSelectGo sets d[i] = s if c[i], else b[i].
func ScalarSelectGo[U Bits](d []U, c []bool, s U, b []U) { selectScalarGo(d, c, b, s, ^U(0)) }

// selectScalarGo takes a[i] where the mask from c[i], xored with flip, is set.
func selectScalarGo[U Bits](d []U, c []bool, a []U, s U, flip U) {
	c, a = c[:len(d)], a[:len(d)]
	for i := range d {
		m := -U(b2u(c[i])) ^ flip
		d[i] = a[i]&m | s&^m
	}
}

// GradMulGo is GradMul's portable loop: d[i] = ((1-y[i])·y[i])·g[i]
// (SigmoidGrad) or (1-y[i]·y[i])·g[i] (TanhGrad), one rounding per
// operation.
func GradMulGo[T ~float32 | ~float64](gr Grad, d, y, g []T) {
	y, g = y[:len(d)], g[:len(d)]
	if gr == SigmoidGrad {
		for i, v := range y {
			d[i] = (1 - v) * v * g[i]
		}
		return
	}
	// T(v*v) forbids fusing the product into the subtraction.
	for i, v := range y {
		d[i] = (1 - T(v*v)) * g[i]
	}
}

// GradMulScalarGo is GradMulGo with g[i] = s for every i.
func GradMulScalarGo[T ~float32 | ~float64](gr Grad, d, y []T, s T) {
	y = y[:len(d)]
	if gr == SigmoidGrad {
		for i, v := range y {
			d[i] = (1 - v) * v * s
		}
		return
	}
	for i, v := range y {
		d[i] = (1 - T(v*v)) * s
	}
}

// GradOf is one element of GradMulGo: the gradient g'(y)·g.
func GradOf[T ~float32 | ~float64](gr Grad, y, g T) T {
	if gr == SigmoidGrad {
		return (1 - y) * y * g
	}
	return (1 - T(y*y)) * g
}
