package nb

import (
	"fmt"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// Display sends one display_data output whose MIME bundle is bundle (MIME type
// -> text). Every value is a string, so GoNB's gob channel needs no type
// registration; a JSON document goes in as its text. It returns the display
// channel's error, if any, after the send (a failed send is otherwise silent).
// Outside a notebook it prints bundle["text/plain"] and returns nil.
func Display(bundle map[string]string) error {
	if !gonbui.IsNotebook {
		if s, ok := bundle["text/plain"]; ok {
			fmt.Println(s)
		}
		return nil
	}
	data := make(map[protocol.MIMEType]any, len(bundle))
	for mime, v := range bundle {
		data[protocol.MIMEType(mime)] = v
	}
	gonbui.SendData(&protocol.DisplayData{Data: data})
	return gonbui.Error()
}
