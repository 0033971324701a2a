package grade

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// statusText is what a student sees for a check's status.
var statusText = map[string]string{Pass: "passed", Fail: "failed", Error: "error", Timeout: "timed out"}

// formatPoints prints points without trailing zeros (2, 0.5).
func formatPoints(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// shownMessage is the message a report shows: a hidden check's message stays
// in the JSON only.
func (c *CheckResult) shownMessage() string {
	if c.Hidden && !c.Passed {
		return "details hidden"
	}
	return c.Message
}

// Text returns the plain-text report: one line per check and the total.
// Hidden checks show no message.
func (r *Result) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s / %s points\n", r.GradeID, formatPoints(r.Score), formatPoints(r.MaxScore))
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.Passed {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "  %s %s (%s/%s)", mark, c.Name, formatPoints(c.Points), formatPoints(c.Max))
		if c.Hidden {
			b.WriteString(" [hidden]")
		}
		if msg := c.shownMessage(); msg != "" {
			fmt.Fprintf(&b, ": %s", msg)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// HTML returns the report as an HTML table (check, status, points, message)
// with the total. Hidden checks show no message. Every string in it that code under test may have produced
// (names, messages, the grade_id) is escaped; none is rendered as HTML.
func (r *Result) HTML() string {
	var b strings.Builder
	esc := html.EscapeString
	color := "#b00020"
	if r.Passed() {
		color = "#1b7f3b"
	}
	fmt.Fprintf(&b, `<div class="agx-grade"><table style="border-collapse:collapse">`+
		`<caption style="text-align:left;font-weight:bold;color:%s">%s: %s / %s points</caption>`,
		color, esc(r.GradeID), formatPoints(r.Score), formatPoints(r.MaxScore))
	b.WriteString(`<tr><th style="text-align:left">check</th><th>status</th><th>points</th><th style="text-align:left">message</th></tr>`)
	for _, c := range r.Checks {
		st := statusText[c.Status]
		cell := "#1b7f3b"
		if !c.Passed {
			cell = "#b00020"
		}
		name := esc(c.Name)
		if c.Hidden {
			name += " <i>(hidden)</i>"
		}
		fmt.Fprintf(&b, `<tr><td>%s</td><td style="color:%s">%s</td><td style="text-align:right">%s / %s</td><td><code style="white-space:pre-wrap">%s</code></td></tr>`,
			name, cell, esc(st), formatPoints(c.Points), formatPoints(c.Max), esc(c.shownMessage()))
	}
	b.WriteString(`</table></div>`)
	return b.String()
}
