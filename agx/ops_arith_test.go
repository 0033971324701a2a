package agx

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/tensor"
)

var (
	arA  = []float64{0.5, -1.25, 2, 1.5, -0.75, 0.3} // [2,3]
	arB  = []float64{1.45, 0.8, -0.6}                // [3]
	arBp = []float64{1.5, 0.8, 1.25}                 // [3], positive
	arC  = []float64{0.4, -1.1}                      // [2,1]
	arM  = []float64{1, 0, 1}                        // [3] mask
)

func arithCases() []opCase {
	a23 := gIn(shp(2, 3), arA...)
	b3 := gIn(shp(3), arB...)
	bcA := func(v []float64, from []int) []float64 { return opBcast(v, from, shp(2, 3)) }
	b := bcA(arB, shp(3))
	bp := bcA(arBp, shp(3))
	cc := bcA(arC, shp(2, 1))
	posA := opMap(arA, math.Abs)
	mask := bcA(arM, shp(3))
	sel := func(m, x, y []float64) []float64 {
		out := make([]float64, len(m))
		for i := range m {
			out[i] = y[i]
			if m[i] != 0 {
				out[i] = x[i]
			}
		}
		return out
	}
	return []opCase{
		{name: "Add/broadcast", in: []opIn{a23, b3}, f: func(x []*Tensor) *Tensor { return Add(x[0], x[1]) },
			want: opZip(arA, b, func(x, y float64) float64 { return x + y }), wantShape: shp(2, 3), oracle: "add"},
		{name: "Add/scalar", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].Add(2.5) },
			want: opMap(arA, func(x float64) float64 { return x + 2.5 }), oracle: "add_scalar", params: map[string]any{"s": 2.5}},
		{name: "Sub/broadcast", in: []opIn{a23, gIn(shp(2, 1), arC...)}, f: func(x []*Tensor) *Tensor { return Sub(x[0], x[1]) },
			want: opZip(arA, cc, func(x, y float64) float64 { return x - y }), oracle: "sub"},
		{name: "Sub/scalar_left", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].RSub(1) },
			want: opMap(arA, func(x float64) float64 { return 1 - x }), oracle: "rsub_scalar", params: map[string]any{"s": 1.0}},
		{name: "Mul/broadcast", in: []opIn{a23, b3}, f: func(x []*Tensor) *Tensor { return Mul(x[0], x[1]) },
			want: opZip(arA, b, func(x, y float64) float64 { return x * y }), oracle: "mul"},
		{name: "Mul/const_operand", in: []opIn{a23, cIn(shp(3), arB...)}, f: func(x []*Tensor) *Tensor { return Mul(x[0], x[1]) },
			want: opZip(arA, b, func(x, y float64) float64 { return x * y }), oracle: "mul"},
		{name: "Mul/scalar", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].Mul(-3) },
			want: opMap(arA, func(x float64) float64 { return -3 * x }), oracle: "mul_scalar", params: map[string]any{"s": -3.0}},
		{name: "Div/broadcast", in: []opIn{a23, gIn(shp(3), arBp...).rng(0.5, 2)}, f: func(x []*Tensor) *Tensor { return Div(x[0], x[1]) },
			want: opZip(arA, bp, func(x, y float64) float64 { return x / y }), oracle: "div"},
		{name: "Div/scalar_numerator", in: []opIn{gIn(shp(3), arBp...).rng(0.5, 2)}, f: func(x []*Tensor) *Tensor { return Div(2.0, x[0]) },
			want: opMap(arBp, func(x float64) float64 { return 2 / x }), oracle: "rdiv_scalar", params: map[string]any{"s": 2.0}},
		{name: "Div/scalar", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].Div(4) },
			want: opMap(arA, func(x float64) float64 { return x / 4 }), oracle: "div_scalar", params: map[string]any{"s": 4.0}},
		{name: "Pow/scalar_exponent", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].Pow(3) },
			want: opMap(arA, func(x float64) float64 { return x * x * x }), oracle: "pow_scalar", params: map[string]any{"p": 3.0}},
		{name: "Pow/fractional_exponent", in: []opIn{gIn(shp(2, 3), posA...).rng(0.2, 2)}, f: func(x []*Tensor) *Tensor { return x[0].Pow(2.5) },
			want: opMap(posA, func(x float64) float64 { return math.Pow(x, 2.5) }), oracle: "pow_scalar", params: map[string]any{"p": 2.5}},
		{name: "Pow/square", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].Pow(2) },
			want: opMap(arA, func(x float64) float64 { return x * x }), oracle: "pow_scalar", params: map[string]any{"p": 2.0}},
		{name: "Pow/sqrt", in: []opIn{gIn(shp(2, 3), posA...).rng(0.2, 2)}, f: func(x []*Tensor) *Tensor { return x[0].Pow(0.5) },
			want: opMap(posA, math.Sqrt), oracle: "pow_scalar", params: map[string]any{"p": 0.5}},
		{name: "Pow/rsqrt", in: []opIn{gIn(shp(2, 3), posA...).rng(0.2, 2)}, f: func(x []*Tensor) *Tensor { return x[0].Pow(-0.5) },
			want: opMap(posA, func(x float64) float64 { return 1 / math.Sqrt(x) }), oracle: "pow_scalar", params: map[string]any{"p": -0.5}},
		{name: "Pow/reciprocal", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].Pow(-1) },
			want: opMap(arA, func(x float64) float64 { return 1 / x }), oracle: "pow_scalar", params: map[string]any{"p": -1.0}},
		{name: "Pow/minus_four", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].Pow(-4) },
			want: opMap(arA, func(x float64) float64 { return math.Pow(x, -4) }), oracle: "pow_scalar", params: map[string]any{"p": -4.0}},
		{name: "Pow/zero_exponent", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].Pow(0) },
			want: opMap(arA, func(float64) float64 { return 1 }), oracle: "pow_scalar", params: map[string]any{"p": 0.0}},
		{name: "Pow/tensor_exponent", in: []opIn{gIn(shp(2, 3), posA...).rng(0.2, 2), b3},
			f:    func(x []*Tensor) *Tensor { return Pow(x[0], x[1]) },
			want: opZip(posA, b, math.Pow), oracle: "pow"},
		// At base 0 with a non-negative exponent, d/dexp is 0 (not 0·log 0).
		// Integer exponents keep the finite differences real at base ±eps.
		{name: "Pow/tensor_exponent_base0", in: []opIn{gIn(shp(3), 0, 1.5, 0).keep(), gIn(shp(3), 2, 1.5, 3).keep()},
			f:    func(x []*Tensor) *Tensor { return Pow(x[0], x[1]) },
			want: []float64{0, math.Pow(1.5, 1.5), 0}, oracle: "pow", noGradGrad: true},
		{name: "Pow/scalar_base", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return Pow(2.0, x[0]) },
			want: opMap(arA, func(x float64) float64 { return math.Pow(2, x) }), oracle: "rpow", params: map[string]any{"b": 2.0}},
		{name: "Neg", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].Neg() },
			want: opMap(arA, func(x float64) float64 { return -x }), oracle: "neg"},
		{name: "Maximum/broadcast", in: []opIn{a23, b3}, f: func(x []*Tensor) *Tensor { return Maximum(x[0], x[1]) },
			want: opZip(arA, b, math.Max), oracle: "maximum"},
		{name: "Maximum/scalar", in: []opIn{a23}, f: func(x []*Tensor) *Tensor { return x[0].Maximum(0.1) },
			want: opMap(arA, func(x float64) float64 { return math.Max(x, 0.1) }), oracle: "maximum_scalar", params: map[string]any{"s": 0.1}},
		{name: "Minimum/broadcast", in: []opIn{a23, b3}, f: func(x []*Tensor) *Tensor { return Minimum(x[0], x[1]) },
			want: opZip(arA, b, math.Min), oracle: "minimum"},
		{name: "Where/broadcast", in: []opIn{maskIn(shp(3), arM...), a23, b3},
			f:    func(x []*Tensor) *Tensor { return Where(x[0], x[1], x[2]) },
			want: sel(mask, arA, b), oracle: "where"},
		{name: "Where/scalar", in: []opIn{maskIn(shp(3), arM...), a23},
			f:    func(x []*Tensor) *Tensor { return Where(x[0], x[1], 0.0) },
			want: sel(mask, arA, make([]float64, 6)), oracle: "where_scalar", params: map[string]any{"s": 0.0}},
		{name: "MaskedFill", in: []opIn{a23, maskIn(shp(3), arM...)},
			f:    func(x []*Tensor) *Tensor { return x[0].MaskedFill(x[1], -1) },
			want: sel(mask, []float64{-1, -1, -1, -1, -1, -1}, arA), oracle: "masked_fill", params: map[string]any{"v": -1.0}},
	}
}

