package course

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

const root = "../.."

// The course map in 00-welcome and docs/notebooks-index.md must be exactly
// what `go run ./internal/course/coursegen` writes from the notebooks.
func TestMapAndIndexAreCurrent(t *testing.T) {
	files, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: it differs from the notebooks' example tags; run `go run ./internal/course/coursegen` from the repository root", path)
		}
	}
}

// Every lesson tags at least one example, and the map lists every tagged ID
// of every notebook.
func TestEveryNotebookHasExamples(t *testing.T) {
	entries, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	m := MapMarkdown(entries)
	for _, e := range entries {
		if len(e.IDs) == 0 {
			t.Errorf("%s tags no example (`// example ID` in a code cell)", e.Path)
		}
		row := "| " + e.Name + " |"
		if !strings.Contains(m, row) {
			t.Errorf("the map has no row for %s", e.Name)
		}
	}
}

func TestExampleIDs(t *testing.T) {
	nb := &notebook.Notebook{Nbformat: 4, Cells: []*notebook.Cell{
		{CellType: notebook.Code, Source: "%%\n// example C10: x = [3] -> E2 is not a tag here\nfmt.Println(1)"},
		{CellType: notebook.Code, Source: "// examples D5 and B1: a sigmoid\n// example A8 / C15: fused\n// example C2, C1\n"},
		{CellType: notebook.Markdown, Source: "// example E3 in markdown does not count"},
		{CellType: notebook.Code, Source: "// example C18 (1): in place\n// example C18 (2): twice\n// an example A4 without the marker"},
	}}
	got := ExampleIDs(nb)
	want := []string{"A8", "B1", "C1", "C2", "C10", "C15", "C18", "D5"}
	if !slices.Equal(got, want) {
		t.Fatalf("ExampleIDs = %v, want %v", got, want)
	}
}

func TestFormatIDs(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"A1"}, "A1"},
		{[]string{"A1", "A2"}, "A1, A2"},
		{[]string{"A1", "A2", "A3", "A5"}, "A1–A3, A5"},
		{[]string{"A9", "A10", "A11", "B12", "C1", "C2", "C3", "C4", "D1"}, "A9–A11, B12, C1–C4, D1"},
		{[]string{"C3", "D4", "D5"}, "C3, D4, D5"},
	} {
		if got := FormatIDs(tc.in); got != tc.want {
			t.Errorf("FormatIDs(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A notebook whose tags change makes the generated files stale, and a lesson
// without a summary is refused.
func TestGenerateFollowsTags(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{WelcomePath, ReferencePath, "notebooks/01-function-basics.ipynb", "notebooks/exercises/gelu.ipynb"} {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(before[IndexPath]), "E1, E2") {
		t.Fatalf("index does not list 01's E1, E2:\n%s", before[IndexPath])
	}

	p := filepath.Join(dir, "notebooks", "01-function-basics.ipynb")
	nb, err := notebook.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	nb.Cells = append(nb.Cells, &notebook.Cell{CellType: notebook.Code, Source: "// example E3\n", Metadata: notebook.Object{}})
	if err := notebook.Write(p, nb); err != nil {
		t.Fatal(err)
	}
	after, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{WelcomePath, IndexPath, ReferencePath} {
		if bytes.Equal(before[path], after[path]) {
			t.Errorf("%s did not change when 01 gained an E3 tag", path)
		}
		if path != ReferencePath && !strings.Contains(string(after[path]), "E1–E3") {
			t.Errorf("%s does not list E1–E3 after the new tag", path)
		}
	}

	delete(nb.Metadata, "agx")
	if err := notebook.Write(p, nb); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(dir); err == nil || !strings.Contains(err.Error(), "summary") {
		t.Errorf("Generate with a lesson lacking agx.summary: err = %v, want one about the summary", err)
	}
}

// mentionRE matches an example ID anywhere in a notebook's text.
var mentionRE = regexp.MustCompile(`\b[A-E][0-9]{1,2}\b`)

// Every example ID a notebook mentions, in a tag, a heading or prose, is one
// the index explains; every explained ID is shown somewhere; and a notebook
// that mentions IDs links to the list that explains them, so that a student
// who meets "C24" can find out what it is.
func TestExampleIDsAreExplained(t *testing.T) {
	known := map[string]bool{}
	for i, ex := range Examples {
		if known[ex.ID] {
			t.Errorf("Examples lists %s twice", ex.ID)
		}
		known[ex.ID] = true
		if i > 0 {
			prev := []string{Examples[i-1].ID, ex.ID}
			if SortIDs(prev); prev[0] != Examples[i-1].ID {
				t.Errorf("Examples is not in ID order at %s", ex.ID)
			}
		}
	}
	index, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(IndexPath)))
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range Examples {
		if !strings.Contains(string(index), "- **"+ex.ID+"** — ") {
			t.Errorf("%s does not explain %s", IndexPath, ex.ID)
		}
	}
	entries, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, e := range entries {
		for _, id := range e.IDs {
			shown[id] = true
		}
	}
	for _, ex := range Examples {
		if !shown[ex.ID] {
			t.Errorf("example %s is in Examples but no notebook tags it (`// example %s` in a code cell)", ex.ID, ex.ID)
		}
	}
	var paths []string
	for _, dir := range []string{"notebooks", "notebooks/exercises"} {
		ps, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, ps...)
	}
	for _, p := range paths {
		if strings.HasSuffix(p, ".executed.ipynb") {
			continue
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		nb, err := notebook.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		mentions, linked := 0, false
		for _, c := range nb.Cells {
			for _, id := range mentionRE.FindAllString(c.Source, -1) {
				mentions++
				if !known[id] {
					t.Errorf("%s mentions example %s, which Examples (internal/course/examples.go) does not explain", rel, id)
				}
			}
			if c.CellType == notebook.Markdown && strings.Contains(c.Source, "reference.ipynb)") {
				linked = true
			}
		}
		if mentions > 0 && !linked && rel != ReferencePath {
			t.Errorf("%s mentions example IDs but no markdown cell links to the reference notebook, whose last section explains them", rel)
		}
	}
}
