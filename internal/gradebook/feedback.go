package gradebook

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"

	"github.com/goagx/agx/internal/notebook"
)

// WriteFeedback writes DIR/STUDENT.html for every entry: the totals, each
// graded cell with its visible checks and their messages, hidden checks as
// "hidden test" with their points only, overrides with their comments, what
// was restored, and the flags. Every string is HTML-escaped: names, messages
// and comments can come from student code and are never rendered as HTML.
func WriteFeedback(dir string, entries []*Entry) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return WriteFeedbackTo(entries, func(e *Entry) string { return filepath.Join(dir, e.Student+".html") })
}

// WriteFeedbackTo writes each entry's page at path(entry), making its
// directory (e.g. NbgraderFeedbackPath's layout).
func WriteFeedbackTo(entries []*Entry, path func(*Entry) string) ([]string, error) {
	var paths []string
	for _, e := range entries {
		p := path(e)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := notebook.WriteFileAtomic(p, []byte(FeedbackHTML(e))); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

const feedbackStyle = `body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
.pass{color:#1b7f3b}.fail{color:#b00020}.muted{color:#666}pre{white-space:pre-wrap;margin:0}`

// FeedbackHTML renders one entry's feedback page.
func FeedbackHTML(e *Entry) string {
	esc := html.EscapeString
	var b strings.Builder
	title := fmt.Sprintf("%s — %s", e.Notebook, e.Student)
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title><style>%s</style></head><body>\n", esc(title), feedbackStyle)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", esc(title))
	switch e.Status {
	case Ungradable:
		b.WriteString("<p class=\"fail\">Your notebook could not be graded automatically (a problem on the grading side, not in your code). Your instructor will look at it.</p>\n")
	case Unreadable:
		fmt.Fprintf(&b, "<p class=\"fail\">The file you submitted could not be read as a notebook, so it was not graded: %s. Submit the notebook file that Jupyter saved (File → Save), without editing it by hand.</p>\n", esc(e.UngradableReason))
	case WrongNotebook:
		fmt.Fprintf(&b, "<p class=\"fail\">The notebook you submitted is not the one of this assignment, so it was not graded: %s.</p>\n", esc(e.UngradableReason))
	}
	fmt.Fprintf(&b, "<p><b>Total: %s / %s points</b></p>\n", formatPoints(e.Score), formatPoints(e.MaxScore))
	if e.Run.Weakened() != "" {
		b.WriteString("<p class=\"muted\">This notebook was graded with weaker isolation than usual (the grading machine could not set all of it up); your instructor knows.</p>\n")
	}
	for _, c := range e.Cells {
		writeCellFeedback(&b, c)
	}
	if len(e.Notes) > 0 {
		b.WriteString("<h2>Restored cells</h2>\n<ul>\n")
		for _, n := range e.Notes {
			fmt.Fprintf(&b, "<li>%s</li>\n", esc(n))
		}
		b.WriteString("</ul>\n")
	}
	if len(e.Flags) > 0 {
		b.WriteString("<h2>Flagged for review</h2>\n<ul>\n")
		for _, f := range e.Flags {
			where := f.Cell
			if f.Line > 0 {
				where += fmt.Sprintf(", line %d", f.Line)
			}
			fmt.Fprintf(&b, "<li><b>%s</b> (%s): %s</li>\n", esc(f.Kind), esc(where), esc(f.Message))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// writeCellFeedback writes the part of a feedback page about one graded
// cell: its points and status, the answer's errors, an override, and its
// checks or messages (less what would show hidden tests).
func writeCellFeedback(b *strings.Builder, c *CellGrade) {
	esc := html.EscapeString
	cls := "fail"
	if c.Points >= c.MaxPoints {
		cls = "pass"
	}
	bonus := ""
	if c.Bonus {
		bonus = " (bonus)"
	}
	fmt.Fprintf(b, "<h2>%s%s: <span class=\"%s\">%s / %s</span></h2>\n", esc(c.GradeID), bonus, cls, formatPoints(c.Points), formatPoints(c.MaxPoints))
	fmt.Fprintf(b, "<p class=\"muted\">%s</p>\n", esc(statusSentence(c.Status)))
	for _, m := range c.AnswerErrors {
		fmt.Fprintf(b, "<pre>%s</pre>\n", esc(m))
	}
	if c.Override != nil {
		fmt.Fprintf(b, "<p>Points set by your instructor (automatic: %s)", formatPoints(c.AutoPoints))
		if c.Override.Comment != "" {
			fmt.Fprintf(b, ": %s", esc(c.Override.Comment))
		}
		b.WriteString("</p>\n")
	}
	if len(c.Checks) == 0 {
		for _, m := range c.Messages {
			if c.HasHidden && (c.Status == StatusError || c.Status == StatusNoResult || c.Status == StatusRejected) {
				m = "details withheld: this test cell has hidden tests"
			}
			fmt.Fprintf(b, "<pre>%s</pre>\n", esc(m))
		}
		return
	}
	b.WriteString("<table><tr><th>check</th><th>result</th><th>points</th><th>message</th></tr>\n")
	for _, ch := range c.Checks {
		name, msg := esc(ch.Name), esc(ch.Message)
		switch {
		case ch.Hidden:
			name += " <i>(hidden test)</i>"
			msg = "<span class=\"muted\">hidden test</span>"
		case c.HasHidden && ch.Status != "pass" && ch.Message != "":
			// The cell's program holds its hidden tests (GoNB's main.go),
			// and a visible check's message can carry text of the
			// student's code: a panic value, a value it returned.
			msg = "<span class=\"muted\">details withheld: this test cell has hidden tests</span>"
		}
		rcls := "fail"
		if ch.Status == "pass" {
			rcls = "pass"
		}
		fmt.Fprintf(b, "<tr><td>%s</td><td class=\"%s\">%s</td><td>%s / %s</td><td><pre>%s</pre></td></tr>\n",
			name, rcls, esc(ch.Status), formatPoints(ch.Points), formatPoints(ch.Max), msg)
	}
	b.WriteString("</table>\n")
	for _, m := range c.Messages {
		fmt.Fprintf(b, "<p class=\"muted\">%s</p>\n", esc(m))
	}
}

func statusSentence(status string) string {
	switch status {
	case StatusPassed:
		return "All checks passed."
	case StatusPartial:
		return "Some checks passed."
	case StatusFailed:
		return "No check passed."
	case StatusRejected:
		return "The test cell's result was not accepted; no points given."
	case StatusError:
		return "The test cell failed before it could report (for example, your code does not compile)."
	case StatusTimeout:
		return "The test cell ran past its time limit."
	case StatusNotRun:
		return "The test cell was not run."
	case StatusNoResult:
		return "The test cell reported no result (did the program exit early?)."
	case StatusManual:
		return "Graded by hand."
	case StatusUngradable:
		return "The test cell's result could not be read (a problem on the grading side); it will be graded again."
	}
	return status
}

// NbgraderFeedbackPath returns where nbgrader keeps a student's feedback page
// for a notebook of assignment: DIR/STUDENT/ASSIGNMENT/NOTEBOOK.html.
func NbgraderFeedbackPath(dir, assignment string) func(e *Entry) string {
	return func(e *Entry) string {
		return filepath.Join(dir, e.Student, assignment, strings.TrimSuffix(e.Notebook, ".ipynb")+".html")
	}
}
