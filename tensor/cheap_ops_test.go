package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// cheapInputs returns n values for the cheap element-wise ops: normal
// random values with every special (±0, ±Inf, NaN, subnormals, halves for
// rounding) mixed in.
func cheapInputs(r *rand.Rand, n int) []float64 {
	sp := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e-40, -1e-40,
		5e-324, 0.5, -0.5, 1.5, 2.5, -2.5, 6, -1, 1, 1 << 23, 1<<23 + 0.5, 1<<52 + 1}
	v := make([]float64, n)
	for i := range v {
		if r.IntN(3) == 0 {
			v[i] = sp[r.IntN(len(sp))]
		} else {
			v[i] = r.NormFloat64() * 4
		}
	}
	return v
}

// sameFloat reports whether x and y are both NaN or equal with the same
// sign.
func sameFloat(x, y float64) bool {
	if x != x || y != y {
		return x != x && y != y
	}
	return x == y && math.Signbit(x) == math.Signbit(y)
}

// TestCheapUnaryOps checks Neg, Abs, Sign, Round and Clamp (bounds with
// zeros of either sign, one-sided, equal, NaN) against their definitions,
// per dtype, for lengths around the vector widths (0 included), on dense
// tensors (the vector loops for 16 elements and more, the portable loops
// below) and on transposed views (the strided path): -0 and NaN as
// PyTorch gives them, rounding half to even.
func TestCheapUnaryOps(t *testing.T) {
	negZero := math.Copysign(0, -1)
	sign := func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x
	}
	clamp := func(lo, hi float64) func(float64) float64 {
		return func(x float64) float64 {
			if x < lo {
				x = lo
			}
			if x > hi {
				x = hi
			}
			return x
		}
	}
	cases := []struct {
		name string
		op   UnaryOp
		args []float64
		want func(float64) float64
	}{
		{"Neg", OpNeg, nil, func(x float64) float64 { return -x }},
		{"Abs", OpAbs, nil, math.Abs},
		{"Sign", OpSign, nil, sign},
		{"Round", OpRound, nil, math.RoundToEven},
		{"Clamp[-1,1]", OpClamp, []float64{-1, 1}, clamp(-1, 1)},
		{"Clamp[0,6]", OpClamp, []float64{0, 6}, clamp(0, 6)},
		{"Clamp[-0,6]", OpClamp, []float64{negZero, 6}, clamp(negZero, 6)},
		{"Clamp[-2,0]", OpClamp, []float64{-2, 0}, clamp(-2, 0)},
		{"ClampMin0", OpClamp, []float64{0, math.Inf(1)}, clamp(0, math.Inf(1))},
		{"ClampMax0.5", OpClamp, []float64{math.Inf(-1), 0.5}, clamp(math.Inf(-1), 0.5)},
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, dt := range []DType{Float32, Float64} {
		for _, tc := range cases {
			for _, n := range []int{0, 1, 7, 15, 16, 17, 33, 100, 1027} {
				t.Run(fmt.Sprintf("%s/%v/n=%d", tc.name, dt, n), func(t *testing.T) {
					in := cheapInputs(r, 2*n)
					x := FromSlice(in).To(dt)
					xs := x.Float64s() // the inputs as dt holds them
					check := func(what string, got []float64, xs []float64) {
						t.Helper()
						for i, v := range xs {
							want := tc.want(v)
							if dt == Float32 {
								want = float64(float32(want))
							}
							if !sameFloat(got[i], want) {
								t.Fatalf("%s: element %d: %s(%v) = %v, want %v", what, i, tc.name, v, got[i], want)
							}
						}
					}
					check("dense", Unary(tc.op, x, tc.args...).Float64s(), xs)
					// A [2,n] view transposed to [n,2]: strided rows.
					v := x.Reshape(2, n).T()
					check("strided", Unary(tc.op, v, tc.args...).Float64s(), v.Contiguous().Float64s())
					// In place.
					y := x.Clone()
					UnaryTo(y, tc.op, y, tc.args...)
					check("in place", y.Float64s(), xs)
				})
			}
		}
	}
}

