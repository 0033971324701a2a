package gradebook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOverrides(t *testing.T) {
	dir := t.TempDir()
	csv := "student,grade_id,points,comment\nalice,explain,1,\"clear, and short\"\nbob,double-test,0.5\n"
	if err := os.WriteFile(filepath.Join(dir, OverridesFile), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	ov, err := ReadOverrides(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := &Entry{Student: "alice", Status: Graded, Cells: []*CellGrade{
		{GradeID: "double-test", AutoPoints: 2, MaxPoints: 2},
		{GradeID: "explain", MaxPoints: 1, Status: StatusManual},
	}}
	if unused := e.ApplyOverrides(ov["alice"]); len(unused) != 0 {
		t.Errorf("unused overrides %v", unused)
	}
	if e.Score != 3 || e.AutoScore != 2 || e.MaxScore != 3 || e.Cells[1].Override.Comment != "clear, and short" {
		t.Errorf("after overrides: %+v %+v", e, e.Cells[1].Override)
	}
	if unused := e.ApplyOverrides(ov["bob"]); e.Score != 0.5 || len(unused) != 0 {
		t.Errorf("bob's override: score %v, unused %v", e.Score, unused)
	}
	if unused := e.ApplyOverrides(map[string]Override{"nope": {Points: 1}}); e.Score != 2 || strings.Join(unused, ",") != "nope" {
		t.Errorf("unknown grade_id: score %v, unused %v", e.Score, unused)
	}

	for _, bad := range []string{"a,b\n", "alice,explain,-1\n", "alice,explain,lots\n"} {
		if err := os.WriteFile(filepath.Join(dir, OverridesFile), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadOverrides(dir); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestClassTable(t *testing.T) {
	dir := t.TempDir()
	entries := []*Entry{
		{Student: "alice", Status: Graded, Score: 2.5, MaxScore: 3, Cells: []*CellGrade{{GradeID: "a", Points: 2}, {GradeID: "b", Points: 0.5}},
			Flags: []Flag{{Kind: FlagInit}, {Kind: FlagExit}, {Kind: FlagInit}},
			Notes: []string{"test cell a was deleted; re-added from the source", "locked cell b was edited; restored from the source"}},
		{Student: "bob", Status: Ungradable, UngradableReason: "no kernel\nmore", MaxScore: 3, Cells: []*CellGrade{{GradeID: "a"}, {GradeID: "b"}}},
		{Student: "carol", Status: WrongNotebook, UngradableReason: "this is not gelu.ipynb", MaxScore: 3, Cells: []*CellGrade{{GradeID: "a"}, {GradeID: "b"}}},
	}
	if err := WriteClassTable(dir, entries); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ClassFile))
	want := "student,status,total,max,a,b,flags,notes\n" +
		"alice,graded,2.5,3,2,0.5,init(2) os_exit,test cell a was deleted; re-added from the source | locked cell b was edited; restored from the source\n" +
		"bob,ungradable,0,3,0,0,,ungradable: no kernel\n" +
		"carol,wrong_notebook,0,3,0,0,,wrong_notebook: this is not gelu.ipynb\n"
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func TestFeedbackHTML(t *testing.T) {
	e := &Entry{Student: "eve", Notebook: "gelu.ipynb", Status: Graded, Score: 1, MaxScore: 3, Cells: []*CellGrade{{
		GradeID: "gelu-forward", Points: 1, MaxPoints: 3, Status: StatusPartial, Checks: []Check{
			{Name: "<b>visible</b>", Points: 1, Max: 1, Status: "pass"},
			{Name: "secret name", Max: 2, Status: "fail", Hidden: true, Message: "SECRET hidden message"},
		}}, {GradeID: "quiz", MaxPoints: 1, Status: StatusError, HasHidden: true, Messages: []string{"HIDDEN SOURCE LINE"}}},
		Flags: []Flag{{Kind: FlagForged, Cell: "cell 3", Message: "<script>alert(1)</script>"}}}
	// A visible check of a cell with hidden tests: its message can quote
	// the program's source, which holds the hidden tests.
	e.Cells = append(e.Cells, &CellGrade{GradeID: "gelu-backward", MaxPoints: 2, Status: StatusFailed, HasHidden: true, Checks: []Check{
		{Name: "visible panic", Max: 1, Status: "error", Message: "panic: HIDDEN TEST SOURCE"},
		{Name: "visible fail", Max: 1, Status: "fail", Message: "got HIDDEN TEST SOURCE"},
	}})
	h := FeedbackHTML(e)
	for _, bad := range []string{"<script>", "<b>visible", "SECRET", "HIDDEN SOURCE", "HIDDEN TEST SOURCE"} {
		if strings.Contains(h, bad) {
			t.Errorf("feedback contains %q", bad)
		}
	}
	for _, want := range []string{"&lt;b&gt;visible&lt;/b&gt;", "secret name <i>(hidden test)</i>", "Total: 1 / 3", "&lt;script&gt;", "0 / 2"} {
		if !strings.Contains(h, want) {
			t.Errorf("feedback lacks %q", want)
		}
	}
}

// TestFeedbackBlame: each status that is not graded tells the student whose
// side the problem is on.
func TestFeedbackBlame(t *testing.T) {
	for _, tc := range []struct {
		status, want, notWant string
	}{
		{Ungradable, "a problem on the grading side", "could not be read as a notebook"},
		{Unreadable, "could not be read as a notebook", "grading side"},
		{WrongNotebook, "not the one of this assignment", "grading side"},
	} {
		h := FeedbackHTML(&Entry{Student: "s", Notebook: "gelu.ipynb", Status: tc.status, UngradableReason: "REASON"})
		if !strings.Contains(h, tc.want) || strings.Contains(h, tc.notWant) {
			t.Errorf("%s: page lacks %q or has %q:\n%s", tc.status, tc.want, tc.notWant, h)
		}
	}
	h := FeedbackHTML(&Entry{Student: "s", Status: Graded, Cells: []*CellGrade{{GradeID: "t", MaxPoints: 2, Status: StatusError, HasHidden: true,
		Messages: []string{"HIDDEN"}, AnswerErrors: []string{"your cell double-code failed: cannot use x"}}}})
	if !strings.Contains(h, "your cell double-code failed: cannot use x") || strings.Contains(h, "HIDDEN") {
		t.Errorf("a test cell with hidden tests: the answer's error must show, its own messages not:\n%s", h)
	}
}
