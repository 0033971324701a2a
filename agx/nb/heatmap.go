package nb

import (
	"errors"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/goagx/agx/agx"
)

// Heatmap displays the matrix m (rows of equal length) as a coloured grid: a
// diverging blue-white-red scale centred on 0 when m has both signs, else a
// white-to-purple scale from 0 to the largest magnitude. Small matrices carry
// their values in the cells; every cell has its value as a tooltip. Outside a
// notebook it prints a one-line summary.
func Heatmap(title string, m [][]float64) {
	if !InNotebook() {
		fmt.Println(heatmapSummary(title, m))
		return
	}
	svg, err := HeatmapSVG(title, m)
	if err != nil {
		HTML(ErrorHTML(err))
		return
	}
	HTML(svg)
}

// HeatmapSVG returns the <svg> element Heatmap displays. It fails when m is
// empty or ragged.
func HeatmapSVG(title string, m [][]float64) (string, error) {
	if err := checkMatrix(m); err != nil {
		return "", err
	}
	lo, hi := finiteRange(m)
	sc := newScale(lo, hi)
	m, br, bc := pool(m)
	p := layoutPanel(title, m, br, bc)
	var b strings.Builder
	// Wide enough for the title (about 7 px a character) and the legend.
	w := max(p.w, labelW+7*float64(len([]rune(title))), labelW+130) + 2*svgPad
	openSVG(&b, w, p.h+2*svgPad+legendH)
	p.draw(&b, svgPad, svgPad, m, sc, -1, -1)
	legend(&b, svgPad, svgPad+p.h+4, sc)
	b.WriteString("</svg>")
	return b.String(), nil
}

// JacobianMismatch displays, for a failed agx.GradCheck (a *agx.GradCheckError
// of kind "jacobian"), the numerical and analytical Jacobians and their
// absolute difference as three heatmaps side by side, with the element
// GradCheck reported outlined. The two Jacobians share one colour scale. Any
// other error is shown in a red box. Outside a notebook it prints a one-line
// summary.
func JacobianMismatch(err error) {
	if !InNotebook() {
		fmt.Println(mismatchSummary(err))
		return
	}
	svg, e := JacobianMismatchSVG(err)
	if e != nil {
		HTML(ErrorHTML(err))
		return
	}
	HTML(svg)
}

// ErrNoJacobians is returned by JacobianMismatchSVG for an error that carries
// no Jacobians (not a *agx.GradCheckError, or one not about a Jacobian).
var ErrNoJacobians = errors.New("nb: the error carries no Jacobians to draw (want a *agx.GradCheckError from a Jacobian mismatch)")

// JacobianMismatchSVG returns the <svg> element JacobianMismatch displays.
func JacobianMismatchSVG(err error) (string, error) {
	gc, num, ana := jacobians(err)
	if gc == nil {
		return "", ErrNoJacobians
	}
	if e := checkMatrix(num); e != nil {
		return "", e
	}
	if e := checkMatrix(ana); e != nil {
		return "", e
	}
	if len(num) != len(ana) || len(num[0]) != len(ana[0]) {
		return "", fmt.Errorf("nb: Jacobians differ in shape: %dx%d and %dx%d", len(num), len(num[0]), len(ana), len(ana[0]))
	}
	diff := absDiff(num, ana)
	lo1, hi1 := finiteRange(num)
	lo2, hi2 := finiteRange(ana)
	both := newScale(min(lo1, lo2), max(hi1, hi2))
	_, dmax := finiteRange(diff)
	dsc := newScale(0, dmax)

	r, c := gc.OutElement, gc.Element
	if r < 0 || r >= len(num) || c < 0 || c >= len(num[0]) {
		r, c = -1, -1
	}
	num, br, bc := pool(num)
	ana, _, _ = pool(ana)
	diff, _, _ = pool(diff)
	if r >= 0 {
		r, c = r/br, c/bc
	}
	ln, la := "numerical", "analytical"
	if gc.Labels[0] != "" {
		ln, la = gc.Labels[0], gc.Labels[1]
	}
	pn := layoutPanel(ln, num, br, bc)
	pa := layoutPanel(la, ana, br, bc)
	pd := layoutPanel("|numerical − analytical|", diff, br, bc)
	const gap = 28
	head := 36.0
	w := max(pn.w+pa.w+pd.w+2*gap+2*svgPad, 480)
	h := head + pn.h + 2*svgPad + legendH
	var b strings.Builder
	openSVG(&b, w, h)
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-family="sans-serif" font-size="13" font-weight="bold">Jacobian mismatch for output %d with respect to input %d</text>`,
		svgPad, svgPad+12, gc.Output, gc.Input)
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-family="sans-serif" font-size="10" fill="#666">rows: output elements · columns: input elements · outlined: the reported element</text>`,
		svgPad, svgPad+26)
	y := svgPad + head
	x := svgPad
	pn.draw(&b, x, y, num, both, r, c)
	legend(&b, x, y+pn.h+4, both)
	x += pn.w + gap
	pa.draw(&b, x, y, ana, both, r, c)
	x += pa.w + gap
	pd.draw(&b, x, y, diff, dsc, r, c)
	legend(&b, x, y+pd.h+4, dsc)
	b.WriteString("</svg>")
	return b.String(), nil
}