// TestClampNaNBound keeps Clamp's rules for a NaN bound, which take the
// scalar path: a NaN lower bound with a non-zero upper one gives NaN (Go's
// max), a NaN bound next to a zero one leaves x.
func TestClampNaNBound(t *testing.T) {
	x := FromSlice([]float64{-3, -0.5, 0.5, 3, -2, 2, -1, 1, 0, -3, -0.5, 0.5, 3, -2, 2, -1, 1, 0})
	got := Unary(OpClamp, x, math.NaN(), 1).Float64s()
	for i, v := range got {
		if v == v {
			t.Fatalf("element %d: Clamp(NaN, 1) = %v, want NaN", i, v)
		}
	}
	got = Unary(OpClamp, x, math.NaN(), 0).Float64s()
	for i, v := range got {
		want := x.Float64s()[i]
		if want > 0 {
			want = 0
		}
		if !sameFloat(v, want) {
			t.Fatalf("element %d: Clamp(NaN, 0) of %v = %v, want %v", i, x.Float64s()[i], v, want)
		}
	}
}

// TestBoolOps checks LogicalAnd, LogicalOr, LogicalXor and LogicalNot on
// dense rows of many lengths (eight bools a word, then the tail) and on
// strided views, and the cast of a mask to floats.
func TestBoolOps(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 31, 64, 100, 1027} {
		a, b := make([]bool, 2*n), make([]bool, 2*n)
		for i := range a {
			a[i], b[i] = r.IntN(2) == 0, r.IntN(2) == 0
		}
		ta, tb := FromSlice(a), FromSlice(b)
		ops := []struct {
			name string
			got  func(x, y *Tensor) *Tensor
			want func(x, y bool) bool
		}{
			{"And", func(x, y *Tensor) *Tensor { return x.LogicalAnd(y) }, func(x, y bool) bool { return x && y }},
			{"Or", func(x, y *Tensor) *Tensor { return x.LogicalOr(y) }, func(x, y bool) bool { return x || y }},
			{"Xor", func(x, y *Tensor) *Tensor { return x.LogicalXor(y) }, func(x, y bool) bool { return x != y }},
			{"Not", func(x, _ *Tensor) *Tensor { return x.LogicalNot() }, func(x, _ bool) bool { return !x }},
		}
		for _, o := range ops {
			t.Run(fmt.Sprintf("%s/n=%d", o.name, n), func(t *testing.T) {
				got := ToSlice[bool](o.got(ta, tb))
				for i := range got {
					if got[i] != o.want(a[i], b[i]) {
						t.Fatalf("dense: element %d: %v %s %v = %v", i, a[i], o.name, b[i], got[i])
					}
				}
				va, vb := ta.Reshape(2, n).T(), tb.Reshape(2, n).T()
				got = ToSlice[bool](o.got(va, vb))
				ca, cb := ToSlice[bool](va.Contiguous()), ToSlice[bool](vb.Contiguous())
				for i := range got {
					if got[i] != o.want(ca[i], cb[i]) {
						t.Fatalf("strided: element %d: %v %s %v = %v", i, ca[i], o.name, cb[i], got[i])
					}
				}
			})
		}
		for _, dt := range []DType{Float32, Float64} {
			t.Run(fmt.Sprintf("cast/%v/n=%d", dt, n), func(t *testing.T) {
				got := ta.To(dt).Float64s()
				for i, v := range got {
					if want := map[bool]float64{false: 0, true: 1}[a[i]]; !sameFloat(v, want) {
						t.Fatalf("element %d: %v to %v = %v", i, a[i], dt, v)
					}
				}
			})
		}
	}
}

// TestWhereScalars checks Where with both values broadcast scalars (a
// sum's gradient of ones and a 0), per dtype, as a mask selects.
func TestWhereScalars(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, dt := range []DType{Float32, Float64, Int64} {
		for _, n := range []int{0, 1, 15, 16, 17, 100, 1027} {
			t.Run(fmt.Sprintf("%v/n=%d", dt, n), func(t *testing.T) {
				c := make([]bool, n)
				for i := range c {
					c[i] = r.IntN(2) == 0
				}
				one := Scalar(2.5).To(dt).Expand(n)
				got := Where(FromSlice(c), one, math.Copysign(0, -1)).Float64s()
				for i, v := range got {
					want := math.Copysign(0, -1) // a float scalar: the result is float (promotion)
					if c[i] {
						want = 2.5
						if dt == Int64 {
							want = 2
						}
					}
					if !sameFloat(v, want) {
						t.Fatalf("element %d: Where(%v, 2.5, -0) = %v, want %v", i, c[i], v, want)
					}
				}
			})
		}
	}
}
