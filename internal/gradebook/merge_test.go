package gradebook

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/sandbox"
)

// mergeEntry is a graded entry with cells ids, each worth one point, of which
// the first `got` passed.
func mergeEntry(student, sub string, got int, ids ...string) *Entry {
	e := &Entry{Version: EntryVersion, Student: student, Notebook: "gelu.ipynb", Submission: student + ".ipynb",
		SubmissionSHA256: sub, SourceSHA256: "src", Status: Graded, Cells: []*CellGrade{}, Flags: []Flag{}, Notes: []string{},
		Run: RunInfo{Isolation: []string{"network"}, IsolationMode: sandbox.IsolationStrict}}
	for i, id := range ids {
		c := &CellGrade{GradeID: id, Kind: "test", MaxPoints: 1, Status: "passed"}
		if i < got {
			c.AutoPoints = 1
		} else {
			c.Status = "failed"
		}
		e.Cells = append(e.Cells, c)
	}
	e.ApplyOverrides(nil)
	return e
}

// writeGradebook writes the entries and an executed notebook for each graded
// one into dir, then grades.csv as agx autograde ends a run: the entries read
// back, the class table written from them.
func writeGradebook(t *testing.T, dir string, entries []*Entry) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ExecutedDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := WriteEntry(dir, e); err != nil {
			t.Fatal(err)
		}
		if e.Status == Graded {
			nb := []byte(`{"cells":[],"metadata":{"student":"` + e.Student + `"},"nbformat":4,"nbformat_minor":5}` + "\n")
			if err := os.WriteFile(filepath.Join(dir, ExecutedDir, e.Student+".ipynb"), nb, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	back, err := ReadEntries(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteClassTable(dir, back); err != nil {
		t.Fatal(err)
	}
}

// listFiles returns the files under dir, relative, with their contents.
func listFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMerge(t *testing.T) {
	unreadable := &Entry{Version: EntryVersion, Student: "a", Notebook: "gelu.ipynb", Submission: "a.ipynb", SubmissionSHA256: "s0",
		Status: Unreadable, UngradableReason: "not a notebook", Cells: []*CellGrade{}, Flags: []Flag{}, Notes: []string{}}
	flagged := mergeEntry("dave", "s4", 0, "gelu-test", "grad-test")
	flagged.Flags = []Flag{{Kind: FlagExit}}
	class := []*Entry{
		unreadable, // no cells, no source: the first entry of the class table is not the one that names the columns
		mergeEntry("a.b", "s1", 2, "gelu-test", "grad-test", "bonus"), // a.b.json sorts before a.json
		mergeEntry("bob", "s2", 1, "gelu-test", "grad-test"),
		mergeEntry("carol", "s3", 2, "gelu-test", "grad-test"),
		flagged,
	}
	for _, tc := range []struct {
		name   string
		slices [][]int // indexes into class, per slice
	}{
		{"two slices", [][]int{{0, 2, 4}, {1, 3}}},
		{"one slice", [][]int{{0, 1, 2, 3, 4}}},
		{"empty slices", [][]int{{}, {3, 1}, {}, {0, 2, 4}}},
		{"one per slice", [][]int{{4}, {3}, {2}, {1}, {0}}},
		{"a student in two slices, the same result", [][]int{{0, 1, 2}, {2, 3, 4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			one := filepath.Join(root, "one")
			writeGradebook(t, one, class)
			var slices []string
			for i, idx := range tc.slices {
				var es []*Entry
				for _, j := range idx {
					es = append(es, class[j])
				}
				s := filepath.Join(root, "slice", string(rune('0'+i)))
				writeGradebook(t, s, es)
				slices = append(slices, s)
			}
			out := filepath.Join(root, "merged")
			entries, warnings, err := Merge(out, slices)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != len(class) || len(warnings) != 0 {
				t.Errorf("%d entries, warnings %q; want %d, none", len(entries), warnings, len(class))
			}
			want, got := listFiles(t, one), listFiles(t, out)
			if !bytes.Equal(got[ClassFile], want[ClassFile]) {
				t.Errorf("grades.csv merged:\n%s\none run:\n%s", got[ClassFile], want[ClassFile])
			}
			for name, b := range want {
				if !bytes.Equal(got[name], b) {
					t.Errorf("%s differs from one run's", name)
				}
			}
			if len(got) != len(want) {
				t.Errorf("merged %d files, one run has %d", len(got), len(want))
			}
		})
	}

	t.Run("overrides of the merged gradebook", func(t *testing.T) {
		root := t.TempDir()
		s := filepath.Join(root, "s0")
		writeGradebook(t, s, class[2:4])
		out := filepath.Join(root, "merged")
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		ov := "student,grade_id,points\nbob,grad-test,1\nbob,nope,1\nzed,gelu-test,1\n"
		if err := os.WriteFile(filepath.Join(out, OverridesFile), []byte(ov), 0o644); err != nil {
			t.Fatal(err)
		}
		entries, warnings, err := Merge(out, []string{s})
		if err != nil {
			t.Fatal(err)
		}
		if entries[0].Student != "bob" || entries[0].Score != 2 || entries[0].AutoScore != 1 {
			t.Errorf("bob after the override: %g (auto %g)", entries[0].Score, entries[0].AutoScore)
		}
		if w := strings.Join(warnings, "\n"); !strings.Contains(w, "nope, which is not a graded cell of bob") || !strings.Contains(w, "zed, who has no gradebook entry") {
			t.Errorf("warnings %q", warnings)
		}
	})
}

func TestMergeRefuses(t *testing.T) {
	other := mergeEntry("bob", "s2", 2, "gelu-test", "grad-test") // same submission, another result
	otherSource := mergeEntry("carol", "s3", 2, "gelu-test", "grad-test")
	otherSource.SourceSHA256 = "src2"
	for _, tc := range []struct {
		name     string
		a, b     []*Entry
		conflict bool
		want     string
	}{
		{"different submissions", []*Entry{mergeEntry("bob", "s2", 1, "gelu-test")}, []*Entry{mergeEntry("bob", "s2-later", 1, "gelu-test")},
			true, "bob is in"},
		{"same submission, different results", []*Entry{mergeEntry("bob", "s2", 1, "gelu-test", "grad-test")}, []*Entry{other},
			true, "different results"},
		{"different sources", []*Entry{mergeEntry("bob", "s2", 1, "gelu-test")}, []*Entry{otherSource},
			true, "against source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			a, b, out := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "merged")
			writeGradebook(t, a, tc.a)
			writeGradebook(t, b, tc.b)
			_, _, err := Merge(out, []string{a, b})
			if err == nil || errors.Is(err, ErrConflict) != tc.conflict || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one with %q", err, tc.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused merge wrote %s (%v)", out, err)
			}
		})
	}

	t.Run("bad directories", func(t *testing.T) {
		root := t.TempDir()
		s := filepath.Join(root, "s")
		writeGradebook(t, s, []*Entry{mergeEntry("bob", "s2", 1, "gelu-test")})
		for _, c := range []struct {
			out    string
			slices []string
			want   string
		}{
			{filepath.Join(root, "m"), []string{filepath.Join(root, "typo")}, "no such file"},
			{filepath.Join(root, "m"), []string{filepath.Join(s, ClassFile)}, "not a gradebook directory"},
			{s, []string{s}, "already holds 1 gradebook entries"},
		} {
			if _, _, err := Merge(c.out, c.slices); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Merge(%s, %v): %v, want %q", c.out, c.slices, err, c.want)
			}
		}
	})
}
