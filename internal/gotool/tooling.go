package gotool

import (
	"html"
	"path/filepath"
	"strings"

	"github.com/goagx/agx/internal/lazyre"
	"github.com/goagx/agx/internal/notebook"
)

// GoNB reports a failed step of a cell as an error output whose value is
// `failed to run "COMMAND": exit status N`.
var failedToRun = lazyre.New(`failed to run "([^"]*)"`)

// goCommandError matches the go command's own errors (module resolution,
// go.sum), as opposed to the compiler's: lines that start with "go: ", and
// the module errors that the go command reports at an import's position.
var goCommandError = lazyre.New(`(?m)^\s*go: |no required module provides package|missing go\.sum entry|module lookup disabled|cannot find module providing package`)

// CellFailure returns why the kernel's Go tooling failed in one executed
// cell (goimports, `go get`, or a build that failed in the go command
// rather than in the compiler), or "" when it did not.
func CellFailure(c *notebook.Cell) string {
	var text strings.Builder // everything the cell printed, for the go command's errors
	var failed []string      // the commands GoNB reports as failed
	for _, o := range c.Outputs {
		switch o.OutputType {
		case notebook.ErrorOutput:
			for _, m := range failedToRun().FindAllStringSubmatch(o.Evalue, -1) {
				failed = append(failed, m[1])
			}
			text.WriteString(o.Evalue + "\n")
			for _, l := range o.Traceback {
				text.WriteString(l + "\n")
			}
		case notebook.Stream:
			text.WriteString(o.Text + "\n")
		default:
			// GoNB shows the failing command's output as HTML unless it
			// runs with -raw_error.
			if t, ok := o.DataText("text/plain"); ok {
				text.WriteString(t + "\n")
			} else if t, ok := o.DataText("text/html"); ok {
				text.WriteString(html.UnescapeString(htmlTag().ReplaceAllString(t, "")) + "\n")
			}
		}
	}
	for _, cmd := range failed {
		f := strings.Fields(cmd)
		if len(f) == 0 {
			continue
		}
		tool := filepath.Base(f[0])
		switch {
		case tool == "goimports":
			return "goimports failed (" + notebook.Clip(firstLine(text.String()), 300) + ")"
		case tool == "go" && len(f) > 1 && f[1] == "get":
			return "`go get` failed: " + notebook.Clip(goErrors(text.String()), 300)
		case tool == "go" && len(f) > 1 && (f[1] == "build" || f[1] == "test"):
			if goCommandError().MatchString(text.String()) {
				return "the build failed in the go command: " + notebook.Clip(goErrors(text.String()), 300)
			}
		}
	}
	return ""
}

// goErrors keeps the go command's lines of out (the first line of out when
// there are none).
func goErrors(out string) string {
	var lines []string
	for l := range strings.Lines(out) {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "go: downloading ") || strings.HasPrefix(t, "go: finding ") {
			continue // progress, not errors
		}
		if strings.HasPrefix(t, "go: ") || goCommandError().MatchString(t) || strings.HasPrefix(l, "\t") && len(lines) > 0 {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) == 0 {
		return firstLine(out)
	}
	// The scratch module's name changes from run to run; the entry should not.
	return scratchModule().ReplaceAllString(strings.Join(lines, " "), "gonb_…")
}

var scratchModule = lazyre.New(`\bgonb_[0-9a-f]+\b`)

// htmlTag matches an HTML tag of GoNB's output.
var htmlTag = lazyre.New(`(?s)<[^>]*>`)

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
