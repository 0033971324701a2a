package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// maximumRef and minimumRef are Maximum and Minimum element by element: a
// NaN first operand, then a NaN second one, then the comparison; of equal
// operands (+0 and -0 too) the second.
func maximumRef(x, y float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.IsNaN(y) || !(x > y):
		return y
	}
	return x
}

func minimumRef(x, y float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.IsNaN(y) || !(x < y):
		return y
	}
	return x
}

// sameValue reports whether got is want: both NaN, or equal with the same
// sign (so -0 is not +0).
func sameValue(got, want float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.IsNaN(got) && math.IsNaN(want)
	}
	return got == want && math.Signbit(got) == math.Signbit(want)
}

// extremeValues returns n values with NaNs, signed zeros and infinities
// among them (for Int64, small integers with many ties).
func extremeValues(r *rand.Rand, dt DType, n int) []float64 {
	// NaNs with distinct payloads and signs, which survive the conversion
	// to float32 (the payload's top bits), so that which NaN a reduction
	// keeps shows in its bits
	sp := []float64{math.NaN(), math.Float64frombits(0x7ff8000020000000), math.Float64frombits(0xfff8002000000000),
		0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1, -1}
	v := make([]float64, n)
	for i := range v {
		switch {
		case dt == Int64:
			v[i] = float64(r.IntN(7) - 3)
		case r.IntN(5) == 0:
			v[i] = sp[r.IntN(len(sp))]
		default:
			v[i] = math.Round(r.NormFloat64()*8) / 4
		}
	}
	return v
}

// TestMaximumMinimumLarge checks Maximum and Minimum at the sizes that run
// on package vec's kernels (from 16 elements) and split over the cores, in
// every operand form (two tensors, a scalar on either side, a broadcast row
// and column), against the element-wise reference, bit for bit.
func TestMaximumMinimumLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ops := []struct {
		name string
		op   BinaryOp
		ref  func(x, y float64) float64
	}{
		{"Maximum", OpMaximum, maximumRef},
		{"Minimum", OpMinimum, minimumRef},
	}
	shapes := [][]int{{15}, {16}, {3, 37}, {64, 1000}, {300, 1100}}
	for _, dt := range []DType{Float32, Float64, Int64} {
		for _, sh := range shapes {
			rows, cols := 1, sh[len(sh)-1]
			if len(sh) == 2 {
				rows = sh[0]
			}
			a, b := extremeValues(r, dt, rows*cols), extremeValues(r, dt, rows*cols)
			row, col := extremeValues(r, dt, cols), extremeValues(r, dt, rows)
			s := extremeValues(r, dt, 1)[0]
			if dt != Int64 && len(sh) == 2 && sh[0] == 64 {
				s = math.NaN()
			}
			x, y := FromSlice(a, sh...).To(dt), FromSlice(b, sh...).To(dt)
			rowT := FromSlice(row, cols).To(dt)
			colT := FromSlice(col, rows, 1).To(dt)
			if len(sh) == 1 {
				colT = FromSlice(col[:1]).To(dt)
			}
			sT := FromSlice([]float64{s}).Reshape().To(dt)
			for _, o := range ops {
				forms := []struct {
					name string
					got  *Tensor
					want func(i int) float64
				}{
					{"tensors", Binary(o.op, x, y), func(i int) float64 { return o.ref(a[i], b[i]) }},
					{"scalar-second", Binary(o.op, x, sT), func(i int) float64 { return o.ref(a[i], s) }},
					{"scalar-first", Binary(o.op, sT, x), func(i int) float64 { return o.ref(s, a[i]) }},
					{"row", Binary(o.op, x, rowT), func(i int) float64 { return o.ref(a[i], row[i%cols]) }},
					{"column-first", Binary(o.op, colT, x), func(i int) float64 { return o.ref(col[i/cols], a[i]) }},
					{"in-place-first", inPlace(o.op, x.Clone(), y, true), func(i int) float64 { return o.ref(a[i], b[i]) }},
					{"in-place-second", inPlace(o.op, x, y.Clone(), false), func(i int) float64 { return o.ref(a[i], b[i]) }},
				}
				for _, f := range forms {
					t.Run(fmt.Sprintf("%s/%v/%v/%s", o.name, dt, sh, f.name), func(t *testing.T) {
						got := f.got.Float64s()
						if len(got) != rows*cols {
							t.Fatalf("%d elements, want %d", len(got), rows*cols)
						}
						for i, g := range got {
							want := f.want(i)
							if dt != Int64 {
								want = asDTypeValue(dt, want)
							}
							if !sameValue(g, want) {
								t.Fatalf("element %d: got %v, want %v", i, g, want)
							}
						}
					})
				}
			}
		}
	}
}

// inPlace computes op(a, b) into a (first) or into b, the destination
// sharing that operand's storage.
func inPlace(op BinaryOp, a, b *Tensor, first bool) *Tensor {
	if first {
		return BinaryTo(a, op, a, b)
	}
	return BinaryTo(b, op, a, b)
}

// asDTypeValue rounds v to dt's precision, keeping NaN, the sign of zero and
// infinities.
func asDTypeValue(dt DType, v float64) float64 {
	if dt == Float32 {
		return float64(float32(v))
	}
	return v
}

