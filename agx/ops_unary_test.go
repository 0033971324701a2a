package agx

import (
	"math"
	"testing"
)

var (
	unX   = []float64{-1.3, -0.4, 0.25, 0.7, 1.6, 2.2}  // [2,3], away from 0 and integers
	unPos = []float64{0.3, 0.55, 1.2, 1.75, 2.4, 3.1}   // [2,3], positive
	unRnd = []float64{-1.3, -0.4, 0.25, 0.7, 1.6, 2.35} // away from half-integers
)

func unaryCases() []opCase {
	x := gIn(shp(2, 3), unX...)
	xk := x.kinked(0.1) // kink at 0
	pos := gIn(shp(2, 3), unPos...).rng(0.2, 3)
	sigmoid := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	gelu := func(v float64) float64 { return v * 0.5 * (1 + math.Erf(v/math.Sqrt2)) }
	geluTanh := func(v float64) float64 {
		return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
	}
	clamp := func(lo, hi float64) func(float64) float64 {
		return func(v float64) float64 { return math.Min(math.Max(v, lo), hi) }
	}
	type un struct {
		name, oracle string
		in           opIn
		f            func(*Tensor) *Tensor
		ref          func(float64) float64
		params       map[string]any
	}
	uns := []un{
		{"Exp", "exp", x, (*Tensor).Exp, math.Exp, nil},
		{"Expm1", "expm1", x, (*Tensor).Expm1, math.Expm1, nil},
		{"Log", "log", pos, (*Tensor).Log, math.Log, nil},
		{"Log1p", "log1p", pos, (*Tensor).Log1p, math.Log1p, nil},
		{"Sqrt", "sqrt", pos, (*Tensor).Sqrt, math.Sqrt, nil},
		{"Rsqrt", "rsqrt", pos, (*Tensor).Rsqrt, func(v float64) float64 { return 1 / math.Sqrt(v) }, nil},
		{"Abs", "abs", xk, (*Tensor).Abs, math.Abs, nil},
		{"Sign", "sign", xk, (*Tensor).Sign, func(v float64) float64 { return math.Copysign(1, v) }, nil},
		{"Round", "round", gIn(shp(2, 3), unRnd...), (*Tensor).Round, math.RoundToEven, nil},
		{"Floor", "floor", x, (*Tensor).Floor, math.Floor, nil},
		{"Ceil", "ceil", x, (*Tensor).Ceil, math.Ceil, nil},
		{"Clamp", "clamp", x, func(t *Tensor) *Tensor { return t.Clamp(-1, 1) }, clamp(-1, 1), map[string]any{"lo": -1.0, "hi": 1.0}},
		{"ClampMin", "clamp_min", x, func(t *Tensor) *Tensor { return t.ClampMin(0.5) }, clamp(0.5, math.Inf(1)), map[string]any{"lo": 0.5}},
		{"ClampMax", "clamp_max", x, func(t *Tensor) *Tensor { return t.ClampMax(0.5) }, clamp(math.Inf(-1), 0.5), map[string]any{"hi": 0.5}},
		{"Sigmoid", "sigmoid", x, (*Tensor).Sigmoid, sigmoid, nil},
		{"Tanh", "tanh", x, (*Tensor).Tanh, math.Tanh, nil},
		{"Relu", "relu", xk, (*Tensor).Relu, func(v float64) float64 { return math.Max(v, 0) }, nil},
		{"Erf", "erf", x, (*Tensor).Erf, math.Erf, nil},
		{"Sin", "sin", x, (*Tensor).Sin, math.Sin, nil},
		{"Cos", "cos", x, (*Tensor).Cos, math.Cos, nil},
		{"GELU", "gelu", x, (*Tensor).GELU, gelu, nil},
		{"GELUTanh", "gelu_tanh", x, (*Tensor).GELUTanh, geluTanh, nil},
		{"SiLU", "silu", x, (*Tensor).SiLU, func(v float64) float64 { return v * sigmoid(v) }, nil},
		{"Clone", "clone", x, (*Tensor).Clone, func(v float64) float64 { return v }, nil},
		{"Contiguous/transposed", "contiguous_t", x, func(t *Tensor) *Tensor { return t.T().Contiguous() }, nil, nil},
	}
	var cases []opCase
	for _, u := range uns {
		var want []float64
		if u.ref != nil {
			want = opMap(u.in.vals, u.ref)
		} else {
			want = []float64{unX[0], unX[3], unX[1], unX[4], unX[2], unX[5]}
		}
		f := u.f
		cases = append(cases, opCase{name: u.name, in: []opIn{u.in}, f: func(x []*Tensor) *Tensor { return f(x[0]) },
			want: want, oracle: u.oracle, params: u.params})
	}
	// To: a round trip through the other float dtype carries the gradient
	// across dtypes (the output has the input's dtype again). Finite
	// differences cannot see through float32 rounding, so the gradient is
	// checked directly.
	cases = append(cases, opCase{name: "To/round_trip", in: []opIn{gIn(shp(2, 3), 0.5, -1.25, 2, 1.5, -0.75, 0.375)},
		f: func(x []*Tensor) *Tensor {
			other := Float32
			if x[0].DType() == Float32 {
				other = Float64
			}
			return x[0].To(other).Mul(2).To(x[0].DType())
		},
		want: []float64{1, -2.5, 4, 3, -1.5, 0.75}, oracle: "to_round_trip",
		ste: true, wantGrad: [][]float64{{2, 2, 2, 2, 2, 2}}, noGradGrad: true})
	return cases
}

func TestUnaryOps(t *testing.T) { runOpCases(t, unaryCases()) }

func TestToDTypes(t *testing.T) {
	x := FromSlice([]float64{1.5, -2}).SetRequiresGrad(true)
	y := x.To(Float32)
	if y.DType() != Float32 || y.GradFn().Name() != "ToCopyBackward0" {
		t.Fatalf("got %v %v", y.DType(), y.GradFn())
	}
	y.Mul(3).Sum().Backward()
	if x.Grad().DType() != Float64 {
		t.Fatalf("grad dtype %v, want float64", x.Grad().DType())
	}
	if d := opClose(x.Grad().Float64s(), []float64{3, 3}, 0, 0); d != "" {
		t.Fatal(d)
	}
	if x.To(Float64) != x {
		t.Fatal("To(same dtype) should return the tensor itself")
	}
}
