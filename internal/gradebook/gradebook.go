package gradebook

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/sandbox"
)

// Files in a gradebook directory.
const (
	ClassFile     = "grades.csv"    // the class table, rewritten on every run
	OverridesFile = "overrides.csv" // manual overrides, written by the instructor
	ExecutedDir   = "executed"      // the executed notebooks, STUDENT.ipynb
	entrySuffix   = ".json"         // STUDENT.json: a student's entry
)

// EntryVersion is the version of the gradebook entry format.
const EntryVersion = 1

// Entry statuses.
const (
	Graded     = "graded"
	Ungradable = "ungradable" // the notebook could not be run for reasons outside the student's code
	// Unreadable: the submitted file is not a notebook (invalid JSON, not
	// nbformat 4): the student's side, not the grader's.
	Unreadable = "unreadable"
	// WrongNotebook: the submission is another assignment's notebook (none
	// of its graded or answer cells is one of the source's).
	WrongNotebook = "wrong_notebook"
)

// Entry is one student's gradebook entry, STUDENT.json: the source of truth
// from which the class table and feedback are made.
type Entry struct {
	Version          int          `json:"version"`
	Student          string       `json:"student"`
	Notebook         string       `json:"notebook"`   // the source's file name
	Submission       string       `json:"submission"` // the submitted file, as named on the command line
	SubmissionSHA256 string       `json:"submission_sha256"`
	SourceSHA256     string       `json:"source_sha256"`
	Status           string       `json:"status"`
	UngradableReason string       `json:"ungradable_reason,omitempty"` // why an entry is not graded (any status but graded)
	Score            float64      `json:"score"`                       // after overrides
	AutoScore        float64      `json:"auto_score"`                  // before
	MaxScore         float64      `json:"max_score"`                   // bonus cells excluded
	Cells            []*CellGrade `json:"cells"`
	Flags            []Flag       `json:"flags"`
	Notes            []string     `json:"notes"` // restored and re-added cells
	Run              RunInfo      `json:"run"`
}

// RunInfo records how the notebook was run.
type RunInfo struct {
	Seconds   float64  `json:"seconds"`
	CellsRun  int      `json:"cells_run"`
	CodeCells int      `json:"code_cells"`
	Error     string   `json:"error,omitempty"` // why the run stopped early, if it did
	Isolation []string `json:"isolation"`       // the measures in force, then "missing: ..." for those that were not
	// IsolationMode is sandbox.IsolationStrict, or
	// sandbox.IsolationBestEffort when a measure was missing (graded with
	// --isolation=best-effort).
	IsolationMode string `json:"isolation_mode,omitempty"`
}

// Weakened returns the note that the entry was graded with weaker isolation
// than agx autograde promises, naming what was missing; "" when it was not.
func (r RunInfo) Weakened() string {
	if r.IsolationMode != sandbox.IsolationBestEffort {
		return ""
	}
	var miss []string
	for _, m := range r.Isolation {
		if w, ok := strings.CutPrefix(m, "missing: "); ok {
			miss = append(miss, w)
		}
	}
	return "graded with weakened isolation (--isolation=best-effort), missing: " + strings.Join(miss, "; ")
}

// Override is one line of the overrides file.
type Override struct {
	Points  float64 `json:"points"`
	Comment string  `json:"comment,omitempty"`
}

