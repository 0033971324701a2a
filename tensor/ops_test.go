package tensor

import (
	"math"
	"slices"
	"testing"
)

// vals builds a 1-D tensor of dt from float64 values.
func vals(dt DType, v ...float64) *Tensor { return FromSlice(v).To(dt) }

func closeSlices(got, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if math.IsNaN(w) {
			if !math.IsNaN(g) {
				return false
			}
			continue
		}
		if math.IsInf(w, 0) {
			if g != w {
				return false
			}
			continue
		}
		if math.Abs(g-w) > tol*(1+math.Abs(w)) {
			return false
		}
	}
	return true
}

func TestUnaryOps(t *testing.T) {
	in := []float64{-2.5, -1, 0, 0.5, 1.5, 3}
	pos := []float64{0.25, 1, 2, 9}
	cases := []struct {
		name   string
		f      func(*Tensor) *Tensor
		in     []float64
		ref    func(float64) float64
		intOut DType // result dtype for Int64 input (0: the op rejects... never)
	}{
		{"Neg", (*Tensor).Neg, in, func(x float64) float64 { return -x }, Int64},
		{"Abs", (*Tensor).Abs, in, math.Abs, Int64},
		{"Sign", (*Tensor).Sign, in, func(x float64) float64 {
			if x > 0 {
				return 1
			} else if x < 0 {
				return -1
			}
			return 0
		}, Int64},
		{"Round", (*Tensor).Round, in, math.RoundToEven, Int64},
		{"Floor", (*Tensor).Floor, in, math.Floor, Int64},
		{"Ceil", (*Tensor).Ceil, in, math.Ceil, Int64},
		{"Relu", (*Tensor).Relu, in, func(x float64) float64 { return math.Max(x, 0) }, Int64},
		{"Exp", (*Tensor).Exp, in, math.Exp, Float32},
		{"Expm1", (*Tensor).Expm1, in, math.Expm1, Float32},
		{"Log", (*Tensor).Log, pos, math.Log, Float32},
		{"Log1p", (*Tensor).Log1p, pos, math.Log1p, Float32},
		{"Sqrt", (*Tensor).Sqrt, pos, math.Sqrt, Float32},
		{"Rsqrt", (*Tensor).Rsqrt, pos, func(x float64) float64 { return 1 / math.Sqrt(x) }, Float32},
		{"Sigmoid", (*Tensor).Sigmoid, in, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, Float32},
		{"Tanh", (*Tensor).Tanh, in, math.Tanh, Float32},
		{"Erf", (*Tensor).Erf, in, math.Erf, Float32},
		{"Sin", (*Tensor).Sin, in, math.Sin, Float32},
		{"Cos", (*Tensor).Cos, in, math.Cos, Float32},
		{"Pow2", func(x *Tensor) *Tensor { return x.Pow(2) }, in, func(x float64) float64 { return x * x }, Int64},
		{"Pow3.0", func(x *Tensor) *Tensor { return Pow(x, 3.0) }, in, func(x float64) float64 { return x * x * x }, Int64},
		{"Pow0.5", func(x *Tensor) *Tensor { return x.Pow(0.5) }, pos, math.Sqrt, Float32},
	}
	for _, c := range cases {
		for _, dt := range []DType{Float32, Float64, Int64} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				x := vals(dt, c.in...)
				xin := x.Float64s() // the values dt really holds
				y := c.f(x)
				wantDT := dt
				if dt == Int64 {
					wantDT = c.intOut
				}
				if y.DType() != wantDT {
					t.Fatalf("dtype %v, want %v", y.DType(), wantDT)
				}
				want := make([]float64, len(xin))
				for i, v := range xin {
					want[i] = c.ref(v)
				}
				want = vals(wantDT, want...).Float64s()
				tol := 1e-12
				if wantDT == Float32 {
					tol = 1e-6
				}
				if got := y.Float64s(); !closeSlices(got, want, tol) {
					t.Fatalf("got %v, want %v", got, want)
				}
				if !slices.Equal(x.Float64s(), xin) {
					t.Fatal("the op modified its input")
				}
			})
		}
		t.Run(c.name+"/bool", func(t *testing.T) {
			mustPanicWith(t, ErrDType, func() { c.f(FromSlice([]bool{true})) }, "not defined for bool tensors")
		})
	}
	t.Run("LogicalNot", func(t *testing.T) {
		for _, dt := range []DType{Float32, Float64, Int64, Bool} {
			got := vals(dt, 0, 2, -1, 0).LogicalNot()
			if got.DType() != Bool || !slices.Equal(ToSlice[bool](got), []bool{true, false, false, true}) {
				t.Fatalf("%v: LogicalNot = %v %v", dt, got.DType(), got.Float64s())
			}
		}
	})
	t.Run("Pow/int-fractional-exponent", func(t *testing.T) {
		got := FromSlice([]int{4, 9}).Pow(1.5)
		if got.DType() != Float32 || !slices.Equal(got.Float64s(), []float64{8, 27}) {
			t.Fatalf("got %v %v", got.DType(), got.Float64s())
		}
	})
	t.Run("args", func(t *testing.T) {
		mustPanicWith(t, ErrArg, func() { Unary(OpClamp, ar(2)) }, "Clamp: op takes 2 scalar argument(s), got 0")
		mustPanicWith(t, ErrArg, func() { Unary(OpPowScalar, FromSlice([]int{1})) }, "Pow: op takes 1 scalar argument(s), got 0")
		mustPanicWith(t, ErrArg, func() { UnaryTo(ar(2), OpClamp, ar(2), 1) }, "got 1")
		mustPanicWith(t, ErrArg, func() { Unary(OpExp, ar(2), 1) }, "Exp: op takes 0 scalar argument(s), got 1")
	})
	t.Run("Unary/strided", func(t *testing.T) {
		x := ar(2, 3).T()
		if got, want := x.Neg().Float64s(), []float64{-1, -4, -2, -5, -3, -6}; !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}

func TestClamp(t *testing.T) {
	in := []float64{-3, -1, 0, 1, 2.5, 4, math.NaN()}
	inf := math.Inf(1)
	cases := []struct {
		name string
		f    func(*Tensor) *Tensor
		want []float64
	}{
		{"Clamp", func(x *Tensor) *Tensor { return x.Clamp(-1, 2) }, []float64{-1, -1, 0, 1, 2, 2, math.NaN()}},
		{"Clamp/lo-open", func(x *Tensor) *Tensor { return x.Clamp(math.Inf(-1), 1) }, []float64{-3, -1, 0, 1, 1, 1, math.NaN()}},
		{"Clamp/hi-open", func(x *Tensor) *Tensor { return x.Clamp(0, inf) }, []float64{0, 0, 0, 1, 2.5, 4, math.NaN()}},
		{"Clamp/lo>hi", func(x *Tensor) *Tensor { return x.Clamp(3, 1) }, []float64{1, 1, 1, 1, 1, 1, math.NaN()}},
		{"ClampMin", func(x *Tensor) *Tensor { return x.ClampMin(0.5) }, []float64{0.5, 0.5, 0.5, 1, 2.5, 4, math.NaN()}},
		{"ClampMax", func(x *Tensor) *Tensor { return x.ClampMax(0.5) }, []float64{-3, -1, 0, 0.5, 0.5, 0.5, math.NaN()}},
	}
	for _, c := range cases {
		for _, dt := range []DType{Float32, Float64} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				y := c.f(vals(dt, in...))
				if y.DType() != dt || !closeSlices(y.Float64s(), c.want, 0) {
					t.Fatalf("got %v %v, want %v", y.DType(), y.Float64s(), c.want)
				}
			})
		}
	}
	t.Run("int64", func(t *testing.T) {
		x := FromSlice([]int{-3, -1, 0, 2, 5})
		if got := x.Clamp(-1.5, 2.5); got.DType() != Int64 || !slices.Equal(got.Float64s(), []float64{-1, -1, 0, 2, 2}) {
			t.Fatalf("Clamp(-1.5, 2.5) = %v %v", got.DType(), got.Float64s())
		}
		if got := x.ClampMin(0); !slices.Equal(got.Float64s(), []float64{0, 0, 0, 2, 5}) {
			t.Fatalf("ClampMin(0) = %v", got.Float64s())
		}
	})
	// PyTorch's clamp keeps an x that equals a bound: -0 stays -0 with a
	// zero bound (the branching form) and with nonzero ones (min and max).
	t.Run("SignedZero", func(t *testing.T) {
		for _, b := range [][2]float64{{0, 1}, {-1, 0}, {-1, 1}} {
			for _, dt := range []DType{Float32, Float64} {
				got := vals(dt, math.Copysign(0, -1)).Clamp(b[0], b[1]).Float64s()[0]
				if got != 0 || !math.Signbit(got) {
					t.Errorf("%v Clamp(%g, %g) of -0 = %g (sign bit %v), want -0", dt, b[0], b[1], got, math.Signbit(got))
				}
			}
		}
	})
	t.Run("InPlace", func(t *testing.T) {
		x := FromSlice([]float64{-2, 0, 2})
		v := x.Version()
		if x.ClampInPlace(-1, 1) != x || !slices.Equal(x.Float64s(), []float64{-1, 0, 1}) || x.Version() != v+1 {
			t.Fatalf("ClampInPlace: %v version %d", x.Float64s(), x.Version())
		}
	})
}

