package nb_test

import (
	"math"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/agx/nb"
)

func checkSVG(t *testing.T, svg string, err error, want ...string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg, "<svg") || !strings.HasSuffix(strings.TrimSpace(svg), "</svg>") {
		t.Fatalf("want a bare <svg> element, got %.80q", svg)
	}
	for _, w := range want {
		if !strings.Contains(svg, w) {
			t.Errorf("missing %q", w)
		}
	}
}

func TestPlotSVG(t *testing.T) {
	xs := []float64{0, 1, 2, 3}
	t.Run("func", func(t *testing.T) {
		svg, err := nb.PlotFuncSVG("squares & cubes", xs, map[string][]float64{
			"cube":   {0, 1, 8, 27},
			"square": {0, 1, 4, 9},
		})
		checkSVG(t, svg, err, "squares &amp; cubes", ">cube<", ">square<", "<path")
		if i, j := strings.Index(svg, ">cube<"), strings.Index(svg, ">square<"); i > j {
			t.Errorf("legend not in name order")
		}
	})
	t.Run("func/length", func(t *testing.T) {
		if _, err := nb.PlotFuncSVG("bad", xs, map[string][]float64{"y": {1}}); err == nil {
			t.Errorf("want an error for a series of the wrong length")
		}
	})
	t.Run("curve", func(t *testing.T) {
		svg, err := nb.PlotCurveSVG("training", "loss",
			nb.Series{Name: "train", Y: []float64{1, 0.5, 0.3, math.NaN(), 0.2}},
			nb.Series{Name: "valid", Y: []float64{1.1, 0.7}})
		checkSVG(t, svg, err, ">training<", ">loss<", ">step<", ">train<", ">valid<")
	})
	t.Run("lines", func(t *testing.T) {
		xs := []float64{0, 1, 2, 3, 4}
		svg, err := nb.PlotLinesSVG("overflow", "t", "value", xs,
			nb.Series{Name: "literal", Y: []float64{1, 2, 3, math.Inf(1), math.Inf(1)}},
			nb.Series{Name: "shifted", Y: []float64{1, 2, 3, 4, 5}})
		checkSVG(t, svg, err, ">overflow<", ">t<", ">value<", ">literal<", ">shifted<",
			">literal: last finite point (not finite from t = 3)<", "stroke-dasharray")
		if strings.Contains(svg, "shifted: last finite") {
			t.Errorf("a series that stays finite is marked")
		}
		if i, j := strings.Index(svg, ">literal<"), strings.Index(svg, ">shifted<"); i > j {
			t.Errorf("legend not in the order given")
		}
		if _, err := nb.PlotLinesSVG("bad", "t", "", xs, nb.Series{Name: "y", Y: []float64{1}}); err == nil {
			t.Errorf("want an error for a series of the wrong length")
		}
	})
	t.Run("curve/empty", func(t *testing.T) {
		svg, err := nb.PlotCurveSVG("nothing yet", "loss", nb.Series{Name: "train"})
		checkSVG(t, svg, err, ">nothing yet<")
	})
}

func TestPlotActivationSVG(t *testing.T) {
	tests := []struct {
		name string
		f    func(*agx.Tensor) *agx.Tensor
	}{
		{"GELU", (*agx.Tensor).GELU},
		{"SiLU", (*agx.Tensor).SiLU},
		{"tanh", (*agx.Tensor).Tanh},
		{"relu", (*agx.Tensor).Relu},
		{"detached", func(x *agx.Tensor) *agx.Tensor { return x.Detach().Sigmoid() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svg, err := nb.PlotActivationSVG(tc.name, tc.f, -4, 4)
			checkSVG(t, svg, err, ">"+tc.name+" and its gradient<", ">"+tc.name+"(x)<", ">d"+tc.name+"/dx<")
		})
	}
	t.Run("not-elementwise", func(t *testing.T) {
		_, err := nb.PlotActivationSVG("sum", func(x *agx.Tensor) *agx.Tensor { return x.Sum() }, -1, 1)
		if err == nil || !strings.Contains(err.Error(), "element-wise") {
			t.Errorf("want an element-wise error, got %v", err)
		}
	})
	t.Run("panics", func(t *testing.T) {
		_, err := nb.PlotActivationSVG("bad", func(x *agx.Tensor) *agx.Tensor { return x.Reshape(7) }, -1, 1)
		if err == nil {
			t.Errorf("want the op's error")
		}
	})
}

func TestPlotSTESVG(t *testing.T) {
	tests := []struct {
		name      string
		hard, ste func(*agx.Tensor) *agx.Tensor
	}{
		{"round", (*agx.Tensor).Round, agx.RoundSTE},
		{"sign", (*agx.Tensor).Sign, agx.SignSTE},
		{"sign-clipped", (*agx.Tensor).Sign, agx.SignClippedSTE},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svg, err := nb.PlotSTESVG(tc.name, tc.hard, tc.ste, -3, 3)
			checkSVG(t, svg, err, ">forward: "+tc.name+"<", ">backward: gradient<", ">true gradient<", ">STE gradient<", ">identity<")
		})
	}
}

func ExamplePlotActivation() {
	nb.PlotActivation("GELU", (*agx.Tensor).GELU, -4, 4)
	nb.PlotSTE("round", (*agx.Tensor).Round, agx.RoundSTE, -3, 3)
	// Output:
	// [plot "GELU and its gradient": GELU(x) and dGELU/dx on [-4, 4], 201 points]
	// [plot "straight-through round": forward, true gradient and STE gradient on [-3, 3], 201 points]
}

func ExamplePlotCurve() {
	losses := []float64{2.3, 1.1, 0.62, 0.41}
	nb.PlotCurve("training", "loss", nb.Series{Name: "train", Y: losses})
	nb.PlotFunc("powers", []float64{0, 1, 2}, map[string][]float64{"x²": {0, 1, 4}, "x³": {0, 1, 8}})
	// Output:
	// [plot "training": train: 4 steps, last 0.41]
	// [plot "powers": 2 series (x², x³), 3 points, x in [0, 2]]
}

func ExamplePlotLines() {
	ts := []float64{86, 87, 88, 89}
	nb.PlotLines("exp(t) in float32", "t", "exp(t)", ts,
		nb.Series{Name: "literal", Y: []float64{2.2e37, 6.1e37, 1.7e38, math.Inf(1)}},
		nb.Series{Name: "float64", Y: []float64{2.2e37, 6.1e37, 1.7e38, 4.5e38}})
	// Output:
	// [plot "exp(t) in float32": literal (not finite from t = 89), float64 against t in [86, 89], 4 points]
}
