package nb

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot sizes: one panel, and each panel of a side-by-side figure.
const (
	plotW = 5.5 * vg.Inch
	plotH = 3.5 * vg.Inch
	tileW = 4.5 * vg.Inch
)

// palette colours successive series.
var palette = []color.Color{
	color.RGBA{R: 31, G: 119, B: 180, A: 255},
	color.RGBA{R: 214, G: 39, B: 40, A: 255},
	color.RGBA{R: 44, G: 160, B: 44, A: 255},
	color.RGBA{R: 255, G: 127, B: 14, A: 255},
	color.RGBA{R: 148, G: 103, B: 189, A: 255},
	color.RGBA{R: 140, G: 86, B: 75, A: 255},
}

// Series is one named line of a plot.
type Series struct {
	Name string
	Y    []float64
}

// line is a series with its x values and style.
type line struct {
	name   string
	xs, ys []float64
	color  color.Color
	dashed bool
	width  vg.Length
}

// PlotFunc displays one line per series over the shared x values xs, as SVG.
// Series are drawn in the order of their names. Non-finite points are left
// out. Outside a notebook it prints a one-line summary.
func PlotFunc(title string, xs []float64, series map[string][]float64) {
	display(PlotFuncSVG(title, xs, series))(func() string {
		names := sortedNames(series)
		return fmt.Sprintf("[plot %q: %d series (%s), %d points, x in %s]", title, len(names),
			strings.Join(names, ", "), len(xs), interval(xs))
	})
}

// PlotFuncSVG returns the <svg> element PlotFunc displays. It fails when a
// series' length differs from len(xs).
func PlotFuncSVG(title string, xs []float64, series map[string][]float64) (string, error) {
	var lines []line
	for i, name := range sortedNames(series) {
		ys := series[name]
		if len(ys) != len(xs) {
			return "", fmt.Errorf("nb: PlotFunc: series %q has %d values for %d x values", name, len(ys), len(xs))
		}
		lines = append(lines, line{name: name, xs: xs, ys: ys, color: palette[i%len(palette)]})
	}
	p, err := linePlot(title, "x", "", lines)
	if err != nil {
		return "", err
	}
	return renderSVG(plotW, plotH, p)
}

// PlotLines displays the series over the shared x values xs, as SVG, with the
// axes labelled xlabel and ylabel. Unlike PlotFunc it keeps the series in the
// order given and styles them so that curves lying on top of each other stay
// visible: the first is drawn as a wide solid line, the others as thinner
// dashed lines over it. Non-finite points are left out; where a series turns
// Inf or NaN after finite values, its last finite point is marked with a black
// dot and the legend says from which x on the values are not finite. Outside a
// notebook it prints a one-line summary that says the same.
func PlotLines(title, xlabel, ylabel string, xs []float64, series ...Series) {
	display(PlotLinesSVG(title, xlabel, ylabel, xs, series...))(func() string {
		parts := make([]string, len(series))
		for i, s := range series {
			parts[i] = s.Name
			if k := firstNonFinite(s.Y); k > 0 && k < len(xs) {
				parts[i] += " (not finite from " + xlabel + " = " + fmtNum(xs[k]) + ")"
			}
		}
		return fmt.Sprintf("[plot %q: %s against %s in %s, %d points]", title, strings.Join(parts, ", "),
			xlabel, interval(xs), len(xs))
	})
}

// PlotLinesSVG returns the <svg> element PlotLines displays. It fails when a
// series' length differs from len(xs).
func PlotLinesSVG(title, xlabel, ylabel string, xs []float64, series ...Series) (string, error) {
	lines := make([]line, len(series))
	for i, s := range series {
		if len(s.Y) != len(xs) {
			return "", fmt.Errorf("nb: PlotLines: series %q has %d values for %d x values", s.Name, len(s.Y), len(xs))
		}
		lines[i] = line{name: s.Name, xs: xs, ys: s.Y, color: palette[i%len(palette)]}
		if i == 0 {
			lines[i].width = vg.Points(5)
		} else {
			lines[i].dashed = true
		}
	}
	p, err := linePlot(title, xlabel, ylabel, lines)
	if err != nil {
		return "", err
	}
	for i, l := range lines {
		k := firstNonFinite(l.ys)
		if k <= 0 {
			continue // all finite, or never finite
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: xs[k-1], Y: l.ys[k-1]}})
		if err != nil {
			return "", fmt.Errorf("nb: series %q: %w", l.name, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("%s: last finite point (not finite from %s = %s)", series[i].Name, xlabel, fmtNum(xs[k])), sc)
	}
	return renderSVG(plotW, plotH, p)
}

