package rebuild

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// WrongNotebook reports whether sub is another notebook than src: it has
// exercise cells (answer, test, manual or task cells) with grade_ids, and
// none of them is one of src's exercise cells (read-only cells are left
// out: ids such as "intro" recur from notebook to notebook). It
// returns the submission's grade_ids (sorted, at most five) for the reason.
// A submission without nbgrader metadata is not judged: its cells are
// graded as the student's.
func WrongNotebook(src, sub *notebook.Notebook) (bool, []string) {
	ids := map[string]bool{}
	for _, c := range src.Cells {
		if m, err := nbgrader.Get(c); err == nil && exercise(m) {
			ids[m.GradeID] = true
		}
	}
	var theirs []string
	for _, c := range sub.Cells {
		m, err := nbgrader.Get(c)
		if err != nil || !exercise(m) {
			continue
		}
		if ids[m.GradeID] {
			return false, nil
		}
		theirs = append(theirs, m.GradeID)
	}
	sort.Strings(theirs)
	if len(theirs) > 5 {
		theirs = append(theirs[:5], "…")
	}
	return len(theirs) > 0, theirs
}

func exercise(m *nbgrader.Meta) bool {
	return m != nil && m.GradeID != "" && (m.Grade || m.Solution || m.Kind() == nbgrader.KindTask)
}

// WrongNotebookReason says why a submission is taken for another notebook.
func WrongNotebookReason(srcName string, theirIDs []string) string {
	return fmt.Sprintf("this is not the notebook %s: none of its exercises (%s) is one of %s's; submit %s of this assignment",
		srcName, strings.Join(theirIDs, ", "), srcName, srcName)
}
