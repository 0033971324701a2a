package score

import (
	"html"
	"strings"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/lazyre"
	"github.com/goagx/agx/internal/notebook"
)

var (
	ansiEscape = lazyre.New(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])`)
	htmlStyle  = lazyre.New(`(?is)<style[^>]*>.*?</style>`)
	// GoNB's error block repeats the lines around the error in a hover
	// box; for a test cell they are the test's source (hidden tests too).
	gonbContext = lazyre.New(`(?s)<div class="gonb-err-context">.*?</div>\s*</div>`)
	htmlTag     = lazyre.New(`(?s)<[^>]*>`)
	gonbModule  = lazyre.New(`(?m)^\s*# gonb_\w+\s*$`)
	blankLines  = lazyre.New(`\n\s*\n+`)
)

// stripANSI removes terminal escape sequences (colours, GoNB's reverse
// video around cell line numbers).
func stripANSI(s string) string { return ansiEscape().ReplaceAllString(s, "") }

// gonbErrorText returns the plain text of an output that is GoNB's HTML
// error block (a compile error's only carrier of the compiler's message),
// without GoNB's styles and the hover box that repeats the cell's source;
// ok is false for other outputs.
func gonbErrorText(o *notebook.Output) (text string, ok bool) {
	h, found := o.DataText("text/html")
	if !found || !strings.Contains(h, "gonb-err") && !strings.Contains(h, "application/vnd.jupyter.stderr") {
		return "", false
	}
	h = htmlStyle().ReplaceAllString(h, "")
	h = gonbContext().ReplaceAllString(h, "")
	h = strings.NewReplacer("<br>", "\n", "<br/>", "\n", "</div>", "\n").Replace(h)
	t := html.UnescapeString(htmlTag().ReplaceAllString(h, ""))
	t = gonbModule().ReplaceAllString(t, "")
	t = blankLines().ReplaceAllString(strings.TrimSpace(t), "\n")
	return t, t != ""
}

// cellErrors returns the error text of a cell's outputs: the stderr
// streams, and GoNB's HTML error blocks when there is no stderr (compile
// errors), then the error outputs' names and values. Each is trimmed and
// clipped; ANSI escapes are removed.
func cellErrors(c *notebook.Cell) (msgs []string, failed bool) {
	var stderr, blocks, errs []string
	for _, o := range c.Outputs {
		switch {
		case o.OutputType == notebook.ErrorOutput:
			failed = true
			errs = append(errs, strings.TrimSpace(o.Ename+": "+o.Evalue))
		case o.OutputType == notebook.Stream && o.Name == "stderr":
			stderr = append(stderr, o.Text)
		default:
			if t, ok := gonbErrorText(o); ok {
				blocks = append(blocks, t)
			}
		}
	}
	if s := strings.TrimSpace(strings.Join(stderr, "")); s != "" {
		msgs = append(msgs, s)
	} else {
		msgs = append(msgs, blocks...)
	}
	msgs = append(msgs, errs...)
	for i, m := range msgs {
		msgs[i] = notebook.Clip(strings.TrimSpace(stripANSI(m)), gradebook.MaxMessage)
	}
	return msgs, failed
}

// tempPath matches the per-run directories (GoNB's, the grader's) that
// appear in messages, so that the gradebook does not change from run to run.
var tempPath = lazyre.New(`/[^\s:'"]*/(gonb_|agx-grade-|agx-autograde-)[^/\s:'"]*`)

// Sanitize removes what would make a message differ from run to run or
// garble it: temporary paths and terminal escape sequences.
func Sanitize(s string) string { return tempPath().ReplaceAllString(stripANSI(s), "…") }
