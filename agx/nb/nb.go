// Package nb holds agx's notebook display helpers. It is the only agx package
// that talks to GoNB (through gonbui); the tensor, autograd and function
// packages never import it, so they build and test without Jupyter.
//
// Outside a GoNB kernel every helper falls back to plain text on stdout, so
// code that uses them also runs as an ordinary Go program.
package nb

import (
	"fmt"
	"html"

	"github.com/janpfeifer/gonb/gonbui"
)

// InNotebook reports whether the program runs as a GoNB cell.
func InNotebook() bool { return gonbui.IsNotebook }

// HTML displays an HTML fragment in the cell's output. Outside a notebook it
// prints the fragment as text.
func HTML(fragment string) {
	if !gonbui.IsNotebook {
		fmt.Println(fragment)
		return
	}
	gonbui.DisplayHTML(fragment)
	gonbui.Sync() // a cell that exits right after a display could otherwise lose it
}

// Markdown displays Markdown in the cell's output. Outside a notebook it prints
// the text.
func Markdown(text string) {
	if !gonbui.IsNotebook {
		fmt.Println(text)
		return
	}
	gonbui.DisplayMarkdown(text)
	gonbui.Sync()
}

// Pre displays text in a monospaced block, HTML-escaped.
func Pre(text string) {
	HTML("<pre>" + html.EscapeString(text) + "</pre>")
}

// Err returns the first error GoNB's display channel reported, if any. A failed
// send is otherwise silent and later displays in the same cell are dropped.
func Err() error { return gonbui.Error() }