func TestBinaryOps(t *testing.T) {
	a := []float64{-3, -1, 0, 2, 7, 4}
	b := []float64{2, -2, 5, 2, -7, 3}
	arith := []struct {
		name string
		f    func(x, y any) *Tensor
		ref  func(x, y float64) float64
	}{
		{"Add", Add, func(x, y float64) float64 { return x + y }},
		{"Sub", Sub, func(x, y float64) float64 { return x - y }},
		{"Mul", Mul, func(x, y float64) float64 { return x * y }},
		{"Maximum", Maximum, math.Max},
		{"Minimum", Minimum, math.Min},
		{"Pow", func(x, y any) *Tensor { return Binary(OpPow, x, y.(*Tensor).Abs()) },
			func(x, y float64) float64 { return math.Pow(x, math.Abs(y)) }},
		{"Add/method", func(x, y any) *Tensor { return x.(*Tensor).Add(y) }, func(x, y float64) float64 { return x + y }},
		{"Sub/method", func(x, y any) *Tensor { return x.(*Tensor).Sub(y) }, func(x, y float64) float64 { return x - y }},
		{"Mul/method", func(x, y any) *Tensor { return x.(*Tensor).Mul(y) }, func(x, y float64) float64 { return x * y }},
		{"Maximum/method", func(x, y any) *Tensor { return x.(*Tensor).Maximum(y) }, math.Max},
		{"Minimum/method", func(x, y any) *Tensor { return x.(*Tensor).Minimum(y) }, math.Min},
	}
	for _, c := range arith {
		for _, dt := range []DType{Float32, Float64, Int64} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				got := c.f(vals(dt, a...), vals(dt, b...))
				want := make([]float64, len(a))
				for i := range a {
					want[i] = c.ref(a[i], b[i])
				}
				if got.DType() != dt || !closeSlices(got.Float64s(), want, 1e-6) {
					t.Fatalf("got %v %v, want %v", got.DType(), got.Float64s(), want)
				}
			})
		}
	}
	t.Run("Div", func(t *testing.T) {
		for _, dt := range []DType{Float32, Float64, Int64, Bool} {
			got := Div(vals(dt, 1, 0, -3, 1), vals(dt, 2, 0, 2, 0))
			wantDT := dt
			if !dt.IsFloat() {
				wantDT = Float32
			}
			want := []float64{0.5, math.NaN(), -1.5, math.Inf(1)}
			if dt == Bool {
				want = []float64{1, math.NaN(), 1, math.Inf(1)}
			}
			if got.DType() != wantDT || !closeSlices(got.Float64s(), want, 0) {
				t.Fatalf("%v: got %v %v, want %v", dt, got.DType(), got.Float64s(), want)
			}
		}
		if got := FromSlice([]float64{3}).Div(2); got.Float64s()[0] != 1.5 {
			t.Fatalf("Div method = %v", got.Float64s())
		}
	})
	t.Run("Maximum-Minimum/NaN", func(t *testing.T) {
		nan := math.NaN()
		for _, dt := range []DType{Float32, Float64} {
			x, y := vals(dt, nan, 1, nan), vals(dt, 1, nan, nan)
			for _, r := range []*Tensor{Maximum(x, y), Minimum(x, y)} {
				for _, v := range r.Float64s() {
					if !math.IsNaN(v) {
						t.Fatalf("%v: %v, want all NaN", dt, r.Float64s())
					}
				}
			}
		}
	})
	compare := []struct {
		name string
		f    func(x *Tensor, y any) *Tensor
		ref  func(x, y float64) bool
	}{
		{"Eq", (*Tensor).Eq, func(x, y float64) bool { return x == y }},
		{"Ne", (*Tensor).Ne, func(x, y float64) bool { return x != y }},
		{"Lt", (*Tensor).Lt, func(x, y float64) bool { return x < y }},
		{"Le", (*Tensor).Le, func(x, y float64) bool { return x <= y }},
		{"Gt", (*Tensor).Gt, func(x, y float64) bool { return x > y }},
		{"Ge", (*Tensor).Ge, func(x, y float64) bool { return x >= y }},
	}
	ca := []float64{1, 2, 3, math.NaN(), 0, -1}
	cb := []float64{1, 3, 2, math.NaN(), 1, -1}
	for _, c := range compare {
		for _, dt := range []DType{Float32, Float64, Int64, Bool} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				x, y := vals(dt, ca...), vals(dt, cb...)
				if dt == Int64 || dt == Bool {
					// no NaN for these dtypes: compare what they hold
					x, y = vals(dt, ca[:3]...), vals(dt, cb[:3]...)
				}
				xs, ys := x.Float64s(), y.Float64s()
				got := c.f(x, y)
				want := make([]bool, len(xs))
				for i := range xs {
					want[i] = c.ref(xs[i], ys[i])
				}
				if got.DType() != Bool || !slices.Equal(ToSlice[bool](got), want) {
					t.Fatalf("got %v %v, want %v", got.DType(), ToSlice[bool](got), want)
				}
			})
		}
		t.Run(c.name+"/int-vs-float-scalar", func(t *testing.T) {
			x := FromSlice([]int{1, 2, 3})
			got := ToSlice[bool](c.f(x, 2.5))
			for i, v := range []float64{1, 2, 3} {
				if got[i] != c.ref(v, 2.5) {
					t.Fatalf("got %v", got)
				}
			}
		})
	}
	logical := []struct {
		name string
		f    func(x *Tensor, y any) *Tensor
		ref  func(x, y bool) bool
	}{
		{"LogicalAnd", (*Tensor).LogicalAnd, func(x, y bool) bool { return x && y }},
		{"LogicalOr", (*Tensor).LogicalOr, func(x, y bool) bool { return x || y }},
		{"LogicalXor", (*Tensor).LogicalXor, func(x, y bool) bool { return x != y }},
	}
	for _, c := range logical {
		for _, dt := range []DType{Float32, Float64, Int64, Bool} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				got := c.f(vals(dt, 0, 0, 2, -1), vals(dt, 0, 3, 0, 1))
				want := []bool{c.ref(false, false), c.ref(false, true), c.ref(true, false), c.ref(true, true)}
				if got.DType() != Bool || !slices.Equal(ToSlice[bool](got), want) {
					t.Fatalf("got %v %v, want %v", got.DType(), ToSlice[bool](got), want)
				}
			})
		}
	}
}

