package autograde

import (
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// isBonus reports whether a cell is marked optional in the source
// (nbgrader.IsBonus).
func isBonus(c *notebook.Cell) bool { return nbgrader.IsBonus(c) }

var (
	ansiEscape = regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])`)
	htmlStyle  = regexp.MustCompile(`(?is)<style[^>]*>.*?</style>`)
	// GoNB's error block repeats the lines around the error in a hover
	// box; for a test cell they are the test's source (hidden tests too).
	gonbContext = regexp.MustCompile(`(?s)<div class="gonb-err-context">.*?</div>\s*</div>`)
	htmlTag     = regexp.MustCompile(`(?s)<[^>]*>`)
	gonbModule  = regexp.MustCompile(`(?m)^\s*# gonb_\w+\s*$`)
	blankLines  = regexp.MustCompile(`\n\s*\n+`)
)

// stripANSI removes terminal escape sequences (colours, GoNB's reverse
// video around cell line numbers).
func stripANSI(s string) string { return ansiEscape.ReplaceAllString(s, "") }

// gonbErrorText returns the plain text of an output that is GoNB's HTML
// error block (a compile error's only carrier of the compiler's message),
// without GoNB's styles and the hover box that repeats the cell's source;
// ok is false for other outputs.
func gonbErrorText(o *notebook.Output) (text string, ok bool) {
	h, found := o.DataText("text/html")
	if !found || !strings.Contains(h, "gonb-err") && !strings.Contains(h, "application/vnd.jupyter.stderr") {
		return "", false
	}
	h = htmlStyle.ReplaceAllString(h, "")
	h = gonbContext.ReplaceAllString(h, "")
	h = strings.NewReplacer("<br>", "\n", "<br/>", "\n", "</div>", "\n").Replace(h)
	t := html.UnescapeString(htmlTag.ReplaceAllString(h, ""))
	t = gonbModule.ReplaceAllString(t, "")
	t = blankLines.ReplaceAllString(strings.TrimSpace(t), "\n")
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

// wrongNotebook reports whether sub is another notebook than src: it has
// exercise cells (answer, test, manual or task cells) with grade_ids, and
// none of them is one of src's exercise cells (read-only cells are left
// out: ids such as "intro" recur from notebook to notebook). It
// returns the submission's grade_ids (sorted, at most five) for the reason.
// A submission without nbgrader metadata is not judged: its cells are
// graded as the student's.
func wrongNotebook(src, sub *notebook.Notebook) (bool, []string) {
	ids := map[string]bool{}
	for _, c := range src.Cells {
		if m, err := nbgrader.Get(c); err == nil && exercise(m) {
			ids[m.GradeID] = true
		}
	}
	var theirs []string
	for _, c := range sub.Cells {
		m, err := nbgrader.Get(c)
		if err != nil || !exercise(m) {
			continue
		}
		if ids[m.GradeID] {
			return false, nil
		}
		theirs = append(theirs, m.GradeID)
	}
	sort.Strings(theirs)
	if len(theirs) > 5 {
		theirs = append(theirs[:5], "…")
	}
	return len(theirs) > 0, theirs
}

func exercise(m *nbgrader.Meta) bool {
	return m != nil && m.GradeID != "" && (m.Grade || m.Solution || m.Kind() == nbgrader.KindTask)
}

// wrongNotebookReason says why a submission is taken for another notebook.
func wrongNotebookReason(srcName string, theirIDs []string) string {
	return fmt.Sprintf("this is not the notebook %s: none of its exercises (%s) is one of %s's; submit %s of this assignment",
		srcName, strings.Join(theirIDs, ", "), srcName, srcName)
}
