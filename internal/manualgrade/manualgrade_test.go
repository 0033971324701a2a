package manualgrade

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/gradebook"
)

// An executed notebook with a free-text answer (that tries to inject
// script into the page), a plot, and a test cell.
const executed = `{"cells": [
 {"cell_type": "markdown", "id": "a", "metadata": {"nbgrader": {"grade": true, "solution": true, "grade_id": "explain", "points": 2, "schema_version": 3}},
  "source": "<script>alert(1)</script> The shift does not change the result because exp(m) cancels."},
 {"cell_type": "code", "id": "b", "metadata": {"nbgrader": {"grade": true, "solution": true, "grade_id": "plot", "points": 1, "schema_version": 3}},
  "source": "plot()", "execution_count": 1,
  "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=\n", "text/plain": "<Figure>"}, "metadata": {}},
              {"output_type": "stream", "name": "stdout", "text": "drawn\n"}]},
 {"cell_type": "code", "id": "c", "metadata": {"nbgrader": {"grade": true, "solution": false, "grade_id": "t1", "points": 3, "schema_version": 3}},
  "source": "check()", "execution_count": 2, "outputs": []}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`

func testGradebook(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, gradebook.ExecutedDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"alice", "bob"} {
		e := &gradebook.Entry{Version: gradebook.EntryVersion, Student: s, Notebook: "kc.ipynb", Status: gradebook.Graded, Flags: []gradebook.Flag{}, Notes: []string{},
			Cells: []*gradebook.CellGrade{
				{GradeID: "explain", Kind: "manual", MaxPoints: 2, Status: gradebook.StatusManual},
				{GradeID: "plot", Kind: "manual", MaxPoints: 1, Status: gradebook.StatusManual},
				{GradeID: "t1", Kind: "test", Points: 3, AutoPoints: 3, MaxPoints: 3, Status: "passed"},
			}}
		e.ApplyOverrides(nil)
		if err := gradebook.WriteEntry(dir, e); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, gradebook.ExecutedDir, s+".ipynb"), []byte(executed), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An override written by hand before, with a comment line: kept.
	if err := os.WriteFile(filepath.Join(dir, gradebook.OverridesFile), []byte("# by hand\nbob,t1,2,rounding\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAnswers(t *testing.T) {
	dir := testGradebook(t)
	as, err := Answers(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 4 || as[0].GradeID != "explain" || as[0].Student != "alice" || as[3].GradeID != "plot" {
		t.Fatalf("answers: %+v", as)
	}
	if !strings.Contains(as[0].Text, "exp(m) cancels") || as[0].Max != 2 {
		t.Errorf("explain: %+v", as[0])
	}
	if len(as[2].Images) != 1 || as[2].Images[0] != "iVBORw0KGgo=" || len(as[2].Outputs) != 1 || as[2].Outputs[0] != "drawn\n" {
		t.Errorf("plot: %+v", as[2])
	}
	// Without the executed notebook, the answer says why.
	os.Remove(filepath.Join(dir, gradebook.ExecutedDir, "bob.ipynb"))
	as, _ = Answers(dir)
	if as[1].Student != "bob" || !strings.Contains(as[1].Missing, "cannot be read") {
		t.Errorf("bob without a notebook: %+v", as[1])
	}
}

func TestServer(t *testing.T) {
	dir := testGradebook(t)
	s, err := NewServer(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (int, string) {
		resp, err := noRedirect.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 1<<16)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	post := func(form url.Values) int {
		resp, err := noRedirect.PostForm(ts.URL+"/save", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code, _ := get("/"); code != http.StatusForbidden {
		t.Errorf("without the token: %d", code)
	}
	if code, _ := get("/?token=wrong"); code != http.StatusForbidden {
		t.Errorf("with a wrong token: %d", code)
	}
	code, page := get("/?token=" + s.Token)
	if code != 200 || !strings.Contains(page, "4 answers to grade by hand, 0 graded") || !strings.Contains(page, "exp(m) cancels") ||
		!strings.Contains(page, "data:image/png;base64,iVBORw0KGgo=") {
		t.Fatalf("page %d:\n%s", code, page)
	}
	if strings.Contains(page, "<script>alert") {
		t.Error("a student's answer is not escaped")
	}
	form := url.Values{"token": {s.Token}, "student": {"alice"}, "grade_id": {"explain"}, "points": {"1.5"}, "comment": {"right idea, say why exp(m) cancels"}}
	for _, tc := range []struct {
		name string
		edit func(url.Values)
		want int
	}{
		{"no token", func(f url.Values) { f.Del("token") }, http.StatusForbidden},
		{"negative points", func(f url.Values) { f.Set("points", "-1") }, http.StatusBadRequest},
		{"not a number", func(f url.Values) { f.Set("points", "NaN") }, http.StatusBadRequest},
		{"unknown cell", func(f url.Values) { f.Set("grade_id", "nope") }, http.StatusBadRequest},
		{"unknown student", func(f url.Values) { f.Set("student", "../alice") }, http.StatusBadRequest},
		{"saved", func(url.Values) {}, http.StatusSeeOther},
		{"saved again", func(f url.Values) { f.Set("points", "2") }, http.StatusSeeOther},
	} {
		f := url.Values{}
		for k, v := range form {
			f[k] = append([]string{}, v...)
		}
		tc.edit(f)
		if got := post(f); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	ov, err := os.ReadFile(filepath.Join(dir, gradebook.OverridesFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(ov), "alice,explain,") != 1 || !strings.Contains(string(ov), "alice,explain,2,\"right idea, say why exp(m) cancels\"") ||
		!strings.Contains(string(ov), "bob,t1,2,rounding") {
		t.Errorf("overrides.csv:\n%s", ov)
	}
	e, err := gradebook.ReadEntry(gradebook.EntryPath(dir, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Score != 5 || e.Cells[0].Override == nil || e.Cells[0].Override.Comment != "right idea, say why exp(m) cancels" {
		t.Errorf("alice's entry: score %g, explain %+v", e.Score, e.Cells[0])
	}
	csv, _ := os.ReadFile(filepath.Join(dir, gradebook.ClassFile))
	if !strings.Contains(string(csv), "alice,graded,5,6,") {
		t.Errorf("grades.csv:\n%s", csv)
	}
	if _, page = get("/?token=" + s.Token); !strings.Contains(page, "4 answers to grade by hand, 1 graded") {
		t.Errorf("the page does not count the grade")
	}
}
