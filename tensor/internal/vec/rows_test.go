package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestRows(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testRows(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testRows(t, impls64()) })
}

// rowCases are the (row length, rows, stride) triples the row tests run:
// every tail of both vector sizes, lengths around the four-vector block and
// Sum's leaf block, no rows, one row, overlapping and spaced rows.
func rowCases[T Float]() [][3]int {
	block := SumBlock[T]()
	var cs [][3]int
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 100, block - 1, block, block + 1, 2*block + 5} {
		for _, m := range []int{0, 1, 2, 5, 17} {
			for _, stride := range []int{n, n + 3, n / 2} {
				cs = append(cs, [3]int{n, m, stride})
			}
		}
	}
	return cs
}

// testRows holds every implementation's sumRows, addRows, maxRows and
// minRows to the bits of their definitions (sumLeaf of each row; in-order
// adds, MaximumOf and MinimumOf of each row), checks that they write
// nothing outside dst and read nothing past the last row, and checks the
// public SumRows, AddRows, MaxRows and MinRows, longer rows included.
func testRows[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(11, 12))
	goLeaf := impls[len(impls)-1].sumLeaf
	block := SumBlock[T]()
	// Each case runs twice: with specials among the values, and with finite
	// values only, whose long rows do not all sum to NaN (where a skipped
	// or extra element would go unseen).
	gen := func(n int, finiteOnly bool) []T {
		if !finiteOnly {
			// values' specials, and NaNs of distinct payloads and signs,
			// so that which NaN a fold keeps shows in its bits
			v := values[T](r, n)
			for i := range v {
				if r.IntN(16) == 0 {
					v[i] = nanPayload[T](r.Uint32())
				}
			}
			return v
		}
		v := make([]T, n)
		for i := range v {
			v[i] = T(r.NormFloat64() * math.Exp2(float64(r.IntN(20)-10)))
		}
		return v
	}
	for _, c := range rowCases[T]() {
		for _, finiteOnly := range []bool{false, true} {
			n, m, stride := c[0], c[1], c[2]
			ls := 0
			if m > 0 {
				ls = (m-1)*stride + n
			}
			src := guarded[T](ls)
			copy(src, gen(ls, finiteOnly))
			init := gen(max(n, m), finiteOnly)
			wantSum := make([]T, m)
			for i := range wantSum {
				wantSum[i] = pairwise(goLeaf, src[i*stride:i*stride+n], block)
			}
			wantAdd := append([]T(nil), init[:n]...)
			for i := range m {
				for j := range wantAdd {
					wantAdd[j] += src[i*stride+j]
				}
			}
			wantMax := append([]T(nil), init[:n]...)
			wantMin := append([]T(nil), init[:n]...)
			for i := range m {
				for j := range wantMax {
					wantMax[j] = MaximumOf(src[i*stride+j], wantMax[j])
					wantMin[j] = MinimumOf(src[i*stride+j], wantMin[j])
				}
			}
			name := fmt.Sprintf("n=%d/m=%d/stride=%d/finite=%v", n, m, stride, finiteOnly)
			check := func(t *testing.T, what string, got, want []T, buf []T) {
				t.Helper()
				for i := range want {
					if !same(got[i], want[i]) {
						t.Fatalf("%s %s: element %d is %v, want %v", name, what, i, got[i], want[i])
					}
				}
				for i, x := range buf[len(want):] {
					if x != -7 {
						t.Fatalf("%s %s: wrote %v past the end, at %d", name, what, x, i)
					}
				}
			}
			out := func(k int) ([]T, []T) {
				buf := make([]T, k+guard)
				for i := range buf {
					buf[i] = -7
				}
				return buf[:k], buf
			}
			for _, im := range impls {
				if n <= block {
					d, buf := out(m)
					if m > 0 {
						im.sumRows(ptr(d), ptr(src), n, m, stride)
					}
					check(t, im.name+" sumRows", d, wantSum, buf)
				}
				d, buf := out(n)
				copy(d, init)
				if m > 0 && n > 0 {
					im.addRows(ptr(d), ptr(src), n, m, stride)
				}
				check(t, im.name+" addRows", d, wantAdd, buf)
				for _, e := range []struct {
					what string
					f    func(dst, src *T, n, m, stride int)
					want []T
				}{{"maxRows", im.maxRows, wantMax}, {"minRows", im.minRows, wantMin}} {
					d, buf := out(n)
					copy(d, init)
					if m > 0 && n > 0 {
						e.f(ptr(d), ptr(src), n, m, stride)
					}
					check(t, im.name+" "+e.what, d, e.want, buf)
					for i := range e.want {
						if !sameBits(d[i], e.want[i]) {
							t.Fatalf("%s %s %s: element %d has the bits of %v, want those of %v", name, im.name, e.what, i, d[i], e.want[i])
						}
					}
				}
			}
			d, buf := out(m)
			SumRows(d, src, n, stride)
			check(t, "SumRows", d, wantSum, buf)
			d, buf = out(n)
			copy(d, init)
			AddRows(d, src, m, stride)
			check(t, "AddRows", d, wantAdd, buf)
			d, buf = out(n)
			copy(d, init)
			MaxRows(d, src, m, stride)
			check(t, "MaxRows", d, wantMax, buf)
			d, buf = out(n)
			copy(d, init)
			MinRows(d, src, m, stride)
			check(t, "MinRows", d, wantMin, buf)
		}
	}
	for _, bad := range []struct {
		name string
		f    func()
	}{
		{"SumRows past the end", func() { SumRows(make([]T, 3), make([]T, 10), 4, 4) }},
		{"AddRows past the end", func() { AddRows(make([]T, 4), make([]T, 10), 3, 4) }},
		{"negative stride", func() { AddRows(make([]T, 4), make([]T, 10), 2, -1) }},
		{"MaxRows past the end", func() { MaxRows(make([]T, 4), make([]T, 10), 3, 4) }},
		{"MinRows negative stride", func() { MinRows(make([]T, 4), make([]T, 10), 2, -1) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", bad.name)
				}
			}()
			bad.f()
		}()
	}
}

