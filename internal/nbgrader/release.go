package nbgrader

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/goagx/agx/internal/lazyre"
	"github.com/goagx/agx/internal/notebook"
)

// CellError is a problem with one cell of an instructor source.
type CellError struct {
	Index   int    // in Notebook.Cells
	GradeID string // "" when the cell has none
	Msg     string
}

func (e *CellError) Error() string {
	if e.GradeID != "" {
		return fmt.Sprintf("cell %d (%s): %s", e.Index, e.GradeID, e.Msg)
	}
	return fmt.Sprintf("cell %d: %s", e.Index, e.Msg)
}

// gradeNewPattern finds the grade IDs that a cell passes to grade.New.
var gradeNewPattern = lazyre.New(`grade\.New\(\s*"([^"]*)"\s*\)`)

// Validate checks an instructor source: nbgrader metadata that parses and has
// the required keys, unique grade_ids matching GradeIDPattern on every graded,
// solution or locked cell, points only on grade cells (and not negative),
// every test cell locked, balanced markers only where they belong (solution
// markers in solution cells, hidden-test markers in test cells), and every Go
// test cell calling grade.New with its own grade_id exactly once. It returns
// all problems found, joined (each a *CellError).
func Validate(nb *notebook.Notebook) error {
	var errs []error
	seen := map[string]int{}
	for i, c := range nb.Cells {
		errs = append(errs, validateCell(i, c, seen)...)
	}
	return errors.Join(errs...)
}

// cellProblems collects the problems of cell i, whose grade_id is id.
type cellProblems struct {
	i    int
	id   string
	errs []error
}

func (p *cellProblems) bad(format string, args ...any) {
	p.errs = append(p.errs, &CellError{p.i, p.id, fmt.Sprintf(format, args...)})
}

// validateCell returns the problems of cell i; seen maps the grade_ids of
// the cells before it to their index plus one, and gains c's.
func validateCell(i int, c *notebook.Cell, seen map[string]int) []error {
	p := &cellProblems{i: i}
	m, err := Get(c)
	if err != nil {
		p.bad("%v", err)
		return p.errs
	}
	if m == nil {
		if HasSolution(c.Source) || HasHiddenTests(c.Source) {
			p.bad("has solution or hidden-test markers but no nbgrader metadata")
		}
		return p.errs
	}
	p.id = m.GradeID
	checkMetadata(p, c, m, seen)
	checkMarkers(p, c, m)
	if m.Kind() == KindTest && c.CellType == notebook.Code {
		checkTestCalls(p, c.Source)
	}
	return p.errs
}

// checkMetadata checks c's nbgrader metadata m: its keys and schema
// version, a unique well-formed grade_id, and points where graded.
func checkMetadata(p *cellProblems, c *notebook.Cell, m *Meta, seen map[string]int) {
	id := p.id
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(c.Metadata["nbgrader"], &keys) // Get parsed it
	for _, k := range []string{"schema_version", "grade", "solution", "locked"} {
		if _, ok := keys[k]; !ok {
			p.bad("metadata.nbgrader lacks %q", k)
		}
	}
	if m.SchemaVersion != SchemaVersion {
		p.bad("nbgrader schema_version %d, want %d", m.SchemaVersion, SchemaVersion)
	}
	if m.Grade || m.Solution || m.Locked || m.Task {
		switch {
		case id == "":
			p.bad("no grade_id")
		case !GradeIDPattern().MatchString(id):
			p.bad("grade_id %q may only hold letters, digits, '_' and '-'", id)
		case seen[id] != 0:
			p.bad("grade_id %q is also used by cell %d", id, seen[id]-1)
		default:
			seen[id] = p.i + 1
		}
	}
	if m.HasPoints() && !m.Grade && !m.Task {
		p.bad("points on a cell that is not graded (set grade: true, or remove points)")
	}
	if m.Points < 0 {
		p.bad("negative points %v", m.Points)
	}
	if (m.Grade || m.Task) && !m.HasPoints() {
		p.bad("a graded cell needs points")
	}
}

// checkMarkers checks that test cells are locked and that c's solution
// and hidden-test markers fit its kind and are well formed.
func checkMarkers(p *cellProblems, c *notebook.Cell, m *Meta) {
	kind := m.Kind()
	if kind == KindTest && !m.Locked {
		p.bad("test cell is not locked (set locked: true)")
	}
	if HasSolution(c.Source) && kind != KindSolution && kind != KindManual {
		p.bad("solution markers in a cell that is not a solution cell")
	}
	if HasHiddenTests(c.Source) && kind != KindTest {
		p.bad("hidden-test markers in a cell that is not a test cell")
	}
	if _, err := ClearSolutions(c.Source, p.id); err != nil {
		p.bad("%v", err)
	}
	if _, err := RemoveHiddenTests(c.Source); err != nil {
		p.bad("%v", err)
	}
}