// TestAmaxAminOuterDims checks Amax and Amin over a dim that is not the
// last (where each source row updates a destination row with Maximum or
// Minimum) against the reduction element by element, NaNs included.
func TestAmaxAminOuterDims(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dt := range []DType{Float32, Float64, Int64} {
		for _, sh := range [][]int{{7, 13}, {300, 517}, {4, 50, 33}} {
			n := 1
			for _, s := range sh {
				n *= s
			}
			data := extremeValues(r, dt, n)
			x := FromSlice(data, sh...).To(dt)
			if dt != Int64 {
				data = x.Float64s() // rounded to the dtype
			}
			// the same values in a strided view, which takes the general loop
			// rather than vec's MaxRows and MinRows
			strided := Stack(len(sh), x, x).Select(len(sh), 0)
			for d := 0; d < len(sh)-1; d++ {
				t.Run(fmt.Sprintf("%v/%v/dim%d", dt, sh, d), func(t *testing.T) {
					checkClose(t, x.AmaxKeep(d).Float64s(), naiveReduce(data, sh, []int{d}, math.Inf(-1), nanMax), 0)
					checkClose(t, x.AminKeep(d).Float64s(), naiveReduce(data, sh, []int{d}, math.Inf(1), nanMin), 0)
					if dt == Int64 {
						return
					}
					for _, c := range []struct{ dense, general *Tensor }{
						{x.AmaxKeep(d), strided.AmaxKeep(d)}, {x.AminKeep(d), strided.AminKeep(d)},
					} {
						a, b := c.dense.To(Float64).Float64s(), c.general.To(Float64).Float64s()
						for i := range a {
							if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
								t.Fatalf("element %d: %v (%#x) dense, %v (%#x) strided", i, a[i], math.Float64bits(a[i]), b[i], math.Float64bits(b[i]))
							}
						}
					}
				})
			}
		}
	}
}

// TestArgExtremeLongRows checks ArgMax, ArgMin, MaxDim and MinDim over
// rows long enough for argRowVec, with NaNs, ties, signed zeros and rows
// of -Inf or +Inf, against the first index a plain scan finds, per float
// dtype, along the last dim (contiguous) and dim 0 (strided).
func TestArgExtremeLongRows(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	firstExtreme := func(row []float64, isMax bool) int {
		for j, x := range row {
			if math.IsNaN(x) {
				return j
			}
		}
		bi := 0
		for j, x := range row {
			if isMax && x > row[bi] || !isMax && x < row[bi] {
				bi = j
			}
		}
		return bi
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, n := range []int{63, 64, 65, 100, 513, 2000} {
			rows := 9
			data := make([]float64, rows*n)
			for i := range data {
				data[i] = float64(r.IntN(7) - 3) // many ties
			}
			for j := 0; j < n; j++ {
				data[0*n+j] = math.Inf(-1)                       // all -Inf
				data[1*n+j] = math.Inf(1)                        // all +Inf
				data[2*n+j] = math.Copysign(0, float64(j%2*2-1)) // ±0 alternating
			}
			data[3*n+n-1] = math.NaN()
			data[4*n+n/2], data[4*n+n-2] = math.NaN(), math.NaN()
			data[5*n] = math.NaN()
			x := FromSlice(data, rows, n).To(dt)
			for _, isMax := range []bool{true, false} {
				for _, dim := range []int{1, 0} {
					t.Run(fmt.Sprintf("%v/n=%d/max=%v/dim%d", dt, n, isMax, dim), func(t *testing.T) {
						var idx, vals *Tensor
						if isMax {
							vals, idx = x.MaxDim(dim, false)
						} else {
							vals, idx = x.MinDim(dim, false)
						}
						arg := x.ArgMax(dim, false)
						if !isMax {
							arg = x.ArgMin(dim, false)
						}
						got, gotArg, gotVals := ToSlice[int64](idx), ToSlice[int64](arg), vals.Float64s()
						lines, length := rows, n
						if dim == 0 {
							lines, length = n, rows
						}
						for l := 0; l < lines; l++ {
							line := make([]float64, length)
							for k := range line {
								if dim == 1 {
									line[k] = data[l*n+k]
								} else {
									line[k] = data[k*n+l]
								}
							}
							want := firstExtreme(line, isMax)
							if got[l] != int64(want) || gotArg[l] != int64(want) {
								t.Fatalf("line %d: index %d (arg %d), want %d", l, got[l], gotArg[l], want)
							}
							if v := line[want]; gotVals[l] != v && !(math.IsNaN(gotVals[l]) && math.IsNaN(v)) {
								t.Fatalf("line %d: value %v, want %v", l, gotVals[l], line[want])
							}
						}
					})
				}
			}
		}
	}
}

// TestSumExpandedKeepsNaNPayload checks that a sum over a dim of an
// expanded tensor (a stride-0 dim before it) keeps the NaN payload it kept
// before the row folds: that of the general loop, which Stack/Select's
// strided copy of the same values takes too.
func TestSumExpandedKeepsNaNPayload(t *testing.T) {
	a, b := math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0xfff8000000000002)
	v := make([]float64, 64)
	for j := range 32 {
		v[j], v[32+j] = a, b
	}
	e := FromSlice(v, 2, 32).Unsqueeze(0).Expand(4, 2, 32)
	g := Stack(3, e, e).Select(3, 0)
	got, want := e.Sum(1).Float64s(), g.Sum(1).Float64s()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("element %d: %#x, the general loop gives %#x", i, math.Float64bits(got[i]), math.Float64bits(want[i]))
		}
	}
}
