package gradebook

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/goagx/agx/internal/notebook"
)

// ErrConflict: two gradebooks being merged disagree about a student.
var ErrConflict = errors.New("conflicting gradebook entries")

// Merge merges gradebooks graded separately (one per slice of a class, each
// by a Kubernetes Job; docs/grading.md, "Beyond one machine") into dir: every
// entry and executed notebook, dir's overrides.csv applied, and grades.csv
// written by the code and from the entries one run of agx autograde over the
// whole class would use, so that it is the same file.
//
// dir must hold no entries yet, and every slice must be an existing directory
// (one with no entries is fine). A student may be in more than one slice only
// when they agree: the same submission graded against the same source, with
// the same status and points; every other case is refused with ErrConflict,
// as are slices graded against different sources. Nothing is written unless
// every slice reads and agrees. It returns the merged entries, by student, and
// warnings about the overrides.
func Merge(dir string, slices []string) ([]*Entry, []string, error) {
	if old, err := ReadEntries(dir); err != nil {
		return nil, nil, err
	} else if len(old) > 0 {
		return nil, nil, fmt.Errorf("%s already holds %d gradebook entries: merge into a new directory", dir, len(old))
	}
	byStudent, err := readSlices(dir, slices)
	if err != nil {
		return nil, nil, err
	}
	overrides, err := ReadOverrides(dir)
	if err != nil {
		return nil, nil, err
	}
	warnings, err := writeMerged(dir, byStudent, overrides)
	if err != nil {
		return nil, nil, err
	}
	known := map[string]bool{}
	for s := range byStudent {
		known[s] = true
	}
	warnings = append(warnings, UnknownOverrides(overrides, known)...)
	// As agx autograde does at the end of a run: the class table from the
	// entries as read back from the gradebook.
	entries, err := ReadEntries(dir)
	if err != nil {
		return nil, nil, err
	}
	if err := WriteClassTable(dir, entries); err != nil {
		return nil, nil, err
	}
	return entries, warnings, nil
}

// An origin is an entry of a slice, and the slice.
type origin struct {
	e     *Entry
	slice string
}

// readSlices reads the entries of the slices, by student, refusing a slice
// that is dir, entries graded against different sources, and a student in
// two slices with different submissions or results.
func readSlices(dir string, slices []string) (map[string]origin, error) {
	byStudent := map[string]origin{}
	var source origin
	for _, s := range slices {
		if st, err := os.Stat(s); err != nil {
			return nil, err
		} else if !st.IsDir() {
			return nil, fmt.Errorf("%s is not a gradebook directory", s)
		}
		if same, err := sameDir(s, dir); err != nil {
			return nil, err
		} else if same {
			return nil, fmt.Errorf("%s is the directory merged into", s)
		}
		entries, err := ReadEntries(s)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.SourceSHA256 != "" {
				if source.e == nil {
					source = origin{e, s}
				} else if e.SourceSHA256 != source.e.SourceSHA256 {
					return nil, fmt.Errorf("%w: %s graded %s against source %.12s, %s graded %s against source %.12s; regrade one of them with the same source",
						ErrConflict, source.slice, source.e.Student, source.e.SourceSHA256, s, e.Student, e.SourceSHA256)
				}
			}
			if err := addOrigin(byStudent, origin{e, s}); err != nil {
				return nil, err
			}
		}
	}
	return byStudent, nil
}

// addOrigin adds o to byStudent, unless its student is there already: then
// it checks that both slices graded the same submission with the same
// results.
func addOrigin(byStudent map[string]origin, o origin) error {
	e, s := o.e, o.slice
	old, dup := byStudent[e.Student]
	if !dup {
		byStudent[e.Student] = o
		return nil
	}
	switch {
	case old.e.SubmissionSHA256 != e.SubmissionSHA256:
		return fmt.Errorf("%w: %s is in %s (submission %.12s) and in %s (submission %.12s); keep the gradebook that graded the submission collected last",
			ErrConflict, e.Student, old.slice, old.e.SubmissionSHA256, s, e.SubmissionSHA256)
	case old.e.Status != e.Status || old.e.AutoScore != e.AutoScore || old.e.MaxScore != e.MaxScore:
		return fmt.Errorf("%w: %s graded the same submission twice with different results: %s %g/%g in %s, %s %g/%g in %s",
			ErrConflict, e.Student, old.e.Status, old.e.AutoScore, old.e.MaxScore, old.slice, e.Status, e.AutoScore, e.MaxScore, s)
	}
	return nil
}

// writeMerged writes each student's entry into dir, with the overrides
// applied, and the executed notebook beside it; it returns the warnings of
// overrides for cells an entry does not have.
func writeMerged(dir string, byStudent map[string]origin, overrides map[string]map[string]Override) ([]string, error) {
	students := make([]string, 0, len(byStudent))
	for s := range byStudent {
		students = append(students, s)
	}
	sort.Strings(students)
	if err := os.MkdirAll(filepath.Join(dir, ExecutedDir), 0o755); err != nil {
		return nil, err
	}
	var warnings []string
	for _, s := range students {
		o := byStudent[s]
		b, err := os.ReadFile(filepath.Join(o.slice, ExecutedDir, s+".ipynb"))
		switch {
		case err == nil:
			if err := notebook.WriteFileAtomic(filepath.Join(dir, ExecutedDir, s+".ipynb"), b); err != nil {
				return nil, err
			}
		case !errors.Is(err, os.ErrNotExist): // an unreadable submission has no executed notebook
			return nil, err
		}
		for _, id := range o.e.ApplyOverrides(overrides[s]) {
			warnings = append(warnings, fmt.Sprintf("%s: override for %s, which is not a graded cell of %s", OverridesFile, id, s))
		}
		if err := WriteEntry(dir, o.e); err != nil {
			return nil, err
		}
	}
	return warnings, nil
}

// UnknownOverrides returns a warning for each student of overrides who is
// not known (has no gradebook entry), sorted.
func UnknownOverrides(overrides map[string]map[string]Override, known map[string]bool) []string {
	var unknown []string
	for s := range overrides {
		if !known[s] {
			unknown = append(unknown, s)
		}
	}
	sort.Strings(unknown)
	var warnings []string
	for _, s := range unknown {
		warnings = append(warnings, fmt.Sprintf("%s: override for %s, who has no gradebook entry", OverridesFile, s))
	}
	return warnings
}

// sameDir reports whether a and b name the same directory (b may not exist).
func sameDir(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}
