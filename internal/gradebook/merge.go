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
	type origin struct {
		e     *Entry
		slice string
	}
	byStudent := map[string]origin{}
	var source origin
	for _, s := range slices {
		if st, err := os.Stat(s); err != nil {
			return nil, nil, err
		} else if !st.IsDir() {
			return nil, nil, fmt.Errorf("%s is not a gradebook directory", s)
		}
		if same, err := sameDir(s, dir); err != nil {
			return nil, nil, err
		} else if same {
			return nil, nil, fmt.Errorf("%s is the directory merged into", s)
		}
		entries, err := ReadEntries(s)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range entries {
			if e.SourceSHA256 != "" {
				if source.e == nil {
					source = origin{e, s}
				} else if e.SourceSHA256 != source.e.SourceSHA256 {
					return nil, nil, fmt.Errorf("%w: %s graded %s against source %.12s, %s graded %s against source %.12s; regrade one of them with the same source",
						ErrConflict, source.slice, source.e.Student, source.e.SourceSHA256, s, e.Student, e.SourceSHA256)
				}
			}
			o, dup := byStudent[e.Student]
			if !dup {
				byStudent[e.Student] = origin{e, s}
				continue
			}
			switch {
			case o.e.SubmissionSHA256 != e.SubmissionSHA256:
				return nil, nil, fmt.Errorf("%w: %s is in %s (submission %.12s) and in %s (submission %.12s); keep the gradebook that graded the submission collected last",
					ErrConflict, e.Student, o.slice, o.e.SubmissionSHA256, s, e.SubmissionSHA256)
			case o.e.Status != e.Status || o.e.AutoScore != e.AutoScore || o.e.MaxScore != e.MaxScore:
				return nil, nil, fmt.Errorf("%w: %s graded the same submission twice with different results: %s %g/%g in %s, %s %g/%g in %s",
					ErrConflict, e.Student, o.e.Status, o.e.AutoScore, o.e.MaxScore, o.slice, e.Status, e.AutoScore, e.MaxScore, s)
			}
		}
	}
	overrides, err := ReadOverrides(dir)
	if err != nil {
		return nil, nil, err
	}

	students := make([]string, 0, len(byStudent))
	for s := range byStudent {
		students = append(students, s)
	}
	sort.Strings(students)
	if err := os.MkdirAll(filepath.Join(dir, ExecutedDir), 0o755); err != nil {
		return nil, nil, err
	}
	var warnings []string
	for _, s := range students {
		o := byStudent[s]
		b, err := os.ReadFile(filepath.Join(o.slice, ExecutedDir, s+".ipynb"))
		switch {
		case err == nil:
			if err := notebook.WriteFileAtomic(filepath.Join(dir, ExecutedDir, s+".ipynb"), b); err != nil {
				return nil, nil, err
			}
		case !errors.Is(err, os.ErrNotExist): // an unreadable submission has no executed notebook
			return nil, nil, err
		}
		for _, id := range o.e.ApplyOverrides(overrides[s]) {
			warnings = append(warnings, fmt.Sprintf("%s: override for %s, which is not a graded cell of %s", OverridesFile, id, s))
		}
		if err := WriteEntry(dir, o.e); err != nil {
			return nil, nil, err
		}
	}
	var unknown []string
	for s := range overrides {
		if _, ok := byStudent[s]; !ok {
			unknown = append(unknown, s)
		}
	}
	sort.Strings(unknown)
	for _, s := range unknown {
		warnings = append(warnings, fmt.Sprintf("%s: override for %s, who has no gradebook entry", OverridesFile, s))
	}
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
