package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/autograde"
)

// TestGradebookMerge merges two slices from the command line and refuses a
// third that graded another submission of the same student.
func TestGradebookMerge(t *testing.T) {
	root := t.TempDir()
	entry := func(student, sub string) *autograde.Entry {
		return &autograde.Entry{Version: autograde.EntryVersion, Student: student, SubmissionSHA256: sub, SourceSHA256: "src",
			Status: autograde.Graded, Score: 1, AutoScore: 1, MaxScore: 1,
			Cells: []*autograde.CellGrade{{GradeID: "t", Points: 1, AutoPoints: 1, MaxPoints: 1}}}
	}
	for slice, e := range map[string]*autograde.Entry{"s0": entry("alice", "a"), "s1": entry("bob", "b"), "late": entry("bob", "b2")} {
		dir := filepath.Join(root, slice)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := autograde.WriteEntry(dir, e); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	out := filepath.Join(root, "gb")
	if code := agxMain(context.Background(), []string{"gradebook", "merge", "-o", out, filepath.Join(root, "s0"), filepath.Join(root, "s1")}, &stdout, &stderr); code != 0 {
		t.Fatalf("status %d: %s", code, stderr.String())
	}
	b, _ := os.ReadFile(filepath.Join(out, autograde.ClassFile))
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
