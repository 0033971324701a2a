package nb

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Plot sizes in SVG pixels: one panel, and each panel of a side-by-side
// figure.
const (
	plotW = 528.0
	plotH = 336.0
	tileW = 432.0
)

// palette colours successive series.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"}

// gray draws reference lines (the identity of the straight-through plot).
const gray = "#969696"

// Series is one named line of a plot.
type Series struct {
	Name string
	Y    []float64
}

// line is a series with its x values and style.
type line struct {
	name   string
	xs, ys []float64
	color  string
	dashed bool
	width  float64 // stroke width in pixels; 0 for defaultWidth
}

// defaultWidth is a line's stroke width unless it sets one.
const defaultWidth = 2.0

// dot is a marked point with its own legend entry.
type dot struct {
	x, y  float64
	label string
}

// chart is one panel: a title, axis labels, lines and marked points.
type chart struct {
	title, xlabel, ylabel string
	lines                 []line
	dots                  []dot
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
	return renderSVG(plotW, plotH, &chart{title: title, xlabel: "x", lines: lines}), nil
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
			lines[i].width = 6.5
		} else {
			lines[i].dashed = true
		}
	}
	c := &chart{title: title, xlabel: xlabel, ylabel: ylabel, lines: lines}
	for i, l := range lines {
		k := firstNonFinite(l.ys)
		if k <= 0 {
			continue // all finite, or never finite
		}
		c.dots = append(c.dots, dot{x: xs[k-1], y: l.ys[k-1],
			label: fmt.Sprintf("%s: last finite point (not finite from %s = %s)", series[i].Name, xlabel, fmtNum(xs[k]))})
	}
	return renderSVG(plotW, plotH, c), nil
}

// firstNonFinite returns the index of the first Inf or NaN of ys, or -1 when
// every value is finite.
func firstNonFinite(ys []float64) int {
	for k, y := range ys {
		if !finite(y) {
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
	return renderSVG(plotW, plotH, &chart{title: title, xlabel: "step", ylabel: ylabel, lines: lines}), nil
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

// renderSVG draws the charts side by side, each w×h pixels, as one <svg>
// element.
func renderSVG(w, h float64, charts ...*chart) string {
	var b strings.Builder
	openSVG(&b, w*float64(len(charts)), h)
	for i, c := range charts {
		c.draw(&b, float64(i)*w, w, h)
	}
	b.WriteString("</svg>")
	return b.String()
}

// A panel's margins around its plotting area, in pixels: the title above,
// the tick labels and the x label below, the tick labels and the y label
// to the left.
const (
	marginTop    = 30.0
	marginBottom = 42.0
	marginLeft   = 62.0
	marginRight  = 14.0
)

// draw draws c into the w×h panel whose left edge is at x0.
func (c *chart) draw(b *strings.Builder, x0, w, h float64) {
	ax, ay := x0+marginLeft, marginTop
	aw, ah := w-marginLeft-marginRight, h-marginTop-marginBottom
	xlo, xhi, ylo, yhi := c.ranges()
	ux, uy := unit(xlo, xhi), unit(ylo, yhi)
	px := func(x float64) float64 { return ax + ux(x)*aw }
	py := func(y float64) float64 { return ay + ah - uy(y)*ah }

	fmt.Fprintf(b, `<g font-family="sans-serif" font-size="11" fill="#222">`)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="13">%s</text>`, ax+aw/2, ay-11, html.EscapeString(c.title))
	// Grid and tick labels.
	b.WriteString(`<g stroke="#e3e3e3" stroke-width="1">`)
	xt, yt := ticks(xlo, xhi, int(aw/80)+1), ticks(ylo, yhi, int(ah/50)+1)
	for _, t := range xt {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, px(t), ay, px(t), ay+ah)
	}
	for _, t := range yt {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, ax, py(t), ax+aw, py(t))
	}
	b.WriteString(`</g>`)
	for _, t := range xt {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, px(t), ay+ah+15, tickLabel(t, xt))
	}
	for _, t := range yt {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`, ax-5, py(t)+4, tickLabel(t, yt))
	}
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#555"/>`, ax, ay, aw, ah)
	if c.xlabel != "" {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, ax+aw/2, h-8, html.EscapeString(c.xlabel))
	}
	if c.ylabel != "" {
		fmt.Fprintf(b, `<text transform="translate(%.1f,%.1f) rotate(-90)" text-anchor="middle">%s</text>`, x0+14, ay+ah/2, html.EscapeString(c.ylabel))
	}
	// The lines, leaving out non-finite points (the line joins their
	// neighbours).
	for _, l := range c.lines {
		var d strings.Builder
		for i, x := range l.xs {
			y := l.ys[i]
			if !finite(x) || !finite(y) {
				continue
			}
			cmd := 'L'
			if d.Len() == 0 {
				cmd = 'M'
			}
			fmt.Fprintf(&d, "%c%.2f %.2f", cmd, px(x), py(y))
		}
		if d.Len() == 0 {
			continue
		}
		fmt.Fprintf(b, `<path d="%s" fill="none" stroke="%s" stroke-width="%g" stroke-linejoin="round"%s/>`,
			d.String(), l.color, l.strokeWidth(), l.dashAttr())
	}
	// The legend, then the marked points, which may lie under it.
	c.legend(b, ax+8, ay+8)
	for _, p := range c.dots {
		fmt.Fprintf(b, `<circle cx="%.2f" cy="%.2f" r="5" fill="#000"/>`, px(p.x), py(p.y))
	}
	b.WriteString(`</g>`)
}