func TestTypePromotion(t *testing.T) {
	f32, f64 := vals(Float32, 1, 2), vals(Float64, 1, 2)
	i64, bl := vals(Int64, 1, 2), vals(Bool, 1, 0)
	cases := []struct {
		name string
		got  *Tensor
		dt   DType
		want []float64
	}{
		{"f32+f64", Add(f32, f64), Float64, []float64{2, 4}},
		{"f64+f32", Add(f64, f32), Float64, []float64{2, 4}},
		{"i64+f32", Add(i64, f32), Float32, []float64{2, 4}},
		{"i64+f64", Add(i64, f64), Float64, []float64{2, 4}},
		{"bool+i64", Add(bl, i64), Int64, []float64{2, 2}},
		{"bool+f32", Add(bl, f32), Float32, []float64{2, 2}},
		// As PyTorch: bool + bool is "or", * "and"; the result stays Bool.
		{"bool+bool", Add(bl, bl), Bool, []float64{1, 0}},
		{"bool*bool", Mul(bl, bl), Bool, []float64{1, 0}},
		{"bool-max", Maximum(bl, bl), Bool, []float64{1, 0}},
		{"i64+int", Add(i64, 3), Int64, []float64{4, 5}},
		{"i64+float", Add(i64, 0.5), Float32, []float64{1.5, 2.5}},
		{"float+i64", Add(0.5, i64), Float32, []float64{1.5, 2.5}},
		{"i64*float32", Mul(i64, float32(2)), Float32, []float64{2, 4}},
		{"f32+float64", Add(f32, 0.25), Float32, []float64{1.25, 2.25}},
		{"f32+int", Add(f32, 2), Float32, []float64{3, 4}},
		{"f64+int64", Add(f64, int64(2)), Float64, []float64{3, 4}},
		{"f32+int32", Add(f32, int32(2)), Float32, []float64{3, 4}},
		{"bool+int", Add(bl, 2), Int64, []float64{3, 2}},
		{"bool+float", Add(bl, 0.5), Float32, []float64{1.5, 0.5}},
		{"i64+true", Add(i64, true), Int64, []float64{2, 3}},
		{"i64/i64", Div(i64, i64), Float32, []float64{1, 1}},
		{"i64/int", Div(i64, 2), Float32, []float64{0.5, 1}},
		{"int/int", Add(2, 3), Int64, []float64{5}},
		{"int+float", Add(2, 0.5), Float32, []float64{2.5}}, // PyTorch: torch.add(2, 0.5) is float32
		{"i64-pow-int", Pow(i64, 2), Int64, []float64{1, 4}},
		{"f32-eq-f64", f32.Eq(f64), Bool, []float64{1, 1}},
		{"bool-eq-bool", bl.Eq(bl), Bool, []float64{1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got.DType() != c.dt || !slices.Equal(c.got.Float64s(), c.want) {
				t.Fatalf("got %v %v, want %v %v", c.got.DType(), c.got.Float64s(), c.dt, c.want)
			}
		})
	}
	t.Run("promote-table", func(t *testing.T) {
		order := []DType{Bool, Int64, Float32, Float64}
		for i, x := range order {
			for j, y := range order {
				want := order[max(i, j)]
				if got := promote(x, y); got != want {
					t.Errorf("promote(%v, %v) = %v, want %v", x, y, got, want)
				}
			}
		}
	})
}