func jacobians(err error) (*agx.GradCheckError, [][]float64, [][]float64) {
	var gc *agx.GradCheckError
	if !errors.As(err, &gc) || gc.NumericalJacobian == nil || gc.AnalyticalJacobian == nil {
		return nil, nil, nil
	}
	return gc, gc.NumericalJacobian, gc.AnalyticalJacobian
}

func mismatchSummary(err error) string {
	gc, num, ana := jacobians(err)
	if gc == nil || checkMatrix(num) != nil || checkMatrix(ana) != nil || len(num) != len(ana) || len(num[0]) != len(ana[0]) {
		if err == nil {
			return "[no error: nothing to draw]"
		}
		return "error: " + err.Error()
	}
	diff := absDiff(num, ana)
	worst, wr, wc := -1.0, 0, 0
	for i, row := range diff {
		for j, v := range row {
			if v > worst || (math.IsNaN(v) && !math.IsNaN(worst)) {
				worst, wr, wc = v, i, j
			}
		}
	}
	return fmt.Sprintf("[Jacobian mismatch heatmaps: output %d, input %d, %dx%d, max |difference| %s at (%d, %d)]",
		gc.Output, gc.Input, len(num), len(num[0]), fmtNum(worst), wr, wc)
}

func heatmapSummary(title string, m [][]float64) string {
	if err := checkMatrix(m); err != nil {
		return "error: " + err.Error()
	}
	lo, hi := finiteRange(m)
	return fmt.Sprintf("[heatmap %q: %dx%d, values in [%s, %s]]", title, len(m), len(m[0]), fmtNum(lo), fmtNum(hi))
}

func checkMatrix(m [][]float64) error {
	if len(m) == 0 || len(m[0]) == 0 {
		return errors.New("nb: empty matrix")
	}
	for i, row := range m {
		if len(row) != len(m[0]) {
			return fmt.Errorf("nb: ragged matrix: row %d has %d values, row 0 has %d", i, len(row), len(m[0]))
		}
	}
	return nil
}

func absDiff(a, b [][]float64) [][]float64 {
	d := make([][]float64, len(a))
	for i := range a {
		d[i] = make([]float64, len(a[i]))
		for j := range a[i] {
			d[i][j] = math.Abs(a[i][j] - b[i][j])
		}
	}
	return d
}

