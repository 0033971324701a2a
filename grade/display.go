package grade

import (
	"fmt"

	"github.com/goagx/agx/agx/nb"
)

// openDisplay opens GoNB's display channel now, in this package's init while
// a test cell is graded: gonbui opens it on first use at the path in
// GONB_PIPE, read then, and notebook code (whose initialisers run after this
// package's) could by then have pointed GONB_PIPE at a pipe of its own, to
// read and rewrite the result on its way. The result's MAC (Result.MAC) is
// what makes such a rewrite fail; this only makes it harder.
func openDisplay() {
	nb.OpenDisplay() // an error stays in gonbui, and Done reports it
}

// display sends the result as one display_data output (in a notebook) or
// prints its text report (elsewhere). The JSON goes as a string, so GoNB's gob
// channel needs no registration.
func display(r *Result) error {
	if !nb.InNotebook() {
		fmt.Print(r.Text())
		return nil
	}
	return nb.Display(map[string]string{
		"text/html":  r.HTML(),
		"text/plain": r.Text(),
		MIMEType:     string(r.JSON()),
	})
}