func TestBroadcastingOps(t *testing.T) {
	col := FromSlice([]float64{10, 20}, 2, 1)
	row := FromSlice([]float64{1, 2, 3})
	got := Add(col, row)
	if !slices.Equal(got.Shape(), []int{2, 3}) || !slices.Equal(got.Float64s(), []float64{11, 12, 13, 21, 22, 23}) {
		t.Fatalf("Add(col, row) = %v %v", got.Shape(), got.Float64s())
	}
	if s := Add(Scalar(1.0), ar(2, 2)).Shape(); !slices.Equal(s, []int{2, 2}) {
		t.Fatalf("scalar broadcast shape %v", s)
	}
	mustPanicWith(t, ErrShape, func() { Add(ar(2, 3), ar(2)) }, "Add: shapes [2 3] and [2] are not broadcastable")
	mustPanicWith(t, ErrArg, func() { Add(ar(2), "x") }, "unsupported operand type string")
	mustPanicWith(t, ErrArg, func() { Add(ar(2), (*Tensor)(nil)) }, "Add: argument 'other' (position 2) must be a Tensor, not nil")
	mustPanicWith(t, ErrDevice, func() { Add(ar(2), EmptyOn(otherCPU{}, Float64, 2)) }, "operands live on different backends (cpu and cpu2)")
}