// finiteRange is the smallest and largest finite value (0, 0 when none).
func finiteRange(m [][]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range m {
		for _, v := range row {
			if finite(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if lo > hi {
		return 0, 0
	}
	return lo, hi
}

// fmtNum formats a value to 4 significant digits; -0 prints as 0.
func fmtNum(v float64) string {
	if v == 0 {
		v = 0
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// scale maps values to colours.
type scale struct {
	diverging bool
	lo, hi    float64 // the values at the two ends of the legend
	mag       float64 // largest magnitude (> 0)
}

func newScale(lo, hi float64) scale {
	s := scale{diverging: lo < 0 && hi > 0}
	s.mag = max(math.Abs(lo), math.Abs(hi))
	if s.mag == 0 {
		s.mag = 1
	}
	switch {
	case s.diverging:
		s.lo, s.hi = -s.mag, s.mag
	case hi <= 0:
		s.lo, s.hi = -s.mag, 0
	default:
		s.lo, s.hi = 0, s.mag
	}
	return s
}

type rgb struct{ r, g, b float64 }

var (
	white  = rgb{255, 255, 255}
	blue   = rgb{33, 102, 172}
	red    = rgb{178, 24, 43}
	purple = rgb{84, 39, 143}
)

func mix(a, b rgb, t float64) string {
	t = max(0, min(1, t))
	return fmt.Sprintf("#%02x%02x%02x", int(math.Round(a.r+(b.r-a.r)*t)), int(math.Round(a.g+(b.g-a.g)*t)), int(math.Round(a.b+(b.b-a.b)*t)))
}

func (s scale) color(v float64) string {
	switch {
	case math.IsNaN(v):
		return "#999999"
	case s.diverging && v < 0:
		return mix(white, blue, -v/s.mag)
	case s.diverging:
		return mix(white, red, v/s.mag)
	}
	return mix(white, purple, math.Abs(v)/s.mag)
}

// dark reports whether text on v's colour should be white.
func (s scale) dark(v float64) bool { return !math.IsNaN(v) && math.Abs(v)/s.mag > 0.6 }

const (
	svgPad  = 8.0
	legendH = 30.0
	labelW  = 22.0 // room for row indices
	titleH  = 18.0
)

// maxGrid is the most cells a heatmap draws along a side; larger matrices are
// pooled into blocks.
const maxGrid = 100

// pool shrinks m to at most maxGrid×maxGrid cells, each block represented by
// its value of largest magnitude (NaN wins, so a NaN is never hidden). It
// returns the block height and width (1, 1 when m is small enough).
func pool(m [][]float64) ([][]float64, int, int) {
	rows, cols := len(m), len(m[0])
	br, bc := (rows+maxGrid-1)/maxGrid, (cols+maxGrid-1)/maxGrid
	if br == 1 && bc == 1 {
		return m, 1, 1
	}
	out := make([][]float64, (rows+br-1)/br)
	for i := range out {
		out[i] = make([]float64, (cols+bc-1)/bc)
	}
	for i, row := range m {
		for j, v := range row {
			o := &out[i/br][j/bc]
			if math.IsNaN(v) || (!math.IsNaN(*o) && math.Abs(v) > math.Abs(*o)) {
				*o = v
			}
		}
	}
	return out, br, bc
}

// panel is one heatmap's layout.
type panel struct {
	title      string
	cell       float64
	rows, cols int
	br, bc     int // block size when the matrix was pooled
	w, h       float64
	values     bool // write values in the cells
}

func layoutPanel(title string, m [][]float64, br, bc int) panel {
	rows, cols := len(m), len(m[0])
	cell := math.Floor(max(4, min(40, 260/float64(max(rows, cols)))))
	if br > 1 || bc > 1 {
		title += fmt.Sprintf(" (%d×%d blocks, largest magnitude)", br, bc)
	}
	p := panel{title: title, cell: cell, rows: rows, cols: cols, br: br, bc: bc, values: rows <= 8 && cols <= 8}
	p.w = labelW + cell*float64(cols)
	p.h = titleH + 14 + cell*float64(rows)
	return p
}

// draw writes the panel with its top-left corner at (x, y), outlining cell
// (mr, mc) when it is not negative.
func (p panel) draw(b *strings.Builder, x, y float64, m [][]float64, sc scale, mr, mc int) {
	fmt.Fprintf(b, `<g transform="translate(%g,%g)" font-family="sans-serif">`, x, y)
	fmt.Fprintf(b, `<text x="%g" y="12" font-size="12">%s</text>`, labelW, html.EscapeString(p.title))
	gx, gy := labelW, titleH+14
	step := max(1, int(math.Ceil(12/p.cell)))
	for j := 0; j < p.cols; j += step {
		fmt.Fprintf(b, `<text x="%g" y="%g" font-size="9" fill="#666" text-anchor="middle">%d</text>`, gx+p.cell*(float64(j)+0.5), gy-3, j)
	}
	for i := 0; i < p.rows; i += step {
		fmt.Fprintf(b, `<text x="%g" y="%g" font-size="9" fill="#666" text-anchor="end">%d</text>`, gx-3, gy+p.cell*(float64(i)+0.5)+3, i)
	}
	for i, row := range m {
		for j, v := range row {
			cx, cy := gx+p.cell*float64(j), gy+p.cell*float64(i)
			where := fmt.Sprintf("[%d, %d]", i, j)
			if p.br > 1 || p.bc > 1 {
				where = fmt.Sprintf("[%d:%d, %d:%d]", i*p.br, (i+1)*p.br, j*p.bc, (j+1)*p.bc)
			}
			fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" fill="%s"><title>%s = %s</title></rect>`,
				cx, cy, p.cell, p.cell, sc.color(v), where, fmtNum(v))
			if p.values && p.cell >= 24 {
				fill := "#000"
				if sc.dark(v) {
					fill = "#fff"
				}
				fmt.Fprintf(b, `<text x="%g" y="%g" font-size="8" fill="%s" text-anchor="middle">%s</text>`,
					cx+p.cell/2, cy+p.cell/2+3, fill, fmtNum(v))
			}
		}
	}
	fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#bbb"/>`, gx, gy, p.cell*float64(p.cols), p.cell*float64(p.rows))
	if mr >= 0 && mc >= 0 {
		fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#e00" stroke-width="2"/>`,
			gx+p.cell*float64(mc), gy+p.cell*float64(mr), p.cell, p.cell)
	}
	b.WriteString("</g>")
}

// legend draws a colour bar for sc with its end values.
func legend(b *strings.Builder, x, y float64, sc scale) {
	const n, w, h = 20, 6.0, 10.0
	fmt.Fprintf(b, `<g transform="translate(%g,%g)" font-family="sans-serif" font-size="9">`, x+labelW, y)
	for k := 0; k < n; k++ {
		v := sc.lo + (sc.hi-sc.lo)*(float64(k)+0.5)/n
		fmt.Fprintf(b, `<rect x="%g" y="0" width="%g" height="%g" fill="%s"/>`, float64(k)*w, w, h, sc.color(v))
	}
	fmt.Fprintf(b, `<text x="0" y="%g">%s</text><text x="%g" y="%g" text-anchor="end">%s</text></g>`,
		h+10, fmtNum(sc.lo), n*w, h+10, fmtNum(sc.hi))
}

func openSVG(b *strings.Builder, w, h float64) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g">`, w, h, w, h)
	fmt.Fprintf(b, `<rect width="%g" height="%g" fill="#fff"/>`, w, h)
}
