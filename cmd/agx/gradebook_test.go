package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/gradebook"
)

// TestGradebookMerge merges two slices from the command line and refuses a
// third that graded another submission of the same student.
func TestGradebookMerge(t *testing.T) {
	root := t.TempDir()
	entry := func(student, sub string) *gradebook.Entry {
		return &gradebook.Entry{Version: gradebook.EntryVersion, Student: student, SubmissionSHA256: sub, SourceSHA256: "src",
			Status: gradebook.Graded, Score: 1, AutoScore: 1, MaxScore: 1,
			Cells: []*gradebook.CellGrade{{GradeID: "t", Points: 1, AutoPoints: 1, MaxPoints: 1}}}
	}
	for slice, e := range map[string]*gradebook.Entry{"s0": entry("alice", "a"), "s1": entry("bob", "b"), "late": entry("bob", "b2")} {
		dir := filepath.Join(root, slice)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := gradebook.WriteEntry(dir, e); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	out := filepath.Join(root, "gb")
	if code := agxMain(context.Background(), []string{"gradebook", "merge", "-o", out, filepath.Join(root, "s0"), filepath.Join(root, "s1")}, &stdout, &stderr); code != 0 {
		t.Fatalf("status %d: %s", code, stderr.String())
	}
	b, _ := os.ReadFile(filepath.Join(out, gradebook.ClassFile))
	if want := "student,status,total,max,t,flags,notes\nalice,graded,1,1,1,,\nbob,graded,1,1,1,,\n"; string(b) != want ||
		!strings.Contains(stdout.String(), "merged 2 entries from 2 gradebooks") {
		t.Errorf("grades.csv %q, stdout %q", b, stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	code := agxMain(context.Background(), []string{"gradebook", "merge", "-o", filepath.Join(root, "gb2"), filepath.Join(root, "s1"), filepath.Join(root, "late")}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "conflicting gradebook entries: bob is in") {
		t.Errorf("a conflict: status %d, stderr %q", code, stderr.String())
	}
}

// TestGradebookCourse runs agx gradebook course as an instructor would at
// the end of a term: two assignments, a late submission, a Canvas export.
func TestGradebookCourse(t *testing.T) {
	dir := t.TempDir()
	book := func(name, notebook string, scores map[string]float64, max float64) string {
		d := filepath.Join(dir, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for s, v := range scores {
			e := &gradebook.Entry{Version: gradebook.EntryVersion, Student: s, Notebook: notebook, Status: gradebook.Graded, Score: v, MaxScore: max,
				Cells: []*gradebook.CellGrade{}, Flags: []gradebook.Flag{}, Notes: []string{}}
			if err := gradebook.WriteEntry(d, e); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	hw1 := book("hw1", "gelu.ipynb", map[string]float64{"alice": 7, "bob": 5}, 7)
	hw2 := book("hw2", "silu.ipynb", map[string]float64{"alice": 7, "bob": 7}, 7)
	collect := filepath.Join(dir, "collect-hw2.csv")
	if err := os.WriteFile(collect, []byte("student,timestamp,deadline,late,late_seconds,submissions,files,note\nbob,t,d,true,3600,1,[],\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "course.csv")
	var stdout, stderr bytes.Buffer
	code := agxMain(context.Background(), []string{"gradebook", "course", "-o", out, "--format", "canvas", "--late-penalty", "10", "--collect", collect,
		"hw1=" + hw1, "hw2=" + hw2}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Student,ID,SIS User ID,SIS Login ID,Section,hw1,hw2", "alice,,,alice,,7,7", "bob,,,bob,,5,6.3"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %q in\n%s", want, b)
		}
	}
	if !strings.Contains(stdout.String(), "hw2: late by 1h0m0s, 10% off") || !strings.Contains(stdout.String(), "2 students, 2 assignments") {
		t.Errorf("stdout: %s", stdout.String())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gradebook", "course", "hw1=" + hw1}, "-o COURSE.csv is required"},
		{[]string{"gradebook", "course", "-o", out}, "no gradebooks"},
		{[]string{"gradebook", "course", "-o", out, hw1}, "want ASSIGNMENT=GRADEBOOK_DIR"},
		{[]string{"gradebook", "course", "-o", out, "--late-penalty", "150", "hw1=" + hw1}, "percents from 0 to 100"},
		{[]string{"gradebook", "course", "-o", out, "--format", "xls", "hw1=" + hw1}, "--format must be"},
	} {
		stderr.Reset()
		if code := agxMain(context.Background(), tc.args, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
