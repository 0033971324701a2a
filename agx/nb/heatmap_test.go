package nb_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/agx/nb"
)

// badSquare is x² with a backward that forgets the factor 2.
type badSquare struct{}

func (badSquare) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

func (badSquare) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(ctx.SavedTensors()[0]))
}

func failingGradCheck() error {
	x := agx.FromSlice([]float64{0.5, -1, 2}).SetRequiresGrad(true)
	return agx.GradCheck(badSquare{}, []*agx.Tensor{x})
}

func TestJacobianMismatchSVG(t *testing.T) {
	err := failingGradCheck()
	var gc *agx.GradCheckError
	if !errors.As(err, &gc) || gc.NumericalJacobian == nil {
		t.Fatalf("GradCheck of a wrong backward: got %v, want a Jacobian mismatch", err)
	}
	svg, e := nb.JacobianMismatchSVG(err)
	if e != nil {
		t.Fatal(e)
	}
	if !strings.HasPrefix(svg, "<svg") || !strings.HasSuffix(svg, "</svg>") {
		t.Errorf("want an <svg> element")
	}
	for _, w := range []string{
		"Jacobian mismatch for output 0 with respect to input 0",
		">numerical</text>", ">analytical</text>", "|numerical − analytical|",
		"<title>[0, 0] = 1</title>",   // numerical d(x²)/dx at 0.5
		"<title>[0, 0] = 0.5</title>", // analytical, missing the 2
		`stroke="#e00"`,               // the reported element is outlined
		"<title>[2, 2] = 2</title>",   // |4 - 2|
		"<title>[0, 1] = 0</title>",   // off-diagonal zeros
	} {
		if !strings.Contains(svg, w) {
			t.Errorf("missing %q", w)
		}
	}
	if strings.Contains(svg, "= -0<") || strings.Contains(svg, ">-0<") {
		t.Errorf("negative zero printed as -0")
	}
	if n := strings.Count(svg, "<rect"); n < 3*9 {
		t.Errorf("want at least 27 cells, got %d rects", n)
	}
	again, _ := nb.JacobianMismatchSVG(err)
	if again != svg {
		t.Errorf("output is not deterministic")
	}
}

func TestJacobianMismatchSVGErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"nil", nil},
		{"plain", errors.New("x")},
		{"no-jacobians", &agx.GradCheckError{Kind: "dtype", Msg: "not float64"}},
		{"ragged", &agx.GradCheckError{NumericalJacobian: [][]float64{{1, 2}, {3}}, AnalyticalJacobian: [][]float64{{1, 2}, {3, 4}}}},
		{"shapes", &agx.GradCheckError{NumericalJacobian: [][]float64{{1, 2}}, AnalyticalJacobian: [][]float64{{1}, {2}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if svg, err := nb.JacobianMismatchSVG(tc.err); err == nil {
				t.Errorf("want an error, got %.60q", svg)
			}
		})
	}
}

func TestHeatmapSVG(t *testing.T) {
	tests := []struct {
		name string
		m    [][]float64
		want []string
	}{
		// Both signs: diverging scale, -4 is full blue, 4 full red, 0 white.
		{"diverging", [][]float64{{-4, 0}, {4, 2}}, []string{`fill="#2166ac"><title>[0, 0] = -4`, `fill="#ffffff"><title>[0, 1] = 0`, `fill="#b2182b"><title>[1, 0] = 4`, ">-4</text>", ">4</text>"}},
		// One sign: white to purple from 0 to the largest value.
		{"sequential", [][]float64{{0, 1}, {2, 4}}, []string{`fill="#ffffff"><title>[0, 0] = 0`, `fill="#54278f"><title>[1, 1] = 4`}},
		{"nonfinite", [][]float64{{math.NaN(), math.Inf(1)}, {1, 2}}, []string{`fill="#999999"><title>[0, 0] = NaN`, "[0, 1] = +Inf"}},
		// Large matrices: no values written in the cells.
		{"large", square(30), []string{"<title>[29, 29] = 841"}},
		// Beyond 100 cells a side: 2×2 blocks showing their largest magnitude.
		{"pooled", square(150), []string{"(2×2 blocks, largest magnitude)", "<title>[148:150, 148:150] = 2.22e+04"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svg, err := nb.HeatmapSVG("title <m>", tc.m)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range append(tc.want, "<svg", ">title &lt;m&gt;", "</svg>") {
				if !strings.Contains(svg, w) {
					t.Errorf("missing %q in %.300s", w, svg)
				}
			}
			if tc.name == "pooled" && strings.Count(svg, "<rect") > 75*75+200 {
				t.Errorf("pooled heatmap draws %d rects", strings.Count(svg, "<rect"))
			}
			if tc.name == "large" && strings.Contains(svg, `font-size="8"`) {
				t.Errorf("values written into the cells of a 30x30 heatmap")
			}
		})
	}
	for _, bad := range [][][]float64{nil, {{}}, {{1, 2}, {3}}} {
		if _, err := nb.HeatmapSVG("bad", bad); err == nil {
			t.Errorf("HeatmapSVG(%v): want an error", bad)
		}
	}
}

func square(n int) [][]float64 {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
		for j := range m[i] {
			m[i][j] = float64(i * j)
		}
	}
	return m
}

func ExampleJacobianMismatch() {
	x := agx.FromSlice([]float64{0.5, -1, 2}).SetRequiresGrad(true)
	err := agx.GradCheck(badSquare{}, []*agx.Tensor{x})
	nb.JacobianMismatch(err) // outside a notebook: a one-line summary
	fmt.Println(errors.Is(err, agx.ErrGradCheck))
	// Output:
	// [Jacobian mismatch heatmaps: output 0, input 0, 3x3, max |difference| 2 at (2, 2)]
	// true
}

func ExampleHeatmap() {
	nb.Heatmap("weights", [][]float64{{1, -2}, {0.5, 3}})
	// Output:
	// [heatmap "weights": 2x2, values in [-2, 3]]
}
