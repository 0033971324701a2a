package nb

import (
	"fmt"
	"html"

	"github.com/janpfeifer/gonb/gonbui"
)

// InNotebook reports whether the program runs as a GoNB cell.
func InNotebook() bool { return gonbui.IsNotebook }

// HTML displays an HTML fragment in the cell's output and waits, at most
// syncTimeout, until GoNB has received it (without that wait, a display sent
// just before the cell's program exits can be lost). Outside a notebook it
// prints the fragment as text.
func HTML(fragment string) {
	if !gonbui.IsNotebook {
		fmt.Println(fragment)
		return
	}
	beforeDisplay()
	gonbui.DisplayHTML(fragment)
	afterDisplay()
}

// Markdown displays Markdown in the cell's output, waiting for GoNB like
// HTML. Outside a notebook it prints the text.
func Markdown(text string) {
	if !gonbui.IsNotebook {
		fmt.Println(text)
		return
	}
	beforeDisplay()
	gonbui.DisplayMarkdown(text)
	afterDisplay()
}

// Pre displays text in a monospaced block, HTML-escaped.
func Pre(text string) {
	HTML("<pre>" + html.EscapeString(text) + "</pre>")
}

// Err returns the first error GoNB's display channel reported, if any. A failed
// send is otherwise silent and later displays in the same cell are dropped.
func Err() error { return gonbui.Error() }
