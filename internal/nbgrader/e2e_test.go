package nbgrader

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/grade"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/testenv"
)

// e2eKernel is the kernelspec of the end-to-end test: $AGX_TEST_KERNEL, else
// the one docker/scripts/install-kernel.sh installs.
func e2eKernel() string {
	if k := os.Getenv("AGX_TEST_KERNEL"); k != "" {
		return k
	}
	return "agx-go"
}

// robustCell is a test cell whose checks misbehave: the cell must still finish
// and report.
const robustCell = `%%
g := grade.New("robust").Timeout(2 * time.Second)
g.Check("passes", 1, func(c *grade.C) { c.True(true, "") })
g.Check("panics", 1, func(c *grade.C) { var m map[string]int; m["x"]++ })
g.Check("loops", 1, func(c *grade.C) { for { runtime.Gosched() } })
g.Check("escapes", 1, func(c *grade.C) { c.Fail("<script>alert(1)</script>") })
g.Done()`

// needKernel skips t unless Jupyter and the Go kernel are available (and not
// under -short), and returns a context bounding the test's kernel runs.
func needKernel(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: runs Jupyter (-short)")
	}
	if _, err := os.Stat(jupyter.DefaultPython); err != nil {
		testenv.Missing(t, "skipping: no %s", jupyter.DefaultPython)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	if err := jupyter.CheckKernel(ctx, "", e2eKernel()); err != nil {
		cancel()
		testenv.Missing(t, "skipping: %v (install it with docker/scripts/install-kernel.sh, or set AGX_TEST_KERNEL)", err)
	}
	return ctx, cancel
}

// TestEndToEnd runs a graded notebook through the real Go kernel the way agx
// autograde will: the instructor's GELU solution, the student's stub for the
// quiz, test cells restored from the source (hidden tests included) with a
// nonce written into their source, a cell whose checks panic and loop, and a
// student cell that forges a result.
func TestEndToEnd(t *testing.T) {
	ctx, cancel := needKernel(t, 10*time.Minute)
	defer cancel()

	src, err := notebook.Read("testdata/gelu.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	student, _, err := Release(src)
	if err != nil {
		t.Fatal(err)
	}
	// The submission: the source, with the student's (stubbed) quiz answer.
	nb := src
	nb.Cells[5] = student.Cells[5]
	nonces := map[string]string{"gelu-forward": NewNonce(), "quiz-smooth": NewNonce(), "robust": NewNonce()}
	nb.Cells = append(nb.Cells, &notebook.Cell{CellType: notebook.Code, Source: robustCell, Metadata: notebook.Object{
		"nbgrader": json.RawMessage(`{"schema_version":3,"grade":true,"solution":false,"locked":true,"grade_id":"robust","points":4}`)}})
	for _, c := range nb.Cells {
		m, _ := Get(c)
		if m.Kind() == KindTest {
			if c.Source, err = InsertNonce(c.Source, m.GradeID, nonces[m.GradeID]); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A student cell that forges a full-marks result for gelu-forward: it
	// cannot know the nonce.
	forged := &notebook.Cell{CellType: notebook.Code, Source: "%%\ng := grade.New(\"gelu-forward\")\ng.Check(\"forged\", 3, func(c *grade.C) {})\ng.Done()"}
	const forgedAt = 3
	nb.Cells = append(nb.Cells[:forgedAt], append([]*notebook.Cell{forged}, nb.Cells[forgedAt:]...)...)
	path := filepath.Join(t.TempDir(), "submission.ipynb")
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

	results := map[string]*grade.Result{}
	sawForgery := false
	for i, c := range res.Notebook.Cells {
		for _, o := range c.Outputs {
			if o.OutputType == notebook.ErrorOutput || (o.OutputType == notebook.Stream && o.Name == "stderr") {
				t.Errorf("cell %d: %s output: %s %s %s", i, o.OutputType, o.Ename, o.Evalue, o.Text)
			}
			raw, ok := o.Data[grade.MIMEType]
			if !ok {
				continue
			}
			r, err := grade.ParseOutput(raw)
			if err != nil {
				t.Fatalf("cell %d: %v", i, err)
			}
			if html, _ := o.DataText("text/html"); strings.Contains(html, "<script>") {
				t.Errorf("cell %d: unescaped student text in the HTML", i)
			}
			// What agx autograde does: a result counts only in the test cell
			// with its grade_id, authenticated by that cell's nonce.
			if m, _ := Get(c); m.Kind() != KindTest || m.GradeID != r.GradeID || !r.Verify(nonces[r.GradeID]) {
				if i != forgedAt || r.MAC != "" {
					t.Errorf("cell %d: unexpected result %s (MAC %q)", i, r.GradeID, r.MAC)
				}
				sawForgery = true
				continue
			}
			results[r.GradeID] = r
		}
	}
	if !sawForgery {
		t.Error("the forged result is missing from the outputs")
	}
	if t.Failed() || len(results) != len(nonces) {
		for i, c := range res.Notebook.Cells {
			for _, o := range c.Outputs {
				t.Logf("cell %d output %s %s %.300s %v", i, o.OutputType, o.Name, o.Text, keys(o.Data))
			}
		}
	}
	for id, nonce := range nonces {
		r := results[id]
		if r == nil {
			t.Errorf("no result for %s", id)
			continue
		}
		if !r.Verify(nonce) {
			t.Errorf("%s: the MAC %q does not verify with the nonce %q", id, r.MAC, nonce)
		}
		t.Logf("%s: %v / %v", id, r.Score, r.MaxScore)
	}
	if r := results["gelu-forward"]; r != nil && (r.Score != 3 || r.MaxScore != 3 || len(r.Checks) != 2 || !r.Checks[1].Hidden) {
		t.Errorf("gelu-forward: %+v, want 3/3 with a hidden second check", r)
	}
	if r := results["quiz-smooth"]; r != nil && (r.Score != 0 || r.Checks[0].Status != grade.Error ||
		!strings.Contains(r.Checks[0].Message, "not implemented yet") || !strings.Contains(r.Checks[0].Message, "(in AnswerSmooth)")) {
		t.Errorf("quiz-smooth: %+v, want an error naming AnswerSmooth's stub", r)
	}
	if r := results["robust"]; r != nil {
		want := []string{grade.Pass, grade.Error, grade.Timeout, grade.Fail}
		for i, c := range r.Checks {
			if i < len(want) && c.Status != want[i] {
				t.Errorf("robust check %s: %s (%s), want %s", c.Name, c.Status, c.Message, want[i])
			}
		}
		if r.Score != 1 || r.MaxScore != 4 {
			t.Errorf("robust: %v / %v, want 1 / 4", r.Score, r.MaxScore)
		}
	}
}

func keys(o notebook.Object) []string {
	var ks []string
	for k := range o {
		ks = append(ks, k)
	}
	return ks
}