// nanPayload returns a quiet NaN of type T whose payload and sign come from u.
func nanPayload[T Float](u uint32) T {
	var z T
	if _, ok := any(z).(float32); ok {
		return T(any(math.Float32frombits(0x7fc00000 | u&0x803fffff)).(float32))
	}
	return T(any(math.Float64frombits(0x7ff8000000000000 | uint64(u&0x7fffffff)<<20 | uint64(u>>31)<<63)).(float64))
}

func TestBinaryRows(t *testing.T) {
	t.Run("f32", func(t *testing.T) { testBinaryRows(t, impls32()) })
	t.Run("f64", func(t *testing.T) { testBinaryRows(t, impls64()) })
}

// testBinaryRows holds every implementation's rows routines, every form and
// op, to the bits of one call of its vv, vs or sv routine a row (NaN
// payloads included; testBinary holds those to the portable loops), over every tail of both vector sizes, one to 17
// rows, dense, spaced and repeated (stride 0) operand rows, and checks
// that nothing before, between or after the destination rows, nor in the
// operands, is written.
func testBinaryRows[T Float](t *testing.T, impls []*impl[T]) {
	r := rand.New(rand.NewPCG(13, 14))
	gen := func(k int) []T {
		v := values[T](r, k)
		for i := range v {
			if r.IntN(16) == 0 {
				v[i] = nanPayload[T](r.Uint32())
			}
		}
		return v
	}
	for _, n := range []int{1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1029} {
		for _, m := range []int{1, 2, 5, 17} {
			for _, sp := range [][3]int{{n, n, n}, {n + 3, 0, n + 1}, {n + 1, n + 2, 0}} {
				for f := range 3 {
					sd, sa, sb := sp[0], sp[1], sp[2]
					na, nb := n, n
					switch Form(f) {
					case VS:
						nb, sb = 1, sb%3 // scalars 0, 1 or 2 apart
					case SV:
						na, sa = 1, sa%3
					}
					a := gen((m-1)*sa + na)
					b := gen((m-1)*sb + nb)
					for op := range numOps {
						a0, b0 := append([]T(nil), a...), append([]T(nil), b...)
						for _, im := range impls {
							want := make([]T, (m-1)*sd+n)
							for i := range m {
								d := &want[i*sd]
								switch Form(f) {
								case VV:
									im.vv[op](d, &a[i*sa], &b[i*sb], n)
								case VS:
									im.vs[op](d, &a[i*sa], b[i*sb], n)
								case SV:
									im.sv[op](d, &b[i*sb], a[i*sa], n)
								}
							}
							buf := make([]T, guard+len(want)+guard)
							for i := range buf {
								buf[i] = -7
							}
							im.rows[f][op](&buf[guard], &a[0], &b[0], n, m, sd, sa, sb)
							for k, x := range buf {
								w, e := T(-7), k-guard
								if e >= 0 && e < len(want) && e%sd < n {
									w = want[e]
								}
								if !sameBits(x, w) {
									t.Fatalf("%s rows[%d][%s] n=%d m=%d strides %d,%d,%d: element %d has the bits of %v, want those of %v",
										im.name, f, opNames[op], n, m, sd, sa, sb, k-guard, x, w)
								}
							}
							for k := range a {
								if !sameBits(a[k], a0[k]) {
									t.Fatalf("%s rows[%d][%s]: wrote a[%d]", im.name, f, opNames[op], k)
								}
							}
							for k := range b {
								if !sameBits(b[k], b0[k]) {
									t.Fatalf("%s rows[%d][%s]: wrote b[%d]", im.name, f, opNames[op], k)
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestBinaryRowsChecks(t *testing.T) {
	d, a := make([]float32, 10), make([]float32, 10)
	BinaryRows(Add, VS, d, a, a, 5, 2, 5, 5, 1) // fits: scalars a[0], a[1]
	for _, bad := range []func(){
		func() { BinaryRows(Add, VV, d, a, a, 5, 3, 5, 5, 5) },  // third row past the end
		func() { BinaryRows(Add, VV, d, a, a, 5, 2, -5, 5, 5) }, // negative stride
		func() { BinaryRows(Add, SV, d, a, a[:1], 5, 2, 5, 1, 5) },
		func() { BinaryRows(Add, VV, d, a, a, -1, 2, 5, 5, 5) },
		func() { BinaryRows(Add, VS, d[:5], a, a, 5, 3, 1<<62+1, 0, 0) }, // (m-1)·stride overflows
		func() { AddRows(d[:5], a, 3, 1<<62+1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("BinaryRows accepted operands that do not hold the rows")
				}
			}()
			bad()
		}()
	}
}