// checkTestCalls checks that a code test cell calls grade.New with its
// own grade_id exactly once and sets no nonce.
func checkTestCalls(p *cellProblems, src string) {
	id := p.id
	own := 0
	for _, call := range gradeNewPattern().FindAllStringSubmatch(src, -1) {
		if call[1] == id {
			own++
		} else {
			p.bad("calls grade.New(%q): a test cell must use its own grade_id", call[1])
		}
	}
	if own != 1 {
		p.bad("calls grade.New(%q) %d times, want exactly once (written as %s)", id, own, gradeNewCall(id))
	}
	if strings.Contains(src, ".Nonce(") {
		p.bad("sets a nonce itself; agx autograde writes it")
	}
}

// Entry is what the assign manifest records for one nbgrader cell of a
// released notebook.
type Entry struct {
	Index    int     `json:"index"`    // cell index in the notebook
	Kind     string  `json:"kind"`     // Kind of the cell
	Points   float64 `json:"points"`   // 0 unless graded
	Checksum string  `json:"checksum"` // nbgrader checksum of the released cell
	// SourceChecksum is the checksum of the instructor's cell (solutions and
	// hidden tests in place), what nbgrader's own release would record for
	// a test cell with hidden tests.
	SourceChecksum string `json:"source_checksum"`
	// Bonus marks an optional cell (IsBonus): its points count in a score,
	// not in the maximum.
	Bonus bool `json:"bonus,omitempty"`
}

// IsBonus reports whether a cell is marked optional in the source:
// metadata.agx.bonus is true. Its points count in the score, not in the
// maximum. nbgrader has no such notion; the key is outside its metadata.
func IsBonus(c *notebook.Cell) bool {
	raw, ok := c.Metadata["agx"]
	if !ok {
		return false
	}
	var agx struct {
		Bonus bool `json:"bonus"`
	}
	return json.Unmarshal(raw, &agx) == nil && agx.Bonus
}

// Release returns the student version of the instructor source nb, which it
// does not modify, and the manifest entries of its nbgrader cells by grade_id.
// It validates nb first. In the student version:
//   - solution blocks are replaced (ClearSolutions); a solution cell without
//     markers becomes "// YOUR CODE HERE" (code) or "YOUR ANSWER HERE" (markdown);
//   - hidden-test blocks are removed;
//   - outputs and execution counts are cleared;
//   - locked cells get metadata deletable=false and editable=false, solution
//     cells deletable=false;
//   - every graded, solution or locked cell gets metadata.nbgrader.checksum
//     (Checksum of the released cell) and cell_type.
func Release(src *notebook.Notebook) (*notebook.Notebook, map[string]Entry, error) {
	if err := Validate(src); err != nil {
		return nil, nil, err
	}
	raw, err := src.Marshal()
	if err != nil {
		return nil, nil, err
	}
	nb, err := notebook.Parse(raw) // a deep copy
	if err != nil {
		return nil, nil, err
	}
	entries := map[string]Entry{}
	for i, c := range nb.Cells {
		if c.CellType == notebook.Code {
			c.Outputs, c.ExecutionCount = []*notebook.Output{}, nil
		}
		m, _ := Get(c) // Validate parsed it
		if m == nil {
			continue
		}
		sourceSum := Checksum(c, m)
		if c.Source, err = RemoveHiddenTests(c.Source); err != nil {
			return nil, nil, &CellError{i, m.GradeID, err.Error()}
		}
		if HasSolution(c.Source) {
			if c.Source, err = ClearSolutions(c.Source, m.GradeID); err != nil {
				return nil, nil, &CellError{i, m.GradeID, err.Error()}
			}
		} else if m.Solution {
			c.Source = YourCodeHere
			if c.CellType != notebook.Code {
				c.Source = "YOUR ANSWER HERE"
			}
		}
		if m.EffectiveLocked() {
			setBool(c, "deletable", false)
			setBool(c, "editable", false)
		} else if m.Solution {
			setBool(c, "deletable", false)
		}
		if !(m.Grade || m.Solution || m.EffectiveLocked()) {
			continue
		}
		m.Checksum = Checksum(c, m)
		// Only these two keys change, so the rest of the metadata keeps its bytes.
		if err := setKeys(c, map[string]string{"checksum": m.Checksum, "cell_type": c.CellType}); err != nil {
			return nil, nil, &CellError{i, m.GradeID, err.Error()}
		}
		entries[m.GradeID] = Entry{Index: i, Kind: m.Kind(), Points: m.Points, Checksum: m.Checksum, SourceChecksum: sourceSum, Bonus: IsBonus(c)}
	}
	return nb, entries, nil
}

func setBool(c *notebook.Cell, key string, v bool) {
	if c.Metadata == nil {
		c.Metadata = notebook.Object{}
	}
	b, _ := json.Marshal(v)
	c.Metadata[key] = b
}

// setKeys sets string values in the cell's metadata.nbgrader object.
func setKeys(c *notebook.Cell, kv map[string]string) error {
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(c.Metadata["nbgrader"], &obj); err != nil {
		return fmt.Errorf("metadata.nbgrader: %w", err)
	}
	for k, v := range kv {
		b, _ := json.Marshal(v)
		obj[k] = b
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	c.Metadata["nbgrader"] = b
	return nil
}
