package grade

import (
	"fmt"

	"github.com/goagx/agx/agx/nb"
)

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
