package score

import (
	"fmt"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/rebuild"
)

// voidingKinds are the flags that cost points: code that can read the
// program's memory (unsafe, go:linkname, cgo, whose C constructors run even
// before Go's initialisation) can read the secret that authenticates the
// test cells' results, so the test cells after it get no points.
// A use of what the exercise forbids (metadata.agx.forbid: an agx built-in
// or a reference solution that implements the answer) voids them too: the
// checks after it may test that instead of the student's work.
var voidingKinds = map[string]bool{gradebook.FlagUnsafe: true, gradebook.FlagForbidden: true}

// VoidAfterFlags gives no points to the test cells that come after a
// student cell with a voiding flag (voidingKinds): their programs include
// that cell's code. It returns the cells it voided.
func VoidAfterFlags(rb *rebuild.Rebuilt, flags []gradebook.Flag, cells []*gradebook.CellGrade) []string {
	first, why, kind := -1, "", ""
	for _, rc := range rb.Cells {
		if !rc.Student() {
			continue
		}
		for _, f := range flags {
			if voidingKinds[f.Kind] && f.Cell == rc.Name() && (first < 0 || rc.Index < first) {
				first, why, kind = rc.Index, fmt.Sprintf("%s (%s: %s)", rc.Name(), f.Kind, f.Message), f.Kind
			}
		}
	}
	if first < 0 {
		return nil
	}
	index := map[string]int{}
	for _, rc := range rb.Cells {
		if rc.Kind == nbgrader.KindTest {
			index[rc.GradeID] = rc.Index
		}
	}
	var voided []string
	for _, g := range cells {
		if i, ok := index[g.GradeID]; !ok || i < first || g.Kind != nbgrader.KindTest {
			continue
		}
		g.Points, g.AutoPoints, g.Status = 0, 0, gradebook.StatusRejected
		if kind == gradebook.FlagForbidden {
			g.Messages = append(g.Messages, "no points: an earlier student cell uses what this exercise forbids: "+why)
		} else {
			g.Messages = append(g.Messages, "no points: an earlier student cell can read this cell's secret and forge its result: "+why)
		}
		voided = append(voided, g.GradeID)
	}
	return voided
}