func TestArithOps(t *testing.T) { runOpCases(t, arithCases()) }

// powEdges are the bases of TestPowFastExponents: signs, zeros, infinities,
// NaN and magnitudes whose powers stay normal in float32. There are more
// than 16, so that the vectorised loops run.
var powEdges = []float64{-8, -2.5, -1, -0.5, math.Copysign(0, -1), 0, 0.3, 1, 2, 7, 1e6, 1e-6,
	math.Inf(1), math.Inf(-1), math.NaN(), 3.75, -1e-3, 0.999}

// powRef is x**p as PyTorch computes it: math.Pow, except that 0.5 and -0.5
// are √x and 1/√x (so -0 gives -0 and -Inf, and -Inf gives NaN).
func powRef(x, p float64) float64 {
	switch p {
	case 0.5:
		return math.Sqrt(x)
	case -0.5:
		return 1 / math.Sqrt(x)
	}
	return math.Pow(x, p)
}

// TestPowFastExponents checks Pow with each exponent that has a cheap form,
// in both float dtypes, against powRef: the value, on dense and strided
// input (the vectorised and the scalar loops), and the gradient p·x^(p-1),
// computed on the data (plain backward) and from ops (CreateGraph).
func TestPowFastExponents(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		// a few ulps: the forms round up to four times (x^5, then 1/x^5)
		tol := 8 * 0x1p-52
		if dt == Float32 {
			tol = 8 * 0x1p-23
		}
		for _, p := range []float64{2, 3, 4, 5, 1, 0.5, -0.5, -1, -2, -3, -4, -5, 0} {
			t.Run(fmt.Sprintf("%v/%v", dt, p), func(t *testing.T) {
				n := len(powEdges)
				x := FromSlice(powEdges).To(dt)
				// the same values down a column of a [n,2] tensor: stride 2
				pairs := make([]float64, 0, 2*n)
				for _, v := range powEdges {
					pairs = append(pairs, v, 1)
				}
				wide := FromSlice(pairs, n, 2).To(dt)
				check := func(what string, got []float64, ref func(x float64) float64, skip func(x float64) bool) {
					t.Helper()
					for i, v := range powEdges {
						if skip != nil && skip(v) {
							continue
						}
						want := ref(v)
						if dt == Float32 {
							want = float64(float32(want))
						}
						if !powClose(got[i], want, tol) {
							t.Errorf("%s at %v: got %v, want %v", what, v, got[i], want)
						}
					}
				}
				dense := x.Pow(p).Float64s()
				check("value", dense, func(v float64) float64 { return powRef(v, p) }, nil)
				strided := wide.Select(1, 0).Pow(p).Float64s()
				for i := range dense {
					if math.Float64bits(dense[i]) != math.Float64bits(strided[i]) && !(math.IsNaN(dense[i]) && math.IsNaN(strided[i])) {
						t.Errorf("at %v: dense %v, strided %v", powEdges[i], dense[i], strided[i])
					}
				}

				// The gradient p·x^(p-1) for an upstream gradient of ones. At
				// -Inf the cheap forms of x^-1.5 give NaN where math.Pow gives
				// 0 (the value x^-0.5 is NaN there).
				dref := func(v float64) float64 {
					if p == 0 {
						return 0
					}
					return p * powRef(v, p-1)
				}
				skip := func(v float64) bool { return p == -0.5 && math.IsInf(v, -1) }
				for _, create := range []bool{false, true} {
					xg := x.Detach().SetRequiresGrad(true)
					g := Grad([]*Tensor{xg.Pow(p)}, []*Tensor{xg}, GradOutputs(OnesLike(xg)), CreateGraph(create))[0]
					check(fmt.Sprintf("grad (CreateGraph %v)", create), g.Float64s(), dref, skip)
				}
			})
		}
	}
}

