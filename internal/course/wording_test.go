package course

import (
	"regexp"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

// backwardRatio matches a speed-up below 1 called "faster" (or one above 1
// called "slower" in the same way): "0.7x faster", "0.5 times faster".
var backwardRatio = regexp.MustCompile(`\b0\.\d+\s*(?:x|times)\s+(?:faster|quicker)\b`)

// outputText is the text of a cell's stored outputs.
func outputText(c *notebook.Cell) string {
	var b strings.Builder
	for _, o := range c.Outputs {
		b.WriteString(o.Text)
		if raw, ok := o.Data["text/plain"]; ok {
			b.Write(raw)
		}
	}
	return b.String()
}

// No lesson's text or stored output calls a ratio below 1 "faster": a
// measured ratio is worded from its value ("1.4x slower").
func TestNoRatioBelowOneIsFaster(t *testing.T) {
	lessons := readAll(t, "notebooks/*.ipynb")
	for _, name := range sortedKeys(lessons) {
		for i, c := range lessons[name].Cells {
			for _, text := range []string{c.Source, outputText(c)} {
				if m := backwardRatio.FindString(text); m != "" {
					t.Errorf("%s: cell %d: %q: a ratio below 1 is not faster; say how many times slower", name, i, m)
				}
			}
		}
	}
}