// legend draws the named lines and the marked points, one entry a row,
// on a white box whose top left corner is (x, y).
func (c *chart) legend(b *strings.Builder, x, y float64) {
	const row, sample = 16.0, 26.0
	var n int
	var width float64
	for _, l := range c.lines {
		if l.inLegend() {
			n++
			width = max(width, textWidth(l.name))
		}
	}
	for _, p := range c.dots {
		n++
		width = max(width, textWidth(p.label))
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#fff" fill-opacity="0.85" stroke="#ccc"/>`,
		x, y, sample+14+width, float64(n)*row+6)
	k := 0
	entry := func() (float64, float64) { k++; return x + 6, y + 3 + (float64(k)-0.5)*row }
	for _, l := range c.lines {
		if !l.inLegend() {
			continue
		}
		ex, ey := entry()
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%g"%s/>`,
			ex, ey, ex+sample, ey, l.color, min(l.strokeWidth(), 4), l.dashAttr())
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f">%s</text>`, ex+sample+6, ey+4, html.EscapeString(l.name))
	}
	for _, p := range c.dots {
		ex, ey := entry()
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="#000"/>`, ex+sample/2, ey)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f">%s</text>`, ex+sample+6, ey+4, html.EscapeString(p.label))
	}
}

// textWidth estimates the width of s in the 11-pixel sans-serif font.
func textWidth(s string) float64 { return 6.5 * float64(len([]rune(s))) }

// inLegend reports whether l has a legend entry: a name and a point to draw.
func (l line) inLegend() bool {
	if l.name == "" {
		return false
	}
	for i, x := range l.xs {
		if finite(x) && finite(l.ys[i]) {
			return true
		}
	}
	return false
}

func (l line) strokeWidth() float64 {
	if l.width > 0 {
		return l.width
	}
	return defaultWidth
}

func (l line) dashAttr() string {
	if l.dashed {
		return ` stroke-dasharray="7 4"`
	}
	return ""
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// unit returns the map of [lo, hi] onto [0, 1], computed on halved values
// so that ranges near the largest floats do not overflow. A range it cannot
// divide by (no width, or one too narrow for float64) maps every value to
// the middle.
func unit(lo, hi float64) func(float64) float64 {
	d := hi/2 - lo/2
	if !(d > 0) || !finite(d) {
		return func(float64) float64 { return 0.5 }
	}
	return func(v float64) float64 { return (v/2 - lo/2) / d }
}

// ranges returns the axes' ranges: x over the finite points, y over them
// with a twentieth of the span below and a quarter above, for the legend.
// An axis without points spans [0, 1]; one with a single value spans a
// unit (or that value's magnitude) around it.
func (c *chart) ranges() (xlo, xhi, ylo, yhi float64) {
	xlo, ylo = math.Inf(1), math.Inf(1)
	xhi, yhi = math.Inf(-1), math.Inf(-1)
	see := func(x, y float64) {
		if finite(x) && finite(y) {
			xlo, xhi = min(xlo, x), max(xhi, x)
			ylo, yhi = min(ylo, y), max(yhi, y)
		}
	}
	for _, l := range c.lines {
		for i, x := range l.xs {
			see(x, l.ys[i])
		}
	}
	for _, p := range c.dots {
		see(p.x, p.y)
	}
	if xlo > xhi {
		return 0, 1, 0, 1
	}
	if xlo == xhi {
		r := max(1, math.Abs(xlo))
		if lo, hi := xlo-r/2, xhi+r/2; finite(lo) && finite(hi) {
			xlo, xhi = lo, hi
		}
	}
	r := yhi - ylo
	if r == 0 {
		r = max(1, math.Abs(yhi))
	}
	if lo, hi := ylo-0.05*r, yhi+0.25*r; finite(lo) && finite(hi) {
		ylo, yhi = lo, hi
	}
	return xlo, xhi, ylo, yhi
}

// ticks returns about n round values (1, 2 or 5 times a power of ten
// apart) within [lo, hi].
func ticks(lo, hi float64, n int) []float64 {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return nil
	}
	raw := span / float64(max(n, 2))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{2, 5, 10} {
		if step >= raw {
			break
		}
		step = m * mag
	}
	var ts []float64
	k := math.Ceil(lo / step)
	for i := 0; i < 4*n+4 && k*step <= hi+step*1e-9; i, k = i+1, k+1 {
		t := k * step
		if math.Abs(t) < step*1e-9 {
			t = 0
		}
		if len(ts) > 0 && t == ts[len(ts)-1] {
			break // values too close together for float64 to tell apart
		}
		ts = append(ts, t)
	}
	return ts
}

// tickLabel formats tick t with as many decimals as the spacing of ts
// needs, in exponent form for very large or small magnitudes.
func tickLabel(t float64, ts []float64) string {
	if len(ts) < 2 {
		return fmtNum(t)
	}
	step := ts[1] - ts[0]
	m := max(math.Abs(ts[0]), math.Abs(ts[len(ts)-1]))
	if m >= 1e6 || m < 1e-4 {
		return strconv.FormatFloat(t, 'g', 3, 64)
	}
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	return strconv.FormatFloat(t, 'f', dec, 64)
}
