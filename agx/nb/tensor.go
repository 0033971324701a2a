package nb

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Display limits for tensor tables. A dimension longer than maxSide shows its
// first and last edgeItems entries around an ellipsis; more than maxTables
// leading-index tables (for tensors of 3 or more dimensions) are cut the same
// way. Only the displayed elements are read, so large tensors are cheap to show.
const (
	maxSide   = 20
	edgeItems = 3
	maxTables = 6
)

// Tensor displays t as an HTML table with a caption giving its dtype, shape and
// autograd state (requires_grad, grad_fn). Outside a notebook it prints
// t.String().
func Tensor(t *agx.Tensor) {
	if !InNotebook() {
		fmt.Println(tensorText(t, false))
		return
	}
	HTML(TensorHTML(t))
}

// TensorWithGrad is Tensor followed by t's accumulated gradient (or a note that
// it has none).
func TensorWithGrad(t *agx.Tensor) {
	if !InNotebook() {
		fmt.Println(tensorText(t, true))
		return
	}
	HTML(TensorWithGradHTML(t))
}

// TensorHTML returns the HTML that Tensor displays. 0-d and 1-d tensors give a
// one-row table, 2-d tensors a matrix, and tensors with more dimensions one
// table per leading index (captioned like t[0, 1, :, :]). The output depends
// only on t, so it can be compared in tests.
func TensorHTML(t *agx.Tensor) string {
	if t == nil {
		return `<div class="agx-tensor"><i>nil tensor</i></div>`
	}
	return `<div class="agx-tensor">` + tableHTML(t.Data(), caption(t)) + "</div>"
}

// TensorWithGradHTML returns the HTML that TensorWithGrad displays: the value
// and gradient tables side by side.
func TensorWithGradHTML(t *agx.Tensor) string {
	if t == nil {
		return TensorHTML(t)
	}
	var gradPart string
	if g := t.Grad(); g != nil {
		gradPart = tableHTML(g.Data(), "grad · "+shapeCaption(g.Data()))
	} else {
		gradPart = `<div style="font-family:monospace;color:#666">grad: None</div>`
	}
	return `<div class="agx-tensor" style="display:flex;gap:2em;align-items:flex-start">` +
		tableHTML(t.Data(), caption(t)) + gradPart + "</div>"
}

// tensorText is the plain-text fallback.
func tensorText(t *agx.Tensor, withGrad bool) string {
	if t == nil {
		return "nil tensor"
	}
	s := t.String()
	if !withGrad {
		return s
	}
	if g := t.Grad(); g != nil {
		return s + "\ngrad: " + g.String()
	}
	return s + "\ngrad: None"
}

// caption describes an autograd tensor: name, dtype, shape and grad state.
func caption(t *agx.Tensor) string {
	parts := []string{}
	if t.Name() != "" {
		parts = append(parts, t.Name())
	}
	parts = append(parts, shapeCaption(t.Data()))
	switch {
	case t.GradFn() != nil:
		parts = append(parts, "grad_fn="+t.GradFn().Name())
	case t.RequiresGrad():
		parts = append(parts, "requires_grad=True")
	}
	return strings.Join(parts, " · ")
}

func shapeCaption(t *tensor.Tensor) string {
	return fmt.Sprintf("%v %v", t.DType(), t.Shape())
}

const (
	tableStyle = `border-collapse:collapse;font-family:monospace;font-size:12px;margin:0.3em 0`
	capStyle   = `caption-side:top;text-align:left;color:#444;padding-bottom:2px;white-space:nowrap`
	thStyle    = `color:#888;font-weight:normal;padding:1px 6px;text-align:right`
	tdStyle    = `border:1px solid #ddd;padding:1px 6px;text-align:right`
)

// tableHTML renders a plain tensor with the given caption.
func tableHTML(t *tensor.Tensor, title string) string {
	var b strings.Builder
	origLead := t.Shape()
	origLead = origLead[:max(0, len(origLead)-2)]
	t, labels, cut := shrink(t)
	shape := t.Shape()
	vals := t.Float64s()
	f := newElemFormat(t.DType(), vals)
	switch len(shape) {
	case 0:
		writeTable(&b, title, f, vals, 0, []int{0}, []int{0}, false, false)
		return b.String()
	case 1:
		writeTable(&b, title, f, vals, 0, []int{0}, labels[0], true, false)
		return b.String()
	case 2:
		writeTable(&b, title, f, vals, 0, labels[0], labels[1], true, true)
		return b.String()
	}
	nd := len(shape)
	lead := shape[:nd-2]
	rows, cols := shape[nd-2], shape[nd-1]
	nTables := 1
	for _, s := range lead {
		nTables *= s
	}
	b.WriteString(`<div>` + html.EscapeString(title) + `</div>`)
	if nTables == 0 || rows*cols == 0 {
		b.WriteString(`<div style="font-family:monospace;color:#666">(empty)</div>`)
		return b.String()
	}
	const gapDiv = `<div style="font-family:monospace;color:#666">%s</div>`
	prev, gapShown := -1, false
	for _, k := range shown(nTables, maxTables) {
		if k < 0 {
			more := "…"
			if !cut {
				more = fmt.Sprintf("… %d more …", nTables-2*edgeItems)
			}
			fmt.Fprintf(&b, gapDiv, more)
			gapShown = true
			continue
		}
		idx := unravel(k, lead)
		sub := make([]string, 0, nd)
		orig := 0 // the table's flat leading index in the original tensor
		for d, i := range idx {
			sub = append(sub, strconv.Itoa(labels[d][i]))
			orig = orig*origLead[d] + labels[d][i]
		}
		if prev >= 0 && orig != prev+1 && !gapShown {
			fmt.Fprintf(&b, gapDiv, "…")
		}
		prev, gapShown = orig, false
		sub = append(sub, ":", ":")
		writeTable(&b, "["+strings.Join(sub, ", ")+"]", f, vals, k*rows*cols, labels[nd-2], labels[nd-1], true, true)
	}
	return b.String()
}

