package nb

import (
	"fmt"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// gradPoints is the number of x values activation and STE plots sample.
const gradPoints = 201

// PlotActivation plots an element-wise function f and its derivative on
// [lo, hi]. The derivative is agx's own: f is applied to a linspace input that
// requires grad, and the sum of the outputs is back-propagated, so the plot
// shows what backward computes (a custom Function's hand-written gradient, for
// instance). Outside a notebook it prints a one-line summary.
//
//	nb.PlotActivation("GELU", (*agx.Tensor).GELU, -4, 4)
func PlotActivation(name string, f func(*agx.Tensor) *agx.Tensor, lo, hi float64) {
	display(PlotActivationSVG(name, f, lo, hi))(func() string {
		return fmt.Sprintf("[plot %q: %s(x) and d%s/dx on [%s, %s], %d points]", name+" and its gradient",
			name, name, fmtNum(lo), fmtNum(hi), gradPoints)
	})
}

// PlotActivationSVG returns the <svg> element PlotActivation displays. It fails
// when f panics or is not element-wise.
func PlotActivationSVG(name string, f func(*agx.Tensor) *agx.Tensor, lo, hi float64) (string, error) {
	xs, ys, gs, err := valueAndGrad(f, lo, hi)
	if err != nil {
		return "", fmt.Errorf("nb: PlotActivation(%s): %w", name, err)
	}
	return renderSVG(plotW, plotH, &chart{title: name + " and its gradient", xlabel: "x", lines: []line{
		{name: name + "(x)", xs: xs, ys: ys, color: palette[0]},
		{name: "d" + name + "/dx", xs: xs, ys: gs, color: palette[1], dashed: true},
	}}), nil
}

// PlotSTE draws the straight-through picture for a hard (piecewise constant)
// function on [lo, hi]: on the left its forward pass next to the identity that
// the estimator pretends it is; on the right the true gradient of hard (zero
// almost everywhere, so nothing learns) and the gradient that ste, the
// straight-through version, passes back. Both gradients come from agx's
// backward. Outside a notebook it prints a one-line summary.
//
//	nb.PlotSTE("round", (*agx.Tensor).Round, agx.RoundSTE, -3, 3)
func PlotSTE(name string, hard, ste func(*agx.Tensor) *agx.Tensor, lo, hi float64) {
	display(PlotSTESVG(name, hard, ste, lo, hi))(func() string {
		return fmt.Sprintf("[plot %q: forward, true gradient and STE gradient on [%s, %s], %d points]",
			"straight-through "+name, fmtNum(lo), fmtNum(hi), gradPoints)
	})
}

// PlotSTESVG returns the <svg> element PlotSTE displays.
func PlotSTESVG(name string, hard, ste func(*agx.Tensor) *agx.Tensor, lo, hi float64) (string, error) {
	xs, hy, hg, err := valueAndGrad(hard, lo, hi)
	if err != nil {
		return "", fmt.Errorf("nb: PlotSTE(%s): hard: %w", name, err)
	}
	_, sy, sg, err := valueAndGrad(ste, lo, hi)
	if err != nil {
		return "", fmt.Errorf("nb: PlotSTE(%s): ste: %w", name, err)
	}
	fwd := &chart{title: "forward: " + name, xlabel: "x", lines: []line{
		{name: "identity", xs: xs, ys: xs, color: gray, dashed: true},
		{name: name + "(x) (STE forward)", xs: xs, ys: sy, color: palette[0], width: 3.5},
		{name: name + "(x) (hard)", xs: xs, ys: hy, color: palette[2], dashed: true},
	}}
	bwd := &chart{title: "backward: gradient", xlabel: "x", lines: []line{
		{name: "true gradient", xs: xs, ys: hg, color: palette[1], width: 3.5},
		{name: "STE gradient", xs: xs, ys: sg, color: palette[0], dashed: true},
	}}
	return renderSVG(tileW, plotH, fwd, bwd), nil
}

// valueAndGrad samples f on gradPoints points of [lo, hi] and returns the
// inputs, f's values and the gradient of sum(f(x)) with respect to x (zero
// where f's output does not depend on x through the graph).
func valueAndGrad(f func(*agx.Tensor) *agx.Tensor, lo, hi float64) (xs, ys, gs []float64, err error) {
	err = agx.Try(func() {
		x := agx.Linspace(agx.Float64, lo, hi, gradPoints).SetRequiresGrad(true)
		y := f(x)
		if y == nil {
			tensor.Panicf("plot", tensor.ErrArg, "the function returned nil")
		}
		if y.Numel() != x.Numel() || y.Dim() != 1 {
			tensor.Panicf("plot", tensor.ErrShape, "want an element-wise function: input %v, output %v", x.Shape(), y.Shape())
		}
		ys = y.Detach().To(agx.Float64).Float64s()
		gs = make([]float64, len(ys))
		if y.RequiresGrad() {
			y.Sum().Backward()
			if g := x.Grad(); g != nil {
				gs = g.Float64s()
			}
		}
		xs = x.Detach().Float64s()
	})
	return xs, ys, gs, err
}
