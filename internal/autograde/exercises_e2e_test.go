package autograde

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/nbtest"
)

// TestExercises autogrades every course exercise (notebooks/exercises/)
// with two submissions: the student version with the instructor's solutions
// typed in gets every point of every test cell and no flag, and the student
// version as released (nothing answered) gets no point and no flag. One
// Grade call per exercise, for both.
func TestExercises(t *testing.T) {
	needKernel(t)
	sources, err := filepath.Glob("../../notebooks/exercises/*.ipynb")
	if err != nil || len(sources) == 0 {
		t.Fatalf("no exercises: %v", err)
	}
	for _, source := range sources {
		t.Run(filepath.Base(source), func(t *testing.T) {
			src := nbtest.ReadNB(t, source)
			in, dir := t.TempDir(), t.TempDir()
			subs := []Submission{writeNB(t, in, "solved", nbtest.Solved(t, src)), writeNB(t, in, "blank", nbtest.Release(t, src))}
			opt := testOptions(source, dir)
			opt.CellTimeout = time.Minute
			opt.Timeout = 10 * time.Minute
			start := time.Now()
			sum, err := Grade(context.Background(), opt, subs)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("graded in %v", time.Since(start).Round(time.Second))
			for _, e := range sum.Entries {
				checkEntry(t, e, want{score: e.Score, noFlag: true, toEnd: true})
				tests := 0
				for _, c := range e.Cells {
					if c.Kind != nbgrader.KindTest {
						continue
					}
					tests++
					switch {
					case e.Student == "solved" && (c.Status != gradebook.StatusPassed || c.Points != c.MaxPoints):
						t.Errorf("solved: %s is %s with %v of %v points: %v %+v", c.GradeID, c.Status, c.Points, c.MaxPoints, c.Messages, c.Checks)
					case e.Student == "blank" && c.Points != 0:
						t.Errorf("blank: %s has %v points (%s)", c.GradeID, c.Points, c.Status)
					}
				}
				if tests == 0 {
					t.Errorf("%s: no test cells graded", e.Student)
				}
			}
		})
	}
}

// TestForbiddenBuiltin grades the GELU exercise answered with the built-in
// its checks compare with (Tensor.GELU): the exercise's metadata.agx.forbid
// flags it, and no test cell gets a point.
func TestForbiddenBuiltin(t *testing.T) {
	needKernel(t)
	const source = "../../notebooks/exercises/gelu.ipynb"
	src := nbtest.ReadNB(t, source)
	nb := nbtest.Solved(t, src)
	code := nbtest.CellByID(t, nb, "gelu-code")
	const helper = "func gelu(x *agx.Tensor) *agx.Tensor { return agx.Apply(GELUFunction{}, x) }"
	if !strings.Contains(code.Source, helper) {
		t.Fatalf("the gelu-code cell no longer has %q; update this test", helper)
	}
	code.Source = strings.Replace(code.Source, helper, "func gelu(x *agx.Tensor) *agx.Tensor { return x.GELU() }", 1)
	in, dir := t.TempDir(), t.TempDir()
	opt := testOptions(source, dir)
	opt.CellTimeout = time.Minute
	sum, err := Grade(context.Background(), opt, []Submission{writeNB(t, in, "builtin", nb)})
	if err != nil {
		t.Fatal(err)
	}
	e := sum.Entries[0]
	checkEntry(t, e, want{score: 0, flags: []string{gradebook.FlagForbidden}, toEnd: true})
	for _, c := range e.Cells {
		if c.Kind == nbgrader.KindTest && (c.Points != 0 || c.Status != gradebook.StatusRejected) {
			t.Errorf("%s: %s with %v points, want rejected with none", c.GradeID, c.Status, c.Points)
		}
	}
}