func TestWhereAndMaskedFill(t *testing.T) {
	cond := FromSlice([]bool{true, false, true})
	t.Run("broadcast", func(t *testing.T) {
		// cond [3] against a [2 1] and b scalar.
		got := Where(cond, FromSlice([]float64{1, 2}, 2, 1), -1.0)
		if !slices.Equal(got.Shape(), []int{2, 3}) || !slices.Equal(got.Float64s(), []float64{1, -1, 1, 2, -1, 2}) {
			t.Fatalf("got %v %v", got.Shape(), got.Float64s())
		}
	})
	t.Run("promotion", func(t *testing.T) {
		got := Where(cond, FromSlice([]int{1, 2, 3}), FromSlice([]float32{9, 9, 9}))
		if got.DType() != Float32 || !slices.Equal(got.Float64s(), []float64{1, 9, 3}) {
			t.Fatalf("got %v %v", got.DType(), got.Float64s())
		}
		got = Where(cond, FromSlice([]int{1, 2, 3}), 0.5)
		if got.DType() != Float32 || !slices.Equal(got.Float64s(), []float64{1, 0.5, 3}) {
			t.Fatalf("got %v %v", got.DType(), got.Float64s())
		}
	})
	t.Run("bool", func(t *testing.T) {
		got := Where(cond, FromSlice([]bool{false, false, false}), FromSlice([]bool{true, true, true}))
		if got.DType() != Bool || !slices.Equal(ToSlice[bool](got), []bool{false, true, false}) {
			t.Fatalf("got %v", ToSlice[bool](got))
		}
	})
	t.Run("errors", func(t *testing.T) {
		mustPanicWith(t, ErrDType, func() { Where(ar(3), 1.0, 0.0) }, "condition must be bool, got float64", "x.Gt(0)")
		mustPanicWith(t, ErrShape, func() { Where(cond, ar(2), 0.0) }, "Where: shapes")
	})
	t.Run("MaskedFill", func(t *testing.T) {
		x := ar(2, 3)
		got := x.MaskedFill(cond, -5)
		if !slices.Equal(got.Float64s(), []float64{-5, 2, -5, -5, 5, -5}) || got.SameStorage(x) {
			t.Fatalf("MaskedFill = %v", got.Float64s())
		}
		if !slices.Equal(x.Float64s(), []float64{1, 2, 3, 4, 5, 6}) {
			t.Fatal("MaskedFill modified its receiver")
		}
		gi := FromSlice([]int{1, 2, 3}).MaskedFill(Scalar(true), 7.9)
		if gi.DType() != Int64 || !slices.Equal(gi.Float64s(), []float64{7, 7, 7}) {
			t.Fatalf("int MaskedFill = %v %v", gi.DType(), gi.Float64s())
		}
		mustPanicWith(t, ErrDType, func() { x.MaskedFill(ar(3), 0) }, "mask must be bool, got float64")
		mustPanicWith(t, ErrShape, func() { ar(3).MaskedFill(FromSlice([]bool{true, false, true, false, true, false}, 2, 3), 0) },
			"mask of shape [2 3] does not broadcast to the tensor's shape [3]")
	})
}

