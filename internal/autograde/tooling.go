package autograde

import (
	"fmt"

	"github.com/goagx/agx/internal/gotool"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/rebuild"
)

// toolingFailure returns why the kernel's own tooling failed in a cell that
// holds no student code (a locked or test cell restored from the source), or
// "" when it did not. Such a cell's code is the instructor's, so when GoNB's
// `go get` or goimports fails on it, or its build fails in the go command
// rather than in the compiler, the module cache or the kernel is at fault,
// not the student: the submission cannot be graded, and a score would be a
// lie. Failures in student cells are the student's (an import that cannot
// be resolved, a compile error) and are scored as usual.
func toolingFailure(rb *rebuild.Rebuilt, res *jupyter.Result) string {
	ran := map[int]bool{}
	for _, r := range res.Cells {
		ran[r.Index] = r.Ran
	}
	for _, rc := range rb.Cells {
		if rc.Student() || !ran[rc.Index] || rc.Index >= len(res.Notebook.Cells) {
			continue
		}
		c := res.Notebook.Cells[rc.Index]
		if c.CellType != notebook.Code {
			continue
		}
		if why := gotool.CellFailure(c); why != "" {
			return fmt.Sprintf("the kernel's Go tooling failed in %s, which holds no student code: %s", rc.Name(), why)
		}
	}
	return ""
}