// StudentPattern is what a student id may look like (it names files).
var StudentPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]*$`)

// ReadOverrides reads GRADEBOOK_DIR/overrides.csv: a header line
// "student,grade_id,points,comment" and one override per line. A missing file
// means no overrides. Points must be a number >= 0.
func ReadOverrides(dir string) (map[string]map[string]Override, error) {
	path := filepath.Join(dir, OverridesFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]map[string]Override{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.Comment = '#'
	out := map[string]map[string]Override{}
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if line == 1 && len(rec) > 0 && strings.EqualFold(strings.TrimSpace(rec[0]), "student") {
			continue
		}
		if len(rec) < 3 || len(rec) > 4 {
			return nil, fmt.Errorf("%s:%d: want student,grade_id,points[,comment], got %d fields", path, line, len(rec))
		}
		student, id := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
		p, err := strconv.ParseFloat(strings.TrimSpace(rec[2]), 64)
		if err != nil || p < 0 || p != p {
			return nil, fmt.Errorf("%s:%d: points %q: want a number >= 0", path, line, rec[2])
		}
		o := Override{Points: p}
		if len(rec) == 4 {
			o.Comment = rec[3]
		}
		if out[student] == nil {
			out[student] = map[string]Override{}
		}
		out[student][id] = o
	}
	return out, nil
}

// ApplyOverrides sets each cell's points from the overrides (or back to its
// automatic points) and recomputes the totals. It returns the overrides that
// name no graded cell of the entry. An ungradable entry takes no overrides
// (they wait until it is graded) and reports none as unused.
func (e *Entry) ApplyOverrides(ov map[string]Override) (unused []string) {
	e.Score, e.AutoScore, e.MaxScore = 0, 0, 0
	used := map[string]bool{}
	for _, c := range e.Cells {
		c.Points, c.Override = c.AutoPoints, nil
		if o, ok := ov[c.GradeID]; ok && e.Status == Graded {
			o := o
			c.Points, c.Override = o.Points, &o
			used[c.GradeID] = true
		}
		e.Score += c.Points
		e.AutoScore += c.AutoPoints
		if !c.Bonus {
			e.MaxScore += c.MaxPoints
		}
	}
	for id := range ov {
		if !used[id] && e.Status == Graded {
			unused = append(unused, id)
		}
	}
	sort.Strings(unused)
	return unused
}

// EntryPath is the path of a student's entry in the gradebook dir.
func EntryPath(dir, student string) string { return filepath.Join(dir, student+entrySuffix) }

// ReadEntry reads a student's entry.
func ReadEntry(path string) (*Entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if e.Version != EntryVersion {
		return nil, fmt.Errorf("%s: gradebook entry version %d, want %d", path, e.Version, EntryVersion)
	}
	return &e, nil
}

// ReadEntries reads every entry of a gradebook dir, sorted by student.
func ReadEntries(dir string) ([]*Entry, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*"+entrySuffix))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Entry
	for _, n := range names {
		e, err := ReadEntry(n)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// WriteEntry writes e as STUDENT.json atomically.
func WriteEntry(dir string, e *Entry) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	return notebook.WriteFileAtomic(EntryPath(dir, e.Student), append(b, '\n'))
}

// WriteClassTable writes grades.csv: one row per entry with the student, the
// status, the total, the maximum, one column per graded cell (grade_ids in
// the order of the first entry that has them), the flag kinds and the notes
// (why the entry is not graded, then what was restored), separated by " | ".
func WriteClassTable(dir string, entries []*Entry) error {
	var ids []string
	seen := map[string]bool{}
	for _, e := range entries {
		for _, c := range e.Cells {
			if !seen[c.GradeID] {
				seen[c.GradeID] = true
				ids = append(ids, c.GradeID)
			}
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(append(append([]string{"student", "status", "total", "max"}, ids...), "flags", "notes")) // a bytes.Buffer does not fail
	for _, e := range entries {
		points := map[string]string{}
		for _, c := range e.Cells {
			points[c.GradeID] = formatPoints(c.Points)
		}
		row := []string{e.Student, e.Status, formatPoints(e.Score), formatPoints(e.MaxScore)}
		for _, id := range ids {
			row = append(row, points[id])
		}
		var notes []string
		if w := e.Run.Weakened(); w != "" {
			notes = append(notes, w)
		}
		if e.Status != Graded && e.UngradableReason != "" {
			notes = append(notes, e.Status+": "+firstLine(e.UngradableReason))
		}
		notes = append(notes, e.Notes...)
		row = append(row, FlagSummary(e.Flags), strings.Join(notes, " | "))
		_ = w.Write(row)
	}
	w.Flush()
	return notebook.WriteFileAtomic(filepath.Join(dir, ClassFile), buf.Bytes())
}

// FlagSummary lists the flag kinds, sorted, each with its count when more than one.
func FlagSummary(flags []Flag) string {
	n := map[string]int{}
	for _, f := range flags {
		n[f.Kind]++
	}
	var kinds []string
	for k := range n {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for i, k := range kinds {
		if n[k] > 1 {
			kinds[i] = fmt.Sprintf("%s(%d)", k, n[k])
		}
	}
	return strings.Join(kinds, " ")
}

func formatPoints(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
