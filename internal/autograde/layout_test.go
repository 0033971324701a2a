package autograde

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/gradebook"
)

// TestFindSubmissionsNbgrader: nbgrader's submitted/STUDENT/ASSIGNMENT/NB.ipynb
// layout is read beside agx's DIR/STUDENT/NB.ipynb.
func TestFindSubmissionsNbgrader(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{
		"submitted/alice/ps1/gelu.ipynb", "submitted/alice/ps1/timestamp.txt",
		"submitted/bob/gelu.ipynb",
		"submitted/carol/ps1/gelu.ipynb", "submitted/carol/ps2/gelu.ipynb",
		"submitted/dave/ps2/gelu.ipynb",
		"submitted/erin/ps1/silu.ipynb",
	} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		assignment string
		want       string // student=path relative to submitted/
		warnings   []string
	}{
		{"", "alice=alice/ps1/gelu.ipynb bob=bob/gelu.ipynb dave=dave/ps2/gelu.ipynb",
			[]string{"carol: gelu.ipynb is in several assignments (ps1, ps2): choose one with --assignment", "erin: no gelu.ipynb, nor ASSIGNMENT/gelu.ipynb"}},
		{"ps1", "alice=alice/ps1/gelu.ipynb carol=carol/ps1/gelu.ipynb",
			[]string{"bob: no ps1/gelu.ipynb", "dave: no ps1/gelu.ipynb", "erin: no ps1/gelu.ipynb"}},
		{"ps2", "carol=carol/ps2/gelu.ipynb dave=dave/ps2/gelu.ipynb", []string{"alice: no ps2/gelu.ipynb"}},
	} {
		t.Run("assignment="+tc.assignment, func(t *testing.T) {
			sub := filepath.Join(dir, "submitted")
			subs, warnings, err := FindSubmissionsOf("gelu.ipynb", tc.assignment, []string{sub})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range subs {
				rel, _ := filepath.Rel(sub, s.Path)
				got = append(got, s.Student+"="+rel)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("got %v, want %s", got, tc.want)
			}
			all := strings.Join(warnings, "\n")
			for _, w := range tc.warnings {
				if !strings.Contains(all, w) {
					t.Errorf("warnings %q lack %q", warnings, w)
				}
			}
		})
	}
	if _, _, err := FindSubmissionsOf("gelu.ipynb", "../ps1", []string{dir}); err == nil {
		t.Error("an assignment that is a path: no error")
	}
}

func TestNbgraderFeedbackLayout(t *testing.T) {
	dir := t.TempDir()
	entries := []*gradebook.Entry{{Student: "alice", Notebook: "gelu.ipynb", Status: gradebook.Graded}, {Student: "bob", Notebook: "gelu.ipynb", Status: gradebook.Ungradable}}
	paths, err := gradebook.WriteFeedbackTo(entries, gradebook.NbgraderFeedbackPath(dir, "ps1"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"alice/ps1/gelu.html", "bob/ps1/gelu.html"} {
		if rel, _ := filepath.Rel(dir, paths[i]); rel != want {
			t.Errorf("page %d at %s, want %s", i, rel, want)
		}
		if b, err := os.ReadFile(filepath.Join(dir, want)); err != nil || !strings.Contains(string(b), "<html>") {
			t.Errorf("%s: %v", want, err)
		}
	}
}
