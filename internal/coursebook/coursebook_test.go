package coursebook

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/internal/gradebook"
)

// entry is a graded entry of notebook with its cells' points (a manual cell
// without a grade when waiting).
func entry(student, notebook string, score, max float64, status string, waiting bool) *gradebook.Entry {
	e := &gradebook.Entry{Version: gradebook.EntryVersion, Student: student, Notebook: notebook, Status: status,
		Score: score, AutoScore: score, MaxScore: max, Cells: []*gradebook.CellGrade{}, Flags: []gradebook.Flag{}, Notes: []string{}}
	if waiting {
		e.Cells = append(e.Cells, &gradebook.CellGrade{GradeID: "explain", Kind: "manual", Status: gradebook.StatusManual, MaxPoints: 1})
	}
	return e
}

func writeBook(t *testing.T, entries ...*gradebook.Entry) string {
	t.Helper()
	dir := t.TempDir()
	for _, e := range entries {
		if err := gradebook.WriteEntry(dir, e); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestPolicy(t *testing.T) {
	day := 24 * time.Hour
	for _, tc := range []struct {
		p    Policy
		late time.Duration
		want float64
	}{
		{Policy{}, 3 * day, 0},
		{Policy{Percent: 10, Period: day}, 0, 0},
		{Policy{Percent: 10, Period: day}, time.Second, 0.10},
		{Policy{Percent: 10, Period: day}, day, 0.10},
		{Policy{Percent: 10, Period: day}, day + time.Second, 0.20},
		{Policy{Percent: 10, Period: day, Cap: 25}, 5 * day, 0.25},
		{Policy{Percent: 50, Period: time.Hour}, 10 * time.Hour, 1},
	} {
		if got := tc.p.Penalty(tc.late); got != tc.want {
			t.Errorf("%+v late %v: %g, want %g", tc.p, tc.late, got, tc.want)
		}
	}
}

func TestBuild(t *testing.T) {
	hw1a := writeBook(t, entry("alice", "gelu.ipynb", 7, 7, gradebook.Graded, false), entry("bob", "gelu.ipynb", 3.5, 7, gradebook.Graded, false),
		entry("=cmd", "gelu.ipynb", 1, 7, gradebook.Graded, false))
	hw1b := writeBook(t, entry("alice", "silu.ipynb", 5, 7, gradebook.Graded, true), entry("bob", "silu.ipynb", 0, 7, gradebook.Ungradable, false))
	hw2 := writeBook(t, entry("alice", "attention.ipynb", 12, 12, gradebook.Graded, false), entry("carol", "attention.ipynb", 6, 12, gradebook.Graded, false))
	collect := filepath.Join(t.TempDir(), "collect-hw2.csv")
	if err := os.WriteFile(collect, []byte("student,timestamp,deadline,late,late_seconds,submissions,files,note\n"+
		"alice,2026-11-02T10:00:00Z,2026-11-01T00:00:00Z,true,122400,1,[],\n"+
		"carol,2026-10-31T10:00:00Z,2026-11-01T00:00:00Z,false,,1,[],\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	books := []Gradebook{{"hw1", hw1a}, {"hw1", hw1b}, {"hw2", hw2}}
	b, err := Build(books, []string{collect}, Policy{Percent: 10, Period: 24 * time.Hour, Cap: 50})
	if err != nil {
		t.Fatal(err)
	}
	if b.TotalMax != 26 || b.Max["hw1"] != 14 || b.Max["hw2"] != 12 {
		t.Errorf("maxima: %v total %g", b.Max, b.TotalMax)
	}
	want := map[string]struct {
		total float64
		notes []string
	}{
		// alice: hw1 7+5, hw2 12 late by 34 h: 2 days started, 20% off: 9.6.
		"alice": {21.6, []string{"hw1/silu.ipynb: 1 cell graded by hand without a grade yet", "hw2: late by 34h0m0s, 20% off"}},
		// bob: silu ungradable counts 0; no attention submission.
		"bob":   {3.5, []string{"hw1/silu.ipynb: ungradable (0 points)", "hw2/attention.ipynb: no submission (0 points)"}},
		"carol": {6, []string{"hw1/gelu.ipynb: no submission (0 points)", "hw1/silu.ipynb: no submission (0 points)"}},
		"=cmd":  {1, []string{"hw1/silu.ipynb: no submission (0 points)", "hw2/attention.ipynb: no submission (0 points)"}},
	}
	if len(b.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(b.Rows), len(want))
	}
	for _, r := range b.Rows {
		w := want[r.Student]
		if r.Total != w.total || strings.Join(r.Notes, "|") != strings.Join(w.notes, "|") {
			t.Errorf("%s: total %g notes %q, want %g %q", r.Student, r.Total, r.Notes, w.total, w.notes)
		}
	}

	for _, tc := range []struct {
		format string
		want   []string // lines that must appear
	}{
		{FormatGeneric, []string{
			"student,hw1/gelu.ipynb,hw1/silu.ipynb,hw1 late_penalty_percent,hw1,hw2/attention.ipynb,hw2 late_penalty_percent,hw2,total,max,percent,notes",
			"(maximum),7,7,,14,12,,12,26,26,100,",
			`alice,7,5,0,12,12,20,9.6,21.6,26,83.08,"hw1/silu.ipynb: 1 cell graded by hand without a grade yet | hw2: late by 34h0m0s, 20% off"`,
			"'=cmd,1,0,0,1,0,0,0,1,26,3.85,", // a formula neutralised
		}},
		{FormatCanvas, []string{
			"Student,ID,SIS User ID,SIS Login ID,Section,hw1,hw2",
			`"    Points Possible",,,,,14,12`,
			"alice,,,alice,,12,9.6",
			"bob,,,bob,,3.5,0",
		}},
	} {
		var buf bytes.Buffer
		if err := b.Write(&buf, tc.format); err != nil {
			t.Fatal(err)
		}
		for _, line := range tc.want {
			if !strings.Contains(buf.String(), line) {
				t.Errorf("%s: no line %q in\n%s", tc.format, line, buf.String())
			}
		}
	}
	if err := b.Write(&bytes.Buffer{}, "lms"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

func TestBuildErrors(t *testing.T) {
	gelu := writeBook(t, entry("alice", "gelu.ipynb", 7, 7, gradebook.Graded, false))
	mixed := writeBook(t, entry("alice", "gelu.ipynb", 7, 7, gradebook.Graded, false), entry("bob", "silu.ipynb", 7, 7, gradebook.Graded, false))
	dir := t.TempDir()
	badCollect := filepath.Join(dir, "collect-hw1.csv")
	os.WriteFile(badCollect, []byte("student,late\nalice,true\n"), 0o644)
	otherCollect := filepath.Join(dir, "collect-hw9.csv")
	os.WriteFile(otherCollect, []byte("student,late,late_seconds\n"), 0o644)
	for _, tc := range []struct {
		name     string
		books    []Gradebook
		collects []string
		want     string
	}{
		{"empty gradebook", []Gradebook{{"hw1", t.TempDir()}}, nil, "has no gradebook entries"},
		{"two notebooks in one", []Gradebook{{"hw1", mixed}}, nil, "entries of two notebooks"},
		{"a notebook twice", []Gradebook{{"hw1", gelu}, {"hw1", gelu}}, nil, "two gradebooks for hw1/gelu.ipynb"},
		{"bad assignment", []Gradebook{{"a/b", gelu}}, nil, "not an assignment name"},
		{"collect without its columns", []Gradebook{{"hw1", gelu}}, []string{badCollect}, "no column late_seconds"},
		{"collect of another assignment", []Gradebook{{"hw1", gelu}}, []string{otherCollect}, "no gradebook of the assignment hw9"},
		{"not a collect record", []Gradebook{{"hw1", gelu}}, []string{filepath.Join(dir, "grades.csv")}, "not a collect record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.books, tc.collects, Policy{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzReadCollect: any collect record is read or refused, never a panic.
func FuzzReadCollect(f *testing.F) {
	f.Add("student,timestamp,deadline,late,late_seconds,submissions,files,note\nalice,t,d,true,3600,1,[],\n")
	f.Add("student,late,late_seconds\nbob,true,-1\n")
	f.Add("student,late,late_seconds\nbob,true,NaN\n")
	f.Add("student,late,late_seconds\n\"a\nb\",true,1e308\n")
	f.Fuzz(func(t *testing.T, text string) {
		rows := map[string]*Row{}
		err := parseCollect(strings.NewReader(text), "collect-hw1.csv", "hw1", func(s string) *Row {
			if rows[s] == nil {
				rows[s] = &Row{Student: s, Late: map[string]float64{}}
			}
			return rows[s]
		})
		for _, r := range rows {
			if l := r.Late["hw1"]; err == nil && !(l >= 0 && l <= 1e9) {
				t.Errorf("negative lateness read: %v", r.Late)
			}
		}
	})
}
