package autograde

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// nbgrader's course directory keeps submissions as
// submitted/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb and feedback as
// feedback/STUDENT/ASSIGNMENT/NOTEBOOK.html; agx reads the first (beside its
// own DIR/STUDENT/NOTEBOOK.ipynb) and can write the second.

// studentNotebook finds the notebook name in a student's directory dir:
// dir/name, or nbgrader's dir/ASSIGNMENT/name (the given assignment, or the
// only assignment directory holding name). It returns "" and why when there
// is none or more than one.
func studentNotebook(dir, name, assignment string) (string, string) {
	if assignment != "" {
		p := filepath.Join(dir, assignment, name)
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", fmt.Sprintf("no %s (nbgrader's layout: STUDENT/ASSIGNMENT/NOTEBOOK)", filepath.Join(assignment, name))
		}
		return p, ""
	}
	p := filepath.Join(dir, name)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, ""
	}
	found, _ := filepath.Glob(filepath.Join(dir, "*", name))
	var kept []string
	for _, f := range found {
		if st, err := os.Stat(f); err == nil && !st.IsDir() && !strings.HasPrefix(filepath.Base(filepath.Dir(f)), ".") {
			kept = append(kept, f)
		}
	}
	switch len(kept) {
	case 0:
		return "", fmt.Sprintf("no %s, nor ASSIGNMENT/%s (nbgrader's layout)", name, name)
	case 1:
		return kept[0], ""
	}
	var names []string
	for _, f := range kept {
		names = append(names, filepath.Base(filepath.Dir(f)))
	}
	return "", fmt.Sprintf("%s is in several assignments (%s): choose one with --assignment", name, strings.Join(names, ", "))
}