// TestPowFastEdges pins the values the issue names, as PyTorch gives them.
func TestPowFastEdges(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name       string
		x, p       float64
		want, grad float64
	}{
		{"sqrt_of_negative", -8, 0.5, nan, nan},
		{"reciprocal_of_zero", 0, -1, inf, -inf},
		{"square_at_zero", 0, 2, 0, 0},
		{"sqrt_at_zero", 0, 0.5, 0, inf},
		{"rsqrt_at_zero", 0, -0.5, inf, -inf},
		{"cube_of_negative", -2, 3, -8, 12},
		{"square_of_nan", nan, 2, nan, nan},
		{"reciprocal_of_inf", inf, -1, 0, math.Copysign(0, -1)},
	} {
		for _, dt := range []DType{Float32, Float64} {
			t.Run(fmt.Sprintf("%s/%v", tc.name, dt), func(t *testing.T) {
				x := Full(dt, tc.x, 20).SetRequiresGrad(true)
				y := x.Pow(tc.p)
				g := Grad([]*Tensor{y}, []*Tensor{x}, GradOutputs(OnesLike(x)))[0]
				if got := y.Float64s()[0]; !powClose(got, tc.want, 0) {
					t.Errorf("value: got %v, want %v", got, tc.want)
				}
				if got := g.Float64s()[0]; !powClose(got, tc.grad, 0) {
					t.Errorf("grad: got %v, want %v", got, tc.grad)
				}
			})
		}
	}
}

