package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// exerciseSource is the GELU exercise: the one in notebooks/exercises when
// it exists, else the nbgrader test data.
func exerciseSource(t *testing.T) string {
	for _, p := range []string{"../../notebooks/exercises/gelu.ipynb", "../../internal/nbgrader/testdata/gelu.ipynb"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("no GELU exercise")
	return ""
}

// writeClass writes n submissions of the source as DIR/studentNN/NAME.ipynb,
// or in nbgrader's layout DIR/studentNN/ps1/NAME.ipynb for odd NN: every
// third solved, every third the untouched student version, the rest with the
// solutions and one answer cell left as released.
func writeClass(t *testing.T, source string, n int) string {
	t.Helper()
	src, err := notebook.Read(source)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var answers []int
	for i, c := range src.Cells {
		if m, _ := nbgrader.Get(c); m != nil && m.Solution {
			answers = append(answers, i)
		}
	}
	for k := range n {
		nb, _, err := nbgrader.Release(src)
		if err != nil {
			t.Fatal(err)
		}
		if k%3 != 1 {
			for j, i := range answers {
				if k%3 == 2 && j == len(answers)-1 {
					break // leave the last answer as released
				}
				var lines []string
				for l := range strings.Lines(src.Cells[i].Source) {
					if !nbgrader.HasSolution(l) {
						lines = append(lines, l)
					}
				}
				nb.Cells[i].Source = strings.Join(lines, "")
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("student%02d", k), filepath.Base(source))
		if k%2 == 1 {
			p = filepath.Join(dir, fmt.Sprintf("student%02d", k), "ps1", filepath.Base(source))
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := notebook.Write(p, nb); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// timings matches the fields of a gradebook entry that change from run to
// run: the measured seconds.
var timings = regexp.MustCompile(`"seconds": [0-9.e+-]+`)

// gradeClass grades a class of n copies twice, into two gradebooks, and
// checks that they agree (timings aside) and that the progress display
// reported every student.
func gradeClass(t *testing.T, n, jobs int) {
	source := exerciseSource(t)
	class := writeClass(t, source, n)
	var books []string
	for run := range 2 {
		dir := t.TempDir()
		books = append(books, dir)
		var stdout, stderr bytes.Buffer
		code := agxMain(context.Background(), []string{"autograde", "--kernel", testKernel(), "--source", source,
			"-o", dir, "-j", fmt.Sprint(jobs), class}, &stdout, &stderr)
		t.Logf("run %d:\n%s%s", run+1, stderr.String(), stdout.String())
		if code != 0 {
			t.Fatalf("exit status %d", code)
		}
		for k := range n {
			if !strings.Contains(stderr.String(), fmt.Sprintf("student%02d ", k)) {
				t.Errorf("the progress display does not mention student%02d", k)
			}
		}
		if !strings.Contains(stderr.String(), fmt.Sprintf("/%d] ", n)) {
			t.Errorf("no progress counter in:\n%s", stderr.String())
		}
	}
	a, _ := os.ReadFile(filepath.Join(books[0], "grades.csv"))
	b, _ := os.ReadFile(filepath.Join(books[1], "grades.csv"))
	if !bytes.Equal(a, b) {
		t.Errorf("grades.csv differs between runs:\n%s\n%s", a, b)
	}
	lines := strings.Split(strings.TrimSpace(string(a)), "\n")
	if len(lines) != n+1 {
		t.Fatalf("grades.csv has %d rows, want %d", len(lines)-1, n)
	}
	// The maximum is the sum of the source's test-cell points, bonus cells
	// (metadata.agx.bonus) left out; solved copies get all the points, the
	// bonus too, untouched student versions nothing, and copies with the
	// last answer left out something in between.
	src, err := notebook.Read(source)
	if err != nil {
		t.Fatal(err)
	}
	maxPoints, allPoints := 0.0, 0.0
	for _, c := range src.Cells {
		if m, _ := nbgrader.Get(c); m != nil && m.Grade {
			var agx struct{ Bonus bool }
			if raw, ok := c.Metadata["agx"]; !ok || json.Unmarshal(raw, &agx) != nil || !agx.Bonus {
				maxPoints += m.Points
			}
			allPoints += m.Points
		}
	}
	max, all := fmt.Sprint(maxPoints), fmt.Sprint(allPoints)
	for k, row := range lines[1:] {
		f := strings.Split(row, ",")
		if len(f) < 4 || f[1] != "graded" || f[3] != max {
			t.Errorf("row %q: want graded out of %s", row, max)
			continue
		}
		switch k % 3 {
		case 0:
			if f[2] != all {
				t.Errorf("row %q: a solved copy should score %s", row, all)
			}
		case 1:
			if f[2] != "0" {
				t.Errorf("row %q: the untouched student version should score 0", row)
			}
		default:
			if f[2] == "0" || f[2] == all {
				t.Errorf("row %q: a copy missing its last answer should score strictly between 0 and %s", row, all)
			}
		}
	}
	for k := range n {
		name := fmt.Sprintf("student%02d.json", k)
		a, errA := os.ReadFile(filepath.Join(books[0], name))
		b, errB := os.ReadFile(filepath.Join(books[1], name))
		if errA != nil || errB != nil {
			t.Fatalf("%v %v", errA, errB)
		}
		var e struct{ Status string }
		if err := json.Unmarshal(a, &e); err != nil || e.Status != "graded" {
			t.Errorf("%s: status %q (%v)", name, e.Status, err)
		}
		if timings.ReplaceAllString(string(a), "") != timings.ReplaceAllString(string(b), "") {
			t.Errorf("%s differs between runs (timings aside):\n%s\n%s", name, a, b)
		}
	}

	// Feedback for the whole class.
	var stdout, stderr bytes.Buffer
	fb := t.TempDir()
	if code := agxMain(context.Background(), []string{"feedback", books[0], "-o", fb}, &stdout, &stderr); code != 0 {
		t.Fatalf("feedback: %d\n%s", code, stderr.String())
	}
	page, err := os.ReadFile(filepath.Join(fb, "student01.html"))
	if err != nil {
		t.Fatal(err)
	}
	// The untouched student version scores nothing; hidden checks are listed
	// by name but their messages are withheld.
	if !strings.Contains(string(page), "Total: 0 / "+max) || !strings.Contains(string(page), "(hidden test)") ||
		!strings.Contains(string(page), `<span class="muted">hidden test</span>`) {
		t.Errorf("student01.html:\n%s", page)
	}

	// The same pages in nbgrader's feedback layout.
	nbfb := t.TempDir()
	if code := agxMain(context.Background(), []string{"feedback", books[0], "-o", nbfb, "--nbgrader", "ps1"}, &stdout, &stderr); code != 0 {
		t.Fatalf("feedback --nbgrader: %d\n%s", code, stderr.String())
	}
	name := strings.TrimSuffix(filepath.Base(source), ".ipynb") + ".html"
	if b, err := os.ReadFile(filepath.Join(nbfb, "student01", "ps1", name)); err != nil || !bytes.Equal(b, page) {
		t.Errorf("nbgrader layout: %v", err)
	}
}

// TestAutogradeClass grades a class of 6 GELU submissions twice.
func TestAutogradeClass(t *testing.T) {
	needJupyter(t)
	gradeClass(t, 6, 3)
}

// TestAutogradeFullClass grades 30 copies (set AGX_TEST_FULL_CLASS=1; it
// takes minutes on a small machine).
func TestAutogradeFullClass(t *testing.T) {
	if os.Getenv("AGX_TEST_FULL_CLASS") == "" {
		t.Skip("skipping: set AGX_TEST_FULL_CLASS=1 to grade a class of 30 twice")
	}
	needJupyter(t)
	gradeClass(t, 30, 4)
}

func TestAutogradeUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no source", []string{"autograde", "-o", "x", "a.ipynb"}, "--source is required"},
		{"no dir", []string{"autograde", "--source", "s.ipynb", "a.ipynb"}, "-o GRADEBOOK_DIR is required"},
		{"no submissions", []string{"autograde", "--source", "s.ipynb", "-o", "x"}, "no submissions given"},
		{"bad net", []string{"autograde", "--source", "s.ipynb", "-o", "x", "--net", "wifi", "a.ipynb"}, "--net must be"},
		{"bad isolation", []string{"autograde", "--source", "s.ipynb", "-o", "x", "--isolation", "none", "a.ipynb"}, "--isolation must be strict or best-effort"},
		{"docker best-effort", []string{"autograde", "--source", "s.ipynb", "-o", "x", "--docker", "img", "--isolation", "best-effort", "a.ipynb"}, "does not apply"},
		{"docker memory", []string{"autograde", "--source", "s.ipynb", "-o", "x", "--docker", "img", "--docker-memory", "100", "a.ipynb"}, "--docker-memory must be at least 256 MiB"},
		{"container args", []string{"autograde-container", "x"}, "takes no arguments"},
		{"feedback without -o", []string{"feedback", "gb"}, "-o DIR is required"},
		{"feedback to a path", []string{"feedback", "gb", "-o", "fb", "--nbgrader", "../ps1"}, "--nbgrader wants an assignment name"},
		{"gradebook without a subcommand", []string{"gradebook", "-o", "gb", "s0"}, "want a subcommand: merge"},
		{"merge without -o", []string{"gradebook", "merge", "s0", "s1"}, "-o GRADEBOOK_DIR is required"},
		{"merge of nothing", []string{"gradebook", "merge", "-o", "gb"}, "no gradebooks to merge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := agxMain(context.Background(), tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("status %d, stderr %q; want 2 and %q", code, stderr.String(), tc.want)
			}
		})
	}
}
