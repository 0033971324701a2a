package agx

import (
	"math"
	"testing"
)

func steCases() []opCase {
	xv := []float64{-1.6, -0.4, 0.3, 0.8, 1.7, 2.6}
	x := gIn(shp(6), xv...).kinked(0.05)
	gout := []float64{1, 2, 3, 4, 5, 6}
	f := func(fn func(*Tensor) *Tensor) func([]*Tensor) *Tensor {
		return func(x []*Tensor) *Tensor { return fn(x[0]) }
	}
	sign := opMap(xv, func(v float64) float64 { return math.Copysign(1, v) })
	return []opCase{
		{name: "RoundSTE", in: []opIn{x}, f: f(RoundSTE), want: opMap(xv, math.RoundToEven),
			ste: true, gradOut: gout, wantGrad: [][]float64{gout}, oracle: "round_ste"},
		{name: "SignSTE", in: []opIn{x}, f: f(SignSTE), want: sign,
			ste: true, gradOut: gout, wantGrad: [][]float64{gout}, oracle: "sign_ste"},
		{name: "SignClippedSTE", in: []opIn{x}, f: f(SignClippedSTE), want: sign,
			ste: true, gradOut: gout, wantGrad: [][]float64{{0, 2, 3, 4, 0, 0}}, oracle: "sign_clipped_ste"},
		{name: "BinarizeSTE", in: []opIn{x}, f: f(BinarizeSTE), want: []float64{0, 0, 1, 1, 1, 1},
			ste: true, gradOut: gout, wantGrad: [][]float64{gout}, oracle: "binarize_ste"},
		// v = x/0.5 = [-3.2 -0.8 0.6 1.6 3.4 5.2]; q = clamp(round(v), -2, 3)·0.5.
		{name: "QuantizeSTE", in: []opIn{x},
			f:    f(func(t *Tensor) *Tensor { return QuantizeSTE(t, 0.5, 0, -2, 3) }),
			want: []float64{-1, -0.5, 0.5, 1, 1.5, 1.5},
			ste:  true, gradOut: gout, wantGrad: [][]float64{{0, 2, 3, 4, 0, 0}},
			oracle: "quantize_ste", params: map[string]any{"scale": 0.5, "zero_point": 0.0, "qmin": -2.0, "qmax": 3.0}},
		{name: "QuantizeSTE/zero_point", in: []opIn{x},
			f:    f(func(t *Tensor) *Tensor { return QuantizeSTE(t, 0.25, 2, 0, 11) }),
			want: opMap(xv, func(v float64) float64 { return (math.Min(math.Max(math.RoundToEven(v/0.25+2), 0), 11) - 2) * 0.25 }),
			ste:  true, gradOut: gout, wantGrad: [][]float64{{0, 2, 3, 4, 5, 0}},
			oracle: "quantize_ste", params: map[string]any{"scale": 0.25, "zero_point": 2.0, "qmin": 0.0, "qmax": 11.0}},
		{name: "ClipGradientSTE", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return ClipGradientSTE(t, 2.5) }), want: xv,
			ste: true, gradOut: gout, wantGrad: [][]float64{{1, 2, 2.5, 2.5, 2.5, 2.5}},
			oracle: "clip_gradient_ste", params: map[string]any{"limit": 2.5}},
		{name: "StraightThrough", in: []opIn{x, cIn(shp(6), 1, 0, 1, 0, 1, 0)},
			f:    func(x []*Tensor) *Tensor { return StraightThrough(x[1], x[0].Mul(x[0])) },
			want: []float64{1, 0, 1, 0, 1, 0},
			ste:  true, gradOut: gout, wantGrad: [][]float64{opZip(gout, xv, func(g, v float64) float64 { return 2 * g * v })},
			oracle: "straight_through"},
	}
}

func TestSTEOps(t *testing.T) { runOpCases(t, steCases()) }
