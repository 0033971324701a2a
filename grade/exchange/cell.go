package exchange

import (
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"

	"github.com/goagx/agx/agx/nb"
)

// The cell helpers: in a notebook cell,
//
//	exchange.Fetch("ps1")
//	exchange.Submit("ps1")
//	exchange.FetchFeedback("ps1")
//	exchange.Status("ps1")
//
// each shows a short status in the cell's output and returns the error, if
// any (also shown). The exchange is the environment's ($AGX_EXCHANGE,
// $AGX_COURSE). The workspace is the notebook's directory, or its parent
// when that directory is the assignment's own (a notebook open in
// WORKSPACE/ps1/ submits WORKSPACE/ps1/).

// Fetch fetches the assignment into the workspace (see Exchange.Fetch).
func Fetch(assignment string) error {
	return cell("fetch", assignment, func(x Exchange, ws string) (lines []string, ok bool, err error) {
		r, err := x.Fetch(ws, assignment)
		if err != nil {
			return nil, false, err
		}
		return r.Lines(), true, nil
	})
}

// Submit submits the workspace's copy of the assignment (see
// Exchange.Submit). Save the notebook first: the file on disk is submitted.
func Submit(assignment string) error {
	return cell("submit", assignment, func(x Exchange, ws string) ([]string, bool, error) {
		r, err := x.Submit(ws, assignment)
		if err != nil {
			return nil, false, err
		}
		return r.Lines(), !r.Late, nil
	})
}

// FetchFeedback copies the returned feedback into ASSIGNMENT/feedback/ (see
// Exchange.FetchFeedback).
func FetchFeedback(assignment string) error {
	return cell("feedback", assignment, func(x Exchange, ws string) ([]string, bool, error) {
		r, err := x.FetchFeedback(ws, assignment)
		if err != nil {
			return nil, false, err
		}
		return r.Lines(), len(r.Files) > 0, nil
	})
}

// Status shows where the assignment stands for you (see Exchange.Status).
func Status(assignment string) error {
	return cell("status", assignment, func(x Exchange, ws string) ([]string, bool, error) {
		r, err := x.Status(ws, assignment)
		if err != nil {
			return nil, false, err
		}
		return r.Lines(), r.Released, nil
	})
}

// cell runs op for a cell helper and displays its lines or its error.
func cell(what, assignment string, op func(Exchange, string) ([]string, bool, error)) error {
	if err := refuseGrading(nil); err != nil {
		show(what, []string{err.Error()}, false)
		return err
	}
	ws, err := cellWorkspace(assignment)
	if err != nil {
		show(what, []string{err.Error()}, false)
		return err
	}
	lines, ok, err := op(FromEnv(), ws)
	if err != nil {
		show(what, []string{errorText(err)}, false)
		return err
	}
	show(what, lines, ok)
	return nil
}

// cellWorkspace is the directory that holds the assignment's directory.
func cellWorkspace(assignment string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if filepath.Base(wd) == assignment {
		return filepath.Dir(wd), nil
	}
	return wd, nil
}

// errorText is the error as a student should read it.
func errorText(err error) string {
	if errors.Is(err, ErrNoExchange) {
		return err.Error() + " (in the lab, the exchange comes from " + RootEnv + " and " + CourseEnv + ")"
	}
	return err.Error()
}

// HTML renders a status box: a title and lines, green when ok, red when not.
// Every line is escaped.
func HTML(title string, lines []string, ok bool) string {
	color := "#b00020"
	if ok {
		color = "#1b7f3b"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="agx-exchange" style="border-left:4px solid %s;padding:2px 8px"><b style="color:%s">%s</b>`, color, color, html.EscapeString(title))
	for _, l := range lines {
		fmt.Fprintf(&b, `<div>%s</div>`, html.EscapeString(l))
	}
	b.WriteString(`</div>`)
	return b.String()
}

func show(what string, lines []string, ok bool) {
	title := "agx " + what
	_ = nb.Display(map[string]string{
		"text/html":  HTML(title, lines, ok),
		"text/plain": title + ": " + strings.Join(lines, "\n  "),
	})
}