func TestItemFloat64sData(t *testing.T) {
	if v := Scalar(2.5).Item(); v != 2.5 {
		t.Fatalf("Item = %v", v)
	}
	if v := FromSlice([]int{7}, 1, 1).Item(); v != 7 {
		t.Fatalf("Item = %v", v)
	}
	if v := Scalar(true).Item(); v != 1 {
		t.Fatalf("Item(bool) = %v", v)
	}
	mustPanicWith(t, ErrShape, func() { ar(2).Item() }, "a tensor with 2 elements (shape [2]) cannot be converted to a scalar", "reduce first")
	mustPanicWith(t, ErrShape, func() { ar(0).Item() }, "a tensor with 0 elements")

	t.Run("ToSlice", func(t *testing.T) {
		x := FromSlice([]float32{1.5, -2.5})
		if got := ToSlice[int64](x); !slices.Equal(got, []int64{1, -2}) {
			t.Fatalf("ToSlice[int64] = %v", got)
		}
		if got := ToSlice[float32](x); !slices.Equal(got, []float32{1.5, -2.5}) {
			t.Fatalf("ToSlice[float32] = %v", got)
		}
		got := ToSlice[float32](x)
		got[0] = 100
		if x.Float64s()[0] != 1.5 {
			t.Fatal("ToSlice aliases the tensor")
		}
	})
	t.Run("Data/aliases", func(t *testing.T) {
		x := ar(2, 3)
		row := x.Select(0, 1)
		d := Data[float64](row)
		if !slices.Equal(d, []float64{4, 5, 6}) {
			t.Fatalf("Data = %v", d)
		}
		d[0] = -4
		row.BumpVersion()
		if x.Float64s()[3] != -4 || x.Version() != 1 {
			t.Fatalf("write through Data not visible: %v version %d", x.Float64s(), x.Version())
		}
	})
	t.Run("Data/errors", func(t *testing.T) {
		mustPanicWith(t, ErrDType, func() { Data[float32](ar(2)) }, "tensor has dtype float64, asked for float32")
		mustPanicWith(t, ErrArg, func() { Data[float64](ar(2, 3).T()) }, "is not contiguous", "Contiguous()")
	})
}

