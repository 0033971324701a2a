package autograde

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbtest"
)

// TestDiagnostics grades submissions whose problems must be told right: a
// compile error in the answer (the compiler's message, not "exit status 1"),
// a file that is not JSON (the student's side, not the grader's), another
// assignment's notebook (not a forgery), a panic with terminal colours (no
// escapes kept) and an edited test cell (a note in the class table).
func TestDiagnostics(t *testing.T) {
	needKernel(t)
	// A flag the grading kernel drops (a user's go env often carries it) must
	// not add words to the cell's output ahead of the compiler's message.
	t.Setenv("GOFLAGS", "-buildvcs=false")
	const source = "testdata/double.ipynb"
	src := nbtest.ReadNB(t, source)
	in, dir := t.TempDir(), t.TempDir()
	compile := nbtest.Release(t, src)
	nbtest.CellByID(t, compile, "double-code").Source = "func Double(x float64) float64 { return \"two\" }"
	colours := nbtest.Release(t, src)
	nbtest.CellByID(t, colours, "double-code").Source = "func Double(x float64) float64 { panic(\"\\x1b[31mred alert\\x1b[0m\") }"
	edited := nbtest.Solved(t, src)
	nbtest.CellByID(t, edited, "double-test").Source = "%%\nfmt.Println(\"no tests here\")"
	invalid := filepath.Join(in, "invalid.ipynb")
	if err := os.WriteFile(invalid, []byte(`{"cells": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	subs := []Submission{
		writeNB(t, in, "compile", compile),
		writeNB(t, in, "colours", colours),
		writeNB(t, in, "edited", edited),
		writeNB(t, in, "wrong", nbtest.Release(t, nbtest.ReadNB(t, "../nbgrader/testdata/gelu.ipynb"))),
		{Student: "invalid", Path: invalid},
	}
	opt := testOptions(source, dir)
	opt.Log = testWriter{t}
	sum, err := Grade(context.Background(), opt, subs)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Invalid != 2 || sum.Ungradable != 0 {
		t.Errorf("%d invalid, %d ungradable; want 2 and 0", sum.Invalid, sum.Ungradable)
	}
	by := map[string]*gradebook.Entry{}
	for _, e := range sum.Entries {
		by[e.Student] = e
	}
	for _, tc := range []struct {
		student, status, cell, cellStatus string
		want                              []string // substrings of the entry's JSON
		notWant                           []string
	}{
		{"compile", gradebook.Graded, "double-test", gradebook.StatusError,
			[]string{`your cell double-code failed: Cell[`, `cannot use \"two\" (untyped string constant) as float64 value in return statement`, "undefined: Double"},
			nil},
		{"colours", gradebook.Graded, "double-test", gradebook.StatusFailed, []string{"red alert"}, []string{`\u001b`, "[31m"}},
		{"edited", gradebook.Graded, "double-test", gradebook.StatusPassed, []string{"double-test was edited; restored"}, nil},
		{"wrong", gradebook.WrongNotebook, "double-test", gradebook.StatusNotRun, []string{"not the notebook double.ipynb", "gelu-forward"}, []string{gradebook.FlagForged, "grading side"}},
		{"invalid", gradebook.Unreadable, "double-test", gradebook.StatusNotRun, []string{"not a readable notebook"}, []string{"grading side"}},
	} {
		t.Run(tc.student, func(t *testing.T) {
			e := by[tc.student]
			if e == nil {
				t.Fatal("no entry")
			}
			if e.Status != tc.status {
				t.Errorf("status %s (%s), want %s", e.Status, e.UngradableReason, tc.status)
			}
			for _, c := range e.Cells {
				if c.GradeID == tc.cell && c.Status != tc.cellStatus {
					t.Errorf("%s: %s %q, want %s", c.GradeID, c.Status, c.Messages, tc.cellStatus)
				}
			}
			b, err := os.ReadFile(gradebook.EntryPath(dir, tc.student))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("the entry lacks %q:\n%s", w, b)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(string(b), w) {
					t.Errorf("the entry has %q:\n%s", w, b)
				}
			}
		})
	}
	b, _ := os.ReadFile(filepath.Join(dir, gradebook.ClassFile))
	for _, w := range []string{"edited,graded,2,3,2,0,,locked cell double-test was edited; restored from the source", `wrong,wrong_notebook,0,3,0,0,,"wrong_notebook: this is not the notebook double.ipynb`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("%s lacks %q:\n%s", gradebook.ClassFile, w, b)
		}
	}
	page := gradebook.FeedbackHTML(by["compile"])
	if !strings.Contains(page, "cannot use &#34;two&#34;") {
		t.Errorf("the feedback page does not show the compile error:\n%s", page)
	}
}
