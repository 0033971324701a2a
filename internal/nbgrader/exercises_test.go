package nbgrader

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/grade"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/notebook"
)

// exercisesDir holds the instructor sources of the course's graded exercises.
const exercisesDir = "../../notebooks/exercises"

// wantExercises are the exercise notebooks that must exist.
var wantExercises = []string{
	"attention.ipynb", "batchnorm.ipynb", "gelu.ipynb", "knowledge-check.ipynb",
	"sigmoid-linear.ipynb", "silu.ipynb", "soft-rank.ipynb",
}

func exerciseSources(t *testing.T) map[string]*notebook.Notebook {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(exercisesDir, "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	nbs := map[string]*notebook.Notebook{}
	for _, p := range paths {
		nb, err := notebook.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		nbs[filepath.Base(p)] = nb
	}
	for _, name := range wantExercises {
		if nbs[name] == nil {
			t.Errorf("missing exercise %s", name)
		}
	}
	return nbs
}

// TestExerciseSources checks every instructor source statically: it passes
// Validate and Release, uses the Go (agx) kernel, has its outputs cleared,
// gives every exercise an answer cell with a solution and hidden tests, and
// its student version contains no solution and no hidden test.
func TestExerciseSources(t *testing.T) {
	for name, nb := range exerciseSources(t) {
		t.Run(name, func(t *testing.T) {
			if err := Validate(nb); err != nil {
				t.Fatalf("Validate:\n%v", err)
			}
			var ks struct{ Name, Language string }
			if err := json.Unmarshal(nb.Metadata["kernelspec"], &ks); err != nil || ks.Name != "agx-go" || ks.Language != "go" {
				t.Errorf("kernelspec %s, want name agx-go, language go", nb.Metadata["kernelspec"])
			}
			hidden, solutions, tests := 0, 0, 0
			for i, c := range nb.Cells {
				if c.ID == "" {
					t.Errorf("cell %d has no id", i)
				}
				if len(c.Outputs) > 0 || c.ExecutionCount != nil {
					t.Errorf("cell %d has outputs or an execution count: clear them", i)
				}
				m, _ := Get(c)
				switch m.Kind() {
				case KindSolution:
					solutions++
					if !HasSolution(c.Source) {
						t.Errorf("answer cell %d (%s) has no BEGIN SOLUTION region", i, m.GradeID)
					}
				case KindTest:
					tests++
					if HasHiddenTests(c.Source) {
						hidden++
					}
					if !(m.Points > 0) {
						t.Errorf("test cell %d (%s) has no points", i, m.GradeID)
					}
				}
			}
			if solutions == 0 || tests == 0 || hidden == 0 {
				t.Errorf("%d answer cells, %d test cells, %d with hidden tests: want at least one of each", solutions, tests, hidden)
			}
			student, _, err := Release(nb)
			if err != nil {
				t.Fatalf("Release: %v", err)
			}
			for i, c := range student.Cells {
				if HasSolution(c.Source) || HasHiddenTests(c.Source) || strings.Contains(c.Source, "g.Hidden()") {
					t.Errorf("student cell %d still holds a solution or hidden tests:\n%s", i, c.Source)
				}
			}
		})
	}
}

// TestExerciseNotebooks runs every instructor source and its student version
// through the Go kernel: the source must score full marks in every test cell
// with no error output anywhere; the student version (solutions stubbed,
// hidden tests removed) must run to the end, every test cell still reporting
// its result, and score nothing.
func TestExerciseNotebooks(t *testing.T) {
	ctx, cancel := needKernel(t, 15*time.Minute)
	defer cancel()
	// The group returns when its parallel subtests are done, before cancel.
	t.Run("run", func(t *testing.T) {
		for name, src := range exerciseSources(t) {
			student, _, err := Release(src)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, v := range []struct {
				kind string
				nb   *notebook.Notebook
			}{{"source", src}, {"student", student}} {
				t.Run(strings.TrimSuffix(name, ".ipynb")+"/"+v.kind, func(t *testing.T) {
					t.Parallel() // -parallel (GOMAXPROCS by default) kernels at a time
					runExercise(ctx, t, src, v.nb, v.kind == "student")
				})
			}
		}
	})
}

// runExercise executes nb and checks the grade results of its test cells
// against the points in the source src.
func runExercise(ctx context.Context, t *testing.T, src, nb *notebook.Notebook, student bool) {
	path := filepath.Join(t.TempDir(), "exercise.ipynb")
	if err := notebook.Write(path, nb); err != nil {
		t.Fatal(err)
	}
	res, err := jupyter.Execute(ctx, path, jupyter.Options{Kernel: e2eKernel(), CellTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatalf("run failed: %v", res.Err)
	}
	for _, cr := range res.Cells {
		if !cr.Ran {
			t.Errorf("cell %d did not run: %s", cr.Index, cr.Skipped)
		}
	}
	t.Logf("ran in %.1fs", res.Seconds)
	for i, c := range res.Notebook.Cells {
		m, _ := Get(src.Cells[i])
		var results []*grade.Result
		for _, o := range c.Outputs {
			if o.OutputType == notebook.ErrorOutput || (o.OutputType == notebook.Stream && o.Name == "stderr") {
				t.Errorf("cell %d (%s): %s output: %s %s %s", i, m.GradeID, o.OutputType, o.Ename, o.Evalue, o.Text)
			}
			if raw, ok := o.Data[grade.MIMEType]; ok {
				r, err := grade.ParseOutput(raw)
				if err != nil {
					t.Fatalf("cell %d: %v", i, err)
				}
				results = append(results, r)
			}
		}
		if m.Kind() != KindTest {
			if len(results) > 0 {
				t.Errorf("cell %d (%s) is not a test cell but reports a grade result", i, m.GradeID)
			}
			continue
		}
		if len(results) != 1 {
			t.Errorf("test cell %d (%s): %d grade results, want 1", i, m.GradeID, len(results))
			continue
		}
		r := results[0]
		if r.GradeID != m.GradeID {
			t.Errorf("test cell %d reports grade_id %q, want %q", i, r.GradeID, m.GradeID)
		}
		switch {
		case !student && (r.Score != m.Points || r.MaxScore != m.Points || !r.Passed()):
			t.Errorf("%s: %v / %v points, want %v / %v:\n%s", m.GradeID, r.Score, r.MaxScore, m.Points, m.Points, failures(r))
		case student && (r.Score != 0 || r.MaxScore > m.Points):
			t.Errorf("%s (student version): %v / %v points, want 0 of at most %v", m.GradeID, r.Score, r.MaxScore, m.Points)
		case student:
			for _, ch := range r.Checks {
				if ch.Status == grade.Pass || ch.Hidden {
					t.Errorf("%s (student version): check %q: status %s, hidden %v", m.GradeID, ch.Name, ch.Status, ch.Hidden)
				}
			}
		}
	}
}

func failures(r *grade.Result) string {
	var b strings.Builder
	for _, c := range r.Checks {
		if !c.Passed {
			fmt.Fprintf(&b, "  %s: %s: %s\n", c.Name, c.Status, c.Message)
		}
	}
	return b.String()
}

// TestExerciseTable checks the table of the course exercises in
// docs/grading.md against the sources: every exercise listed, each graded
// cell with its points (optional ones marked), and the maximum.
func TestExerciseTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/grading.md")
	if err != nil {
		t.Fatal(err)
	}
	const header = "| notebook | examples | graded cells (points) | maximum |"
	text := string(doc)
	i := strings.Index(text, header)
	if i < 0 {
		t.Fatalf("docs/grading.md has no line %q", header)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(text[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		f := strings.Split(strings.Trim(line, "|"), "|")
		if len(f) != 4 {
			t.Fatalf("row %q has %d columns", line, len(f))
		}
		for k := range f {
			f[k] = strings.TrimSpace(f[k])
		}
		rows[f[0]+".ipynb"] = f
	}
	for name, nb := range exerciseSources(t) {
		row, ok := rows[name]
		if !ok {
			t.Errorf("docs/grading.md's table lacks %s", name)
			continue
		}
		delete(rows, name)
		want, max := map[string]string{}, 0.0
		for _, c := range nb.Cells {
			m, err := Get(c)
			if err != nil || m == nil || !m.Grade {
				continue
			}
			v := fmt.Sprint(m.Points)
			if IsBonus(c) {
				v += ", optional"
			} else {
				max += m.Points
			}
			want[m.GradeID] = v
		}
		got, err := parseCellList(row[2])
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: the table lists %v, the source has %v", name, got, want)
		}
		if row[3] != fmt.Sprint(max) {
			t.Errorf("%s: the table's maximum is %s, the source's %g", name, row[3], max)
		}
	}
	for name := range rows {
		t.Errorf("docs/grading.md's table lists %s, which is not an exercise", name)
	}
}

// parseCellList reads "a (3), b (2, optional), q1–q3, c1 (1 each)": grade
// ids with their points, a range of numbered ids, and a trailing "(N each)"
// for the ids without points of their own.
func parseCellList(s string) (map[string]string, error) {
	out := map[string]string{}
	each := ""
	if j := strings.LastIndex(s, " each)"); j >= 0 && strings.HasSuffix(s, " each)") {
		k := strings.LastIndex(s, "(")
		each, s = s[k+1:j], strings.TrimSpace(s[:k])
	}
	var pending []string
	for _, item := range splitTop(s) {
		pts := each
		if k := strings.Index(item, " ("); k >= 0 && strings.HasSuffix(item, ")") {
			item, pts = item[:k], item[k+2:len(item)-1]
		}
		ids := []string{item}
		if a, b, ok := strings.Cut(item, "–"); ok {
			pa, na := splitNum(a)
			pb, nb := splitNum(b)
			if pa != pb || na < 0 || nb < na {
				return nil, fmt.Errorf("bad range %q", item)
			}
			ids = nil
			for n := na; n <= nb; n++ {
				ids = append(ids, fmt.Sprintf("%s%d", pa, n))
			}
		}
		if pts == "" {
			pending = append(pending, ids...)
			continue
		}
		for _, id := range ids {
			out[id] = pts
		}
	}
	if len(pending) > 0 {
		return out, fmt.Errorf("no points for %v", pending)
	}
	return out, nil
}

// splitTop splits s at the commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// splitNum splits "quiz-12" into "quiz-" and 12 (-1 without a number).
func splitNum(s string) (string, int) {
	k := len(s)
	for k > 0 && s[k-1] >= '0' && s[k-1] <= '9' {
		k--
	}
	n := -1
	if k < len(s) {
		fmt.Sscan(s[k:], &n)
	}
	return s[:k], n
}