func TestInPlaceAndVersions(t *testing.T) {
	cases := []struct {
		name string
		f    func(x *Tensor) *Tensor
		want []float64
	}{
		{"AddInPlace", func(x *Tensor) *Tensor { return x.AddInPlace(1) }, []float64{2, 3, 4, 5}},
		{"SubInPlace", func(x *Tensor) *Tensor { return x.SubInPlace(FromSlice([]float64{1, 2})) }, []float64{0, 0, 2, 2}},
		{"MulInPlace", func(x *Tensor) *Tensor { return x.MulInPlace(2) }, []float64{2, 4, 6, 8}},
		{"DivInPlace", func(x *Tensor) *Tensor { return x.DivInPlace(2) }, []float64{0.5, 1, 1.5, 2}},
		{"ClampInPlace", func(x *Tensor) *Tensor { return x.ClampInPlace(2, 3) }, []float64{2, 2, 3, 3}},
		{"Fill", func(x *Tensor) *Tensor { return x.Fill(9) }, []float64{9, 9, 9, 9}},
		{"CopyFrom", func(x *Tensor) *Tensor { return x.CopyFrom(Scalar(7.0)) }, []float64{7, 7, 7, 7}},
		{"BinaryTo", func(x *Tensor) *Tensor { return BinaryTo(x, OpMaximum, x, 2.5) }, []float64{2.5, 2.5, 3, 4}},
		{"UnaryTo", func(x *Tensor) *Tensor { return UnaryTo(x, OpNeg, x) }, []float64{-1, -2, -3, -4}},
	}
	for _, c := range cases {
		for _, dt := range []DType{Float32, Float64} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				x := vals(dt, 1, 2, 3, 4).Reshape(2, 2)
				view := x.T()
				v0 := x.Version()
				if r := c.f(x); r != x {
					t.Fatal("in-place op must return its receiver")
				}
				if !slices.Equal(x.Float64s(), c.want) {
					t.Fatalf("got %v, want %v", x.Float64s(), c.want)
				}
				if x.Version() != v0+1 || view.Version() != v0+1 {
					t.Fatalf("versions %d / view %d, want %d", x.Version(), view.Version(), v0+1)
				}
			})
		}
	}
	t.Run("through-view", func(t *testing.T) {
		x := ar(2, 3)
		col := x.Narrow(1, 2, 1)
		col.MulInPlace(10)
		if !slices.Equal(x.Float64s(), []float64{1, 2, 30, 4, 5, 60}) || x.Version() != 1 {
			t.Fatalf("got %v version %d", x.Float64s(), x.Version())
		}
	})
	t.Run("not-bumped-by-ops", func(t *testing.T) {
		x := ar(3)
		_ = x.Add(1)
		_ = x.Exp()
		_ = x.Clone()
		_ = x.Float64s()
		if x.Version() != 0 {
			t.Fatalf("out-of-place ops bumped the version to %d", x.Version())
		}
	})
	t.Run("BumpVersion", func(t *testing.T) {
		x := ar(3)
		x.BumpVersion()
		x.View(3, 1).BumpVersion()
		if x.Version() != 2 {
			t.Fatalf("version %d, want 2", x.Version())
		}
	})
	t.Run("BinaryTo/compare", func(t *testing.T) {
		d := Empty(Bool, 3)
		BinaryTo(d, OpGt, ar(3), 1.5)
		if !slices.Equal(ToSlice[bool](d), []bool{false, true, true}) || d.Version() != 1 {
			t.Fatalf("got %v", ToSlice[bool](d))
		}
		BinaryTo(d, OpEq, FromSlice([]bool{true, false, false}), FromSlice([]bool{true, true, false}))
		if !slices.Equal(ToSlice[bool](d), []bool{true, false, true}) {
			t.Fatalf("bool Eq into a bool destination: got %v", ToSlice[bool](d))
		}
	})
	t.Run("errors", func(t *testing.T) {
		mustPanicWith(t, ErrShape, func() { ar(2).AddInPlace(ar(2, 2)) }, "Add: output with shape [2] doesn't match the broadcast shape [2 2]")
		mustPanicWith(t, ErrDType, func() { BinaryTo(ar(2), OpLt, ar(2), ar(2)) }, "comparison result needs a bool destination, got float64")
		mustPanicWith(t, ErrShape, func() { UnaryTo(ar(3), OpNeg, ar(2)) }, "destination float64 [3] does not match input float64 [2]")
		mustPanicWith(t, ErrDType, func() { FromSlice([]int{1, 2}).DivInPlace(2) }, "result type float32 can't be cast to the desired output type int64")
		mustPanicWith(t, ErrDType, func() { FromSlice([]int{1, 2}).AddInPlace(0.5) }, "can't be cast")
		mustPanicWith(t, ErrDType, func() { FromSlice([]bool{true}).AddInPlace(1) }, "can't be cast to the desired output type bool")
	})
	t.Run("empty", func(t *testing.T) {
		// Nothing is written into an empty tensor, whatever its strides
		// (Zeros(3, 0) has strides [0 1]), so in-place ops just return it.
		for _, dt := range []DType{Float32, Float64} {
			for _, shape := range [][]int{{3, 0}, {0, 3}, {0}, {2, 0, 4}} {
				x := Zeros(dt, shape...)
				for _, c := range []*Tensor{x, x.Clone()} {
					c.SubInPlace(c.Mul(c).SumKeep(-1)).MulInPlace(c).AddInPlace(1)
					c.CopyFrom(Zeros(dt, shape...))
					UnaryTo(c, OpNeg, c)
					if c.Numel() != 0 || !slices.Equal(c.Shape(), shape) {
						t.Fatalf("%v %v: got shape %v", dt, shape, c.Shape())
					}
				}
			}
		}
	})
	t.Run("overlap", func(t *testing.T) {
		x := ar(2, 2)
		mustPanicWith(t, ErrArg, func() { x.AddInPlace(x.T()) }, "some elements of the input tensor and the written-to tensor refer to a single memory location", "Clone()")
		mustPanicWith(t, ErrArg, func() { x.AddInPlace(x.Select(0, 1)) }, "refer to a single memory location")
		mustPanicWith(t, ErrArg, func() { x.CopyFrom(x.T()) }, "CopyFrom: unsupported operation")
		mustPanicWith(t, ErrArg, func() { x.CopyFrom(x.Select(0, 0)) }, "CopyFrom: unsupported operation")
		mustPanicWith(t, ErrArg, func() { UnaryTo(x, OpNeg, x.T()) }, "Neg: unsupported operation")
		e := ar(2, 1).Expand(2, 3)
		mustPanicWith(t, ErrArg, func() { e.AddInPlace(1) }, "more than one element of the written-to tensor (shape [2 3], strides [1 0])")
		if !slices.Equal(x.Float64s(), []float64{1, 2, 3, 4}) || x.Version() != 0 {
			t.Fatalf("a refused write changed the tensor: %v version %d", x.Float64s(), x.Version())
		}
		// Disjoint regions of one storage and the identical view are fine.
		x.Narrow(0, 0, 1).CopyFrom(x.Narrow(0, 1, 1))
		x.Narrow(1, 1, 1).AddInPlace(x.Narrow(1, 0, 1))
		x.View(4).MulInPlace(x.View(4))
		x.Select(0, 0).CopyFrom(x.Select(0, 0))
		if want := []float64{9, 49, 9, 49}; !slices.Equal(x.Float64s(), want) {
			t.Fatalf("got %v, want %v", x.Float64s(), want)
		}
		y := ar(3)
		y.AddInPlace(y.Clone())
		if !slices.Equal(y.Float64s(), []float64{2, 4, 6}) {
			t.Fatalf("got %v", y.Float64s())
		}
	})
	t.Run("allowed-casts", func(t *testing.T) {
		x := FromSlice([]float64{1, 2})
		x.AddInPlace(FromSlice([]int{1, 1}))
		y := FromSlice([]int{1, 2})
		y.MulInPlace(3)
		y.AddInPlace(FromSlice([]bool{true, false}))
		z := FromSlice([]float32{1, 2})
		z.AddInPlace(ar(2)) // float64 into float32 is a same-kind cast, as in PyTorch
		if !slices.Equal(z.Float64s(), []float64{2, 4}) {
			t.Fatalf("float32 += float64: %v", z.Float64s())
		}
		if !slices.Equal(x.Float64s(), []float64{2, 3}) || !slices.Equal(y.Float64s(), []float64{4, 6}) {
			t.Fatalf("got %v and %v", x.Float64s(), y.Float64s())
		}
	})
}

