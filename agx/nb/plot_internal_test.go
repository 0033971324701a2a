package nb

import (
	"encoding/xml"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		n      int
		want   []float64
		labels []string
	}{
		{0, 1, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{-4, 4, 7, []float64{-4, -2, 0, 2, 4}, []string{"-4", "-2", "0", "2", "4"}},
		{-0.35, 1.7, 6, []float64{0, 0.5, 1, 1.5}, []string{"0.0", "0.5", "1.0", "1.5"}},
		{0, 200, 6, []float64{0, 50, 100, 150, 200}, []string{"0", "50", "100", "150", "200"}},
		{1e-6, 5e-6, 4, []float64{2e-6, 4e-6}, []string{"2e-06", "4e-06"}},
		{1e17, 1e17 + 64, 6, nil, nil}, // too close together for float64: a few, then stop
		{1, 1, 5, nil, nil},
		{0, math.Inf(1), 5, nil, nil},
	} {
		got := ticks(tc.lo, tc.hi, tc.n)
		if tc.want == nil {
			if len(got) > 4*tc.n+4 {
				t.Errorf("ticks(%g, %g, %d): %d ticks", tc.lo, tc.hi, tc.n, len(got))
			}
			continue
		}
		if !slices.EqualFunc(got, tc.want, func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }) {
			t.Errorf("ticks(%g, %g, %d) = %v, want %v", tc.lo, tc.hi, tc.n, got, tc.want)
			continue
		}
		var labels []string
		for _, v := range got {
			labels = append(labels, tickLabel(v, got))
		}
		if !slices.Equal(labels, tc.labels) {
			t.Errorf("labels of ticks(%g, %g, %d) = %q, want %q", tc.lo, tc.hi, tc.n, labels, tc.labels)
		}
	}
}

// TestPlotSVGWellFormed draws charts with awkward data (no points, one
// point, constant values, huge and tiny magnitudes, non-finite values) and
// checks that each is well-formed XML with finite coordinates.
func TestPlotSVGWellFormed(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := map[string][2][]float64{
		"empty":     {{}, {}},
		"one point": {{2}, {3}},
		"constant":  {{0, 1, 2}, {5, 5, 5}},
		"huge":      {{-1e308, 0, 1e308}, {-1e308, 1, 1.7e308}},
		"tiny":      {{0, 1e-300, 2e-300}, {1e-310, 0, -1e-310}},
		"close":     {{1e17, 1e17 + 32, 1e17 + 64}, {1, 2, 3}},
		"nonfinite": {{0, 1, 2, 3}, {nan, inf, -inf, 1}},
		"all nan":   {{0, 1}, {nan, nan}},
		// Ranges whose padding overflows, or too narrow to divide by.
		"constant huge y":    {{0, 1}, {1.5e308, 1.5e308}},
		"one point huge y":   {{0}, {1e308}},
		"one point -huge x":  {{-1.7e308}, {1}},
		"one point +huge x":  {{1.79e308}, {1}},
		"subnormal x span":   {{0, 5e-324}, {1, 2}},
		"subnormal y span":   {{0, 1}, {0, 5e-324}},
		"largest magnitudes": {{-math.MaxFloat64, math.MaxFloat64}, {math.MaxFloat64, -math.MaxFloat64}},
	}
	for name, c := range cases {
		for _, svg := range []string{
			renderSVG(plotW, plotH, &chart{title: name + " <&>", xlabel: "x", ylabel: "y", lines: []line{{name: "a", xs: c[0], ys: c[1], color: palette[0]}}}),
			renderSVG(tileW, plotH, &chart{title: name, lines: []line{{xs: c[0], ys: c[1], color: gray, dashed: true}}},
				&chart{title: name, dots: []dot{{x: 1, y: 2, label: "p"}}}),
		} {
			d := xml.NewDecoder(strings.NewReader(svg))
			for {
				tok, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s: not well-formed XML: %v", name, err)
				}
				if se, ok := tok.(xml.StartElement); ok {
					for _, a := range se.Attr {
						if strings.Contains(a.Value, "NaN") || strings.Contains(a.Value, "Inf") {
							t.Fatalf("%s: <%s %s=%q>", name, se.Name.Local, a.Name.Local, a.Value)
						}
					}
				}
			}
		}
	}
}

// TestPlotLegend: the legend lists the named lines that have a point to
// draw, in order, and the marked points; a line with no finite point and an
// unnamed one have no entry.
func TestPlotLegend(t *testing.T) {
	nan := math.NaN()
	svg := renderSVG(plotW, plotH, &chart{lines: []line{
		{name: "first", xs: []float64{0, 1}, ys: []float64{1, 2}, color: palette[0]},
		{name: "never finite", xs: []float64{0, 1}, ys: []float64{nan, nan}, color: palette[1]},
		{xs: []float64{0, 1}, ys: []float64{2, 1}, color: palette[2]},
		{name: "second", xs: []float64{0, 1}, ys: []float64{0, 3}, color: palette[3], dashed: true},
	}, dots: []dot{{x: 1, y: 3, label: "a dot"}}})
	if strings.Contains(svg, "never finite") {
		t.Error("a line without finite points has a legend entry")
	}
	i, j, k := strings.Index(svg, ">first<"), strings.Index(svg, ">second<"), strings.Index(svg, ">a dot<")
	if i < 0 || j < 0 || k < 0 || !(i < j && j < k) {
		t.Errorf("legend entries missing or out of order: first %d, second %d, dot %d", i, j, k)
	}
	if n := strings.Count(svg, "<path"); n != 3 {
		t.Errorf("%d paths, want 3 (the lines with points)", n)
	}
}
