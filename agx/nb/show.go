package nb

import (
	"errors"
	"fmt"
	"html"
	"strings"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Show displays each value with the renderer that suits it, in one output:
// agx and plain tensors as tables (agx tensors with their gradient when they
// have one), strings as text, errors in a red box (a GradCheck Jacobian
// mismatch also with its heatmaps), nil as "nil" and anything else with
// fmt's %v. Outside a notebook it prints each value's text form on its own
// line.
func Show(values ...any) {
	if !InNotebook() {
		for _, v := range values {
			fmt.Println(showText(v))
		}
		return
	}
	HTML(ShowHTML(values...))
}

// ShowHTML returns the HTML that Show displays.
func ShowHTML(values ...any) string {
	var b strings.Builder
	for _, v := range values {
		b.WriteString(valueHTML(v))
	}
	return b.String()
}

func valueHTML(v any) string {
	switch x := v.(type) {
	case nil:
		return `<div style="font-family:monospace">nil</div>`
	case *agx.Tensor:
		if x != nil && x.Grad() != nil {
			return TensorWithGradHTML(x)
		}
		return TensorHTML(x)
	case *tensor.Tensor:
		if x == nil {
			return TensorHTML(nil)
		}
		return `<div class="agx-tensor">` + tableHTML(x, shapeCaption(x)) + "</div>"
	case string:
		return `<div style="white-space:pre-wrap">` + html.EscapeString(x) + "</div>"
	case error:
		return ErrorHTML(x)
	}
	return `<pre>` + html.EscapeString(fmt.Sprint(v)) + "</pre>"
}

func showText(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case *agx.Tensor:
		return tensorText(x, x != nil && x.Grad() != nil)
	case error:
		return "error: " + x.Error()
	}
	return fmt.Sprint(v)
}

// ErrorHTML renders err in a red box. A *agx.GradCheckError that carries both
// Jacobians is followed by the heatmaps of JacobianMismatchSVG. A nil error
// renders as a short "no error" note.
func ErrorHTML(err error) string {
	if err == nil {
		return `<div style="font-family:monospace;color:#080">no error</div>`
	}
	box := `<div style="border:1px solid #d33;border-left:5px solid #d33;background:#fdecea;color:#900;` +
		`padding:6px 10px;margin:4px 0;font-family:monospace;white-space:pre-wrap">` +
		html.EscapeString(err.Error()) + "</div>"
	var gc *agx.GradCheckError
	if errors.As(err, &gc) && gc.NumericalJacobian != nil && gc.AnalyticalJacobian != nil {
		if svg, e := JacobianMismatchSVG(err); e == nil {
			box += svg
		}
	}
	return box
}