// AddScaledInPlace against AddInPlace(y.Mul(alpha)), per dtype, on the fused
// path (contiguous, same shape) and the general one (broadcast, transposed,
// mixed dtypes), and the overlap check.
func TestAddScaledInPlace(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		g := NewGenerator(11)
		base := g.Randn(dt, 37, 41)
		for _, tc := range []struct {
			name string
			y    *Tensor
		}{
			{"contiguous", g.Randn(dt, 37, 41)},
			{"broadcast row", g.Randn(dt, 41)},
			{"transposed", g.Randn(dt, 41, 37).T()},
			{"other dtype", g.Randn(Float64, 37, 41).To(map[DType]DType{Float32: Float64, Float64: Float32}[dt])},
		} {
			got := base.Clone()
			v := got.Version()
			if r := got.AddScaledInPlace(-0.37, tc.y); r != got {
				t.Fatalf("%v %s: did not return the receiver", dt, tc.name)
			}
			if got.Version() == v {
				t.Errorf("%v %s: version not bumped", dt, tc.name)
			}
			want := base.Clone().AddInPlace(tc.y.Mul(-0.37))
			a, b := got.Float64s(), want.Float64s()
			for i := range a {
				if d := math.Abs(a[i] - b[i]); d > 1e-6*(1+math.Abs(b[i])) {
					t.Fatalf("%v %s: element %d is %v, want %v", dt, tc.name, i, a[i], b[i])
				}
			}
		}
		// y aliasing t: t += alpha·t.
		x := base.Clone()
		x.AddScaledInPlace(0.5, x)
		if a, b := x.Float64s(), base.Mul(1.5).Float64s(); math.Abs(a[5]-b[5]) > 1e-6 {
			t.Fatalf("%v: self update %v, want %v", dt, a[5], b[5])
		}
		// ScaleAddInPlace: beta·t + alpha·y on both paths, against the
		// two-step form (bit for bit: each product rounded, then the sum).
		for _, y := range []*Tensor{g.Randn(dt, 37, 41), g.Randn(dt, 41, 37).T()} {
			got := base.Clone().ScaleAddInPlace(0.9, 0.1, y)
			want := base.Clone().MulInPlace(0.9).AddInPlace(y.Mul(0.1))
			a, b := got.Float64s(), want.Float64s()
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("%v ScaleAddInPlace: element %d is %v, want %v", dt, i, a[i], b[i])
				}
			}
		}
		// A destination whose elements share memory cannot be written.
		mustPanicWith(t, ErrArg, func() { Zeros(dt, 1).Expand(4).AddScaledInPlace(1, Ones(dt, 4)) })
		// Nor one that a source partly overlaps.
		long := g.Randn(dt, 20)
		mustPanicWith(t, ErrArg, func() { long.Narrow(0, 0, 10).ScaleAddInPlace(2, 1, long.Narrow(0, 5, 10)) })
	}
}

// A Bool mask cast to a float is 1 where true and 0 where false, contiguous
// (boolsTo) or strided (a transposed mask, the element-wise path).
func TestBoolToFloat(t *testing.T) {
	mask := FromSlice([]bool{true, false, false, true, true, false}, 2, 3)
	for _, tc := range []struct {
		name string
		in   *Tensor
		want []float64
	}{
		{"contiguous", mask, []float64{1, 0, 0, 1, 1, 0}},
		{"transposed", mask.T(), []float64{1, 1, 0, 1, 0, 0}},
	} {
		for _, dt := range []DType{Float32, Float64} {
			t.Run(tc.name+"/"+dt.String(), func(t *testing.T) {
				got := tc.in.To(dt)
				if got.DType() != dt || !slices.Equal(got.Float64s(), tc.want) {
					t.Fatalf("got %v %v, want %v", got.DType(), got.Float64s(), tc.want)
				}
			})
		}
	}
}
