package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/nbgrader"
)

// The instructor source and its golden student version are shared with the
// nbgrader package's tests.
const (
	assignSource = "../../internal/nbgrader/testdata/gelu.ipynb"
	assignGolden = "../../internal/nbgrader/testdata/gelu.student.ipynb"
)

func TestAssign(t *testing.T) {
	dir := t.TempDir()
	// An existing manifest keeps its other notebooks.
	if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(`{"version":1,"notebooks":{"other.ipynb":{"x":{"index":0,"kind":"test","points":1,"checksum":"c","source_checksum":"c"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := agxMain(context.Background(), []string{"assign", "-o", dir, assignSource}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "gelu.ipynb: 2 graded cells, 4 points") {
		t.Errorf("stdout: %s", stdout.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, "gelu.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(assignGolden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("student version differs from %s", assignGolden)
	}
	var man Manifest
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if _, ok := man.Notebooks["other.ipynb"]; !ok {
		t.Error("the manifest lost the other notebook")
	}
	e := man.Notebooks["gelu.ipynb"]["gelu-forward"]
	if e.Kind != nbgrader.KindTest || e.Points != 3 || e.Index != 3 || len(e.Checksum) != 32 {
		t.Errorf("gelu-forward entry: %+v", e)
	}
}

func TestAssignErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.ipynb")
	src, err := os.ReadFile(assignSource)
	if err != nil {
		t.Fatal(err)
	}
	// Unlock the test cell and give the quiz test the same id as the GELU test.
	s := strings.Replace(string(src), `"grade_id": "quiz-smooth"`, `"grade_id": "gelu-forward"`, 1)
	s = strings.Replace(s, `"grade_id": "gelu-forward",
     "locked": true`, `"grade_id": "gelu-forward",
     "locked": false`, 1)
	if err := os.WriteFile(bad, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"no -o", []string{"assign", assignSource}, 2, []string{"-o DIR is required"}},
		{"no notebooks", []string{"assign", "-o", t.TempDir()}, 2, []string{"no notebooks given"}},
		{"invalid source", []string{"assign", "-o", t.TempDir(), bad}, 1, []string{
			"cell 3 (gelu-forward): test cell is not locked",
			`cell 6 (gelu-forward): grade_id "gelu-forward" is also used by cell 3`,
			`cell 6 (gelu-forward): calls grade.New("quiz-smooth"): a test cell must use its own grade_id`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := agxMain(context.Background(), tc.args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}

// TestAssignMaximum: the maximum agx assign prints is the gradebook's, which
// leaves optional (bonus) cells out; their points are printed apart.
func TestAssignMaximum(t *testing.T) {
	for _, tc := range []struct{ source, want string }{
		{"../../notebooks/exercises/gelu.ipynb", "gelu.ipynb: 3 graded cells, 7 points (and 2 optional bonus points beyond that maximum)"},
		{"../../notebooks/exercises/silu.ipynb", "silu.ipynb: 2 graded cells, 7 points\n"},
	} {
		var stdout, stderr bytes.Buffer
		if code := agxMain(context.Background(), []string{"assign", "-o", t.TempDir(), tc.source}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.source, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%s: stdout %q, want %q", tc.source, stdout.String(), tc.want)
		}
	}
}
