package nb

import (
	"fmt"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// Display sends one display_data output whose MIME bundle is bundle (MIME type
// -> text). Every value is a string, so GoNB's gob channel needs no type
// registration; a JSON document goes in as its text. It waits until GoNB has
// read the output and returns the display channel's error, if any (a failed
// send is otherwise silent).
// Outside a notebook it prints bundle["text/plain"] and returns nil.
func Display(bundle map[string]string) error {
	if !gonbui.IsNotebook {
		if s, ok := bundle["text/plain"]; ok {
			fmt.Println(s)
		}
		return nil
	}
	beforeDisplay()
	data := make(map[protocol.MIMEType]any, len(bundle))
	for mime, v := range bundle {
		data[protocol.MIMEType(mime)] = v
	}
	gonbui.SendData(&protocol.DisplayData{Data: data})
	if err := gonbui.Error(); err != nil {
		return err
	}
	if !afterDisplay() {
		return fmt.Errorf("nb: GoNB did not acknowledge the display within %v", syncTimeout)
	}
	return gonbui.Error()
}

// OpenDisplay opens GoNB's display channel now rather than on the first
// output: GoNB names the channel in the environment variable GONB_PIPE, which
// gonbui reads when it opens it, so opening early pins the channel before
// later code of the program can change the variable. Outside a notebook it
// does nothing. An error stays in gonbui, and the next Display returns it.
func OpenDisplay() {
	if gonbui.IsNotebook {
		_ = gonbui.Open()
	}
}