// firstNonFinite returns the index of the first Inf or NaN of ys, or -1 when
// every value is finite.
func firstNonFinite(ys []float64) int {
	for k, y := range ys {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return k
		}
	}
	return -1
}

// PlotCurve displays training curves: each series against its step number
// (0, 1, ...), for example PlotCurve("training", "loss", nb.Series{"train",
// losses}). Non-finite values (a diverged loss) are left out. Outside a
// notebook it prints a one-line summary with each series' last value.
func PlotCurve(title, ylabel string, series ...Series) {
	display(PlotCurveSVG(title, ylabel, series...))(func() string {
		parts := make([]string, len(series))
		for i, s := range series {
			last := "none"
			if len(s.Y) > 0 {
				last = fmtNum(s.Y[len(s.Y)-1])
			}
			parts[i] = fmt.Sprintf("%s: %d steps, last %s", s.Name, len(s.Y), last)
		}
		return fmt.Sprintf("[plot %q: %s]", title, strings.Join(parts, "; "))
	})
}

// PlotCurveSVG returns the <svg> element PlotCurve displays.
func PlotCurveSVG(title, ylabel string, series ...Series) (string, error) {
	lines := make([]line, len(series))
	for i, s := range series {
		xs := make([]float64, len(s.Y))
		for k := range xs {
			xs[k] = float64(k)
		}
		lines[i] = line{name: s.Name, xs: xs, ys: s.Y, color: palette[i%len(palette)]}
	}
	p, err := linePlot(title, "step", ylabel, lines)
	if err != nil {
		return "", err
	}
	return renderSVG(plotW, plotH, p)
}

// display returns a function that shows svg (or err in a red box) in a
// notebook, and prints summary() outside one.
func display(svg string, err error) func(summary func() string) {
	return func(summary func() string) {
		switch {
		case !InNotebook() && err != nil:
			fmt.Println("error: " + err.Error())
		case !InNotebook():
			fmt.Println(summary())
		case err != nil:
			HTML(ErrorHTML(err))
		default:
			HTML(svg)
		}
	}
}

func sortedNames(series map[string][]float64) []string {
	names := make([]string, 0, len(series))
	for name := range series {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// interval formats the range of xs as [lo, hi].
func interval(xs []float64) string {
	if len(xs) == 0 {
		return "[]"
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return "[" + fmtNum(lo) + ", " + fmtNum(hi) + "]"
}

// linePlot builds a gonum plot with a grid, a legend at the top left and one
// line per entry.
func linePlot(title, xlabel, ylabel string, lines []line) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		pts := make(plotter.XYs, 0, len(l.xs))
		for i, x := range l.xs {
			y := l.ys[i]
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: y})
			lo, hi = min(lo, y), max(hi, y)
		}
		if len(pts) == 0 {
			continue
		}
		ln, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("nb: series %q: %w", l.name, err)
		}
		ln.Color = l.color
		ln.Width = vg.Points(1.5)
		if l.width > 0 {
			ln.Width = l.width
		}
		if l.dashed {
			ln.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(ln)
		if l.name != "" {
			p.Legend.Add(l.name, ln)
		}
	}
	if lo <= hi {
		// Room above the data for the legend, a little below.
		r := hi - lo
		if r == 0 {
			r = max(1, math.Abs(hi))
		}
		p.Y.Min, p.Y.Max = lo-0.05*r, hi+0.25*r
	}
	return p, nil
}

// renderSVG draws the plots side by side, each w×h, and returns the <svg>
// element without its XML prolog.
func renderSVG(w, h vg.Length, plots ...*plot.Plot) (string, error) {
	c := vgsvg.New(w*vg.Length(len(plots)), h)
	dc := draw.New(c)
	if len(plots) == 1 {
		plots[0].Draw(dc)
	} else {
		tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Points(12), PadLeft: vg.Points(4), PadRight: vg.Points(8), PadTop: vg.Points(4), PadBottom: vg.Points(4)}
		canvases := plot.Align([][]*plot.Plot{plots}, tiles, dc)
		for j, p := range plots {
			p.Draw(canvases[0][j])
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("nb: writing SVG: %w", err)
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	return s, nil
}
