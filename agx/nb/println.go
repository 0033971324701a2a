package nb

import (
	"fmt"
	"html"
	"strings"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Println is fmt.Println for a notebook: it shows its operands in one output
// line, separated by spaces, with every tensor (*agx.Tensor, *tensor.Tensor)
// drawn as a table (TensorHTML) instead of its text form. The output also
// carries the plain text that fmt.Println would print (as its text/plain
// form), so a text view of the notebook and the checks of `agx run`
// (expect, expect_numbers) see the same numbers as before.
//
// Outside a notebook it is fmt.Println. Like every display it comes after
// the text printed before it.
func Println(a ...any) {
	if !InNotebook() {
		fmt.Println(a...)
		return
	}
	text := strings.TrimSuffix(fmt.Sprintln(a...), "\n")
	if err := Display(map[string]string{"text/html": PrintlnHTML(a...), "text/plain": text}); err != nil {
		// The display channel failed: the text still reaches the reader.
		fmt.Println(text)
	}
}

// PrintlnHTML returns the HTML that Println displays: the operands in a row,
// text in a monospaced font (HTML-escaped, spaces kept) and tensors as tables.
func PrintlnHTML(a ...any) string {
	var b strings.Builder
	b.WriteString(`<div class="agx-println" style="display:flex;flex-wrap:wrap;align-items:center;gap:0 0.6em;font-family:monospace">`)
	for _, v := range a {
		switch x := v.(type) {
		case *agx.Tensor:
			b.WriteString(TensorHTML(x))
		case *tensor.Tensor:
			b.WriteString(valueHTML(x))
		default:
			b.WriteString(`<span style="white-space:pre">` + html.EscapeString(fmt.Sprint(v)) + `</span>`)
		}
	}
	b.WriteString("</div>")
	return b.String()
}
