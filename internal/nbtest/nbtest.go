// Package nbtest holds the tests' helpers for notebooks: read one, release
// its student version, type the instructor's solutions into it, find,
// remove and add cells by grade_id.
package nbtest

import (
	"strings"
	"testing"

	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// ReadNB reads the notebook at path.
func ReadNB(t *testing.T, path string) *notebook.Notebook {
	t.Helper()
	nb, err := notebook.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return nb
}

// Release returns the student version of the source at path.
func Release(t *testing.T, src *notebook.Notebook) *notebook.Notebook {
	t.Helper()
	nb, _, err := nbgrader.Release(src)
	if err != nil {
		t.Fatal(err)
	}
	return nb
}

// CellByID returns the cell with that grade_id.
func CellByID(t *testing.T, nb *notebook.Notebook, id string) *notebook.Cell {
	t.Helper()
	for _, c := range nb.Cells {
		if m, _ := nbgrader.Get(c); m != nil && m.GradeID == id {
			return c
		}
	}
	t.Fatalf("no cell %s", id)
	return nil
}

// RemoveCell deletes the cell with that grade_id.
func RemoveCell(t *testing.T, nb *notebook.Notebook, id string) {
	t.Helper()
	c := CellByID(t, nb, id)
	for i := range nb.Cells {
		if nb.Cells[i] == c {
			nb.Cells = append(nb.Cells[:i], nb.Cells[i+1:]...)
			return
		}
	}
}

// InsertAfter adds a plain code cell after the cell with that grade_id.
func InsertAfter(t *testing.T, nb *notebook.Notebook, id, src string) {
	t.Helper()
	c := CellByID(t, nb, id)
	for i := range nb.Cells {
		if nb.Cells[i] == c {
			extra := &notebook.Cell{CellType: notebook.Code, Source: src, Metadata: notebook.Object{}}
			nb.Cells = append(nb.Cells[:i+1], append([]*notebook.Cell{extra}, nb.Cells[i+1:]...)...)
			return
		}
	}
}

// Counter returns a nonce maker: nonce1, nonce2, …
func Counter() func() string {
	n := 0
	return func() string { n++; return "nonce" + string(rune('0'+n)) }
}

// Solved returns the student version of src with the instructor's solutions
// typed into the answer cells (marker lines dropped).
func Solved(t *testing.T, src *notebook.Notebook) *notebook.Notebook {
	t.Helper()
	nb := Release(t, src)
	for _, c := range src.Cells {
		m, _ := nbgrader.Get(c)
		if m == nil || !m.Solution {
			continue
		}
		var lines []string
		for l := range strings.Lines(c.Source) {
			if !nbgrader.HasSolution(l) {
				lines = append(lines, l)
			}
		}
		CellByID(t, nb, m.GradeID).Source = strings.Join(lines, "")
	}
	return nb
}