// shrink keeps the first and last edgeItems entries of every dimension longer
// than maxSide, so that only what is displayed is read. It returns the
// smaller tensor, the original index of each entry along each dimension, and
// whether a leading dimension (before the last two) was cut.
func shrink(t *tensor.Tensor) (*tensor.Tensor, [][]int, bool) {
	shape := t.Shape()
	labels := make([][]int, len(shape))
	cut := false
	for d, n := range shape {
		if n <= maxSide {
			labels[d] = make([]int, n)
			for i := range labels[d] {
				labels[d][i] = i
			}
			continue
		}
		keep := make([]int64, 0, 2*edgeItems)
		for i := 0; i < edgeItems; i++ {
			keep = append(keep, int64(i))
		}
		for i := n - edgeItems; i < n; i++ {
			keep = append(keep, int64(i))
		}
		for _, i := range keep {
			labels[d] = append(labels[d], int(i))
		}
		t = t.IndexSelect(d, tensor.FromSlice(keep))
		cut = cut || d < len(shape)-2
	}
	return t, labels, cut
}

// writeTable writes a block of vals starting at off whose rows and columns
// have the given original indices; a jump in the indices shows as a row or
// column of ellipses. Indices head the columns and rows when asked.
func writeTable(b *strings.Builder, title string, f elemFormat, vals []float64, off int, rowLabels, colLabels []int, colHeads, rowHeads bool) {
	fmt.Fprintf(b, `<table style="%s"><caption style="%s">%s</caption>`, tableStyle, capStyle, html.EscapeString(title))
	cols := len(colLabels)
	rowIdx, colIdx := withGaps(rowLabels), withGaps(colLabels)
	if colHeads {
		b.WriteString("<tr>")
		if rowHeads {
			fmt.Fprintf(b, `<th style="%s"></th>`, thStyle)
		}
		for _, j := range colIdx {
			fmt.Fprintf(b, `<th style="%s">%s</th>`, thStyle, indexLabel(j, colLabels))
		}
		b.WriteString("</tr>")
	}
	for _, i := range rowIdx {
		b.WriteString("<tr>")
		if rowHeads {
			fmt.Fprintf(b, `<th style="%s">%s</th>`, thStyle, indexLabel(i, rowLabels))
		}
		for _, j := range colIdx {
			cell := "…"
			if i >= 0 && j >= 0 {
				cell = f.format(vals[off+i*cols+j])
			}
			fmt.Fprintf(b, `<td style="%s">%s</td>`, tdStyle, cell)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
}

// withGaps lists positions 0..len(labels)-1, with -1 inserted where the
// original indices jump.
func withGaps(labels []int) []int {
	out := make([]int, 0, len(labels)+1)
	for i := range labels {
		if i > 0 && labels[i] != labels[i-1]+1 {
			out = append(out, -1)
		}
		out = append(out, i)
	}
	return out
}

func indexLabel(i int, labels []int) string {
	if i < 0 {
		return "…"
	}
	return strconv.Itoa(labels[i])
}

// shown lists the indices displayed out of n: all of them up to limit, else
// the first and last edgeItems with -1 marking the gap.
func shown(n, limit int) []int {
	var idx []int
	if n <= limit {
		for i := 0; i < n; i++ {
			idx = append(idx, i)
		}
		return idx
	}
	for i := 0; i < edgeItems; i++ {
		idx = append(idx, i)
	}
	idx = append(idx, -1)
	for i := n - edgeItems; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

// unravel turns a flat row-major index into per-dimension indices.
func unravel(k int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = k % shape[d]
		k /= shape[d]
	}
	return idx
}

// elemFormat prints all elements of one tensor the same way: integers and
// booleans exactly; floats with 4 decimals, or in scientific notation when the
// magnitudes make fixed notation unreadable.
type elemFormat struct {
	dt  tensor.DType
	sci bool
}

func newElemFormat(dt tensor.DType, vals []float64) elemFormat {
	f := elemFormat{dt: dt}
	if !dt.IsFloat() {
		return f
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range vals {
		a := math.Abs(v)
		if a == 0 || math.IsInf(a, 0) || math.IsNaN(a) {
			continue
		}
		lo, hi = min(lo, a), max(hi, a)
	}
	f.sci = hi >= 1e5 || (hi > 0 && lo < 1e-4)
	return f
}

func (f elemFormat) format(v float64) string {
	switch {
	case f.dt == tensor.Bool:
		if v != 0 {
			return "True"
		}
		return "False"
	case !f.dt.IsFloat():
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case f.sci:
		return strconv.FormatFloat(v, 'e', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}