// powClose reports whether got is want within a relative tolerance, with
// NaN equal to NaN, and infinities and zeros matched exactly (sign included).
func powClose(got, want, tol float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0) || want == 0:
		return math.Float64bits(got) == math.Float64bits(want)
	}
	return math.Abs(got-want) <= tol*math.Abs(want)
}

// BenchmarkPow times Pow with each fast exponent on a [256,512] tensor next
// to the op it should cost as much as (x·x for 2, x·x·x for 3, Sqrt, 1/x,
// Rsqrt), forward alone ("fwd") and forward plus backward ("fwdbwd"). Run it
// with -cpu 1 and compare the rows of one exponent.
func BenchmarkPow(b *testing.B) {
	pairs := []struct {
		name      string
		pow, same func(x *Tensor) *Tensor
	}{
		{"2", func(x *Tensor) *Tensor { return x.Pow(2) }, func(x *Tensor) *Tensor { return x.Mul(x) }},
		{"3", func(x *Tensor) *Tensor { return x.Pow(3) }, func(x *Tensor) *Tensor { return x.Mul(x).Mul(x) }},
		{"0.5", func(x *Tensor) *Tensor { return x.Pow(0.5) }, func(x *Tensor) *Tensor { return x.Sqrt() }},
		{"-1", func(x *Tensor) *Tensor { return x.Pow(-1) }, func(x *Tensor) *Tensor { return Div(1.0, x) }},
		{"-0.5", func(x *Tensor) *Tensor { return x.Pow(-0.5) }, func(x *Tensor) *Tensor { return x.Rsqrt() }},
	}
	for _, dt := range []DType{Float32, Float64} {
		gen := tensor.NewGenerator(1)
		x := New(gen.Rand(dt, 256, 512).Add(0.5))
		xg := New(x.data).SetRequiresGrad(true)
		g := New(gen.Randn(dt, 256, 512))
		for _, p := range pairs {
			for _, side := range []struct {
				name string
				f    func(*Tensor) *Tensor
			}{{"pow", p.pow}, {"same", p.same}} {
				b.Run(fmt.Sprintf("%v/%s/%s/fwd", dt, p.name, side.name), func(b *testing.B) {
					loopCPU(b, func() { side.f(x) })
				})
				b.Run(fmt.Sprintf("%v/%s/%s/fwdbwd", dt, p.name, side.name), func(b *testing.B) {
					loopCPU(b, func() { Grad([]*Tensor{side.f(xg)}, []*Tensor{xg}, GradOutputs(g)) })
				})
			}
		}
	}
}

// BenchmarkScalarOperand times the arithmetic ops with a Go-number operand
// and with a [1,512] row broadcast over a [256,512] tensor, next to the same
// op on two [256,512] tensors ("tensor"), forward alone. Run with -cpu 1.
func BenchmarkScalarOperand(b *testing.B) {
	gen := tensor.NewGenerator(1)
	x := New(gen.Rand(tensor.Float32, 256, 512).Add(0.5))
	y := New(gen.Rand(tensor.Float32, 256, 512).Add(0.5))
	row := New(gen.Rand(tensor.Float32, 1, 512).Add(0.5))
	ops := []struct {
		name string
		f    func(a, b any) *Tensor
	}{{"Add", Add}, {"Sub", Sub}, {"Mul", Mul}, {"Div", Div}}
	for _, op := range ops {
		b.Run(op.name+"/tensor", func(b *testing.B) {
			loopCPU(b, func() { op.f(x, y) })
		})
		b.Run(op.name+"/scalar", func(b *testing.B) {
			loopCPU(b, func() { op.f(x, 1.5) })
		})
		b.Run(op.name+"/scalar_left", func(b *testing.B) {
			loopCPU(b, func() { op.f(1.5, x) })
		})
		b.Run(op.name+"/row", func(b *testing.B) {
			loopCPU(b, func() { op.f(x, row) })
		})
	}
}

// TestPowBroadcastBase checks the exponent's gradient of Pow when the base
// is broadcast: the mask that zeroes log(0) has the output's shape, larger
// than the base's.
func TestPowBroadcastBase(t *testing.T) {
	as, bs := []float64{0.5, 2, 0}, []float64{1, 2, 0.5}
	b := FromSlice(bs, 1, 3)
	b.SetRequiresGrad(true)
	Pow(FromSlice(as, 3, 1), b).Sum().Backward()
	got := b.Grad().Float64s()
	for j, bv := range bs {
		want := 0.0 // Σ over the bases of a^b·log a; 0 for a = 0 (b ≥ 0)
		for _, av := range as[:2] {
			want += math.Pow(av, bv) * math.Log(av)
		}
		if math.Abs(got[j]-want) > 1e-12 {
			t.Errorf("grad[%d] = %g, want %g", j, got[j], want)
		}
	}
}
