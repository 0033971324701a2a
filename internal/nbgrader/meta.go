// Package nbgrader implements agx's exercise authoring format, which follows
// nbgrader's (schema version 3) so that notebooks stay usable with nbgrader's
// own tools: the cell metadata, the solution and hidden-test markers for Go
// source, nbgrader's cell checksum, and the release of a student version
// (Release), which `agx assign` writes. See docs/grading.md.
package nbgrader

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goagx/agx/internal/lazyre"
	"github.com/goagx/agx/internal/notebook"
)

// SchemaVersion is the nbgrader metadata schema this package reads and writes.
const SchemaVersion = 3

// Meta is a cell's metadata.nbgrader.
type Meta struct {
	SchemaVersion int     `json:"schema_version"`
	Grade         bool    `json:"grade"`
	Solution      bool    `json:"solution"`
	Locked        bool    `json:"locked"`
	Task          bool    `json:"task,omitempty"`
	GradeID       string  `json:"grade_id,omitempty"`
	Points        float64 `json:"points,omitempty"`
	Checksum      string  `json:"checksum,omitempty"`
	CellType      string  `json:"cell_type,omitempty"`

	hasPoints bool
}

// Cell kinds (Kind).
const (
	KindTest     = "test"     // grade, not solution: autograded test cell
	KindSolution = "solution" // solution, not grade: an answer cell
	KindManual   = "manual"   // solution and grade: a manually graded answer
	KindTask     = "task"     // a manually graded task
	KindReadOnly = "readonly" // locked only
	KindNone     = ""         // no nbgrader role
)

// Kind classifies the cell by its flags, as nbgrader does.
func (m *Meta) Kind() string {
	switch {
	case m == nil:
		return KindNone
	case m.Task:
		return KindTask
	case m.Grade && m.Solution:
		return KindManual
	case m.Grade:
		return KindTest
	case m.Solution:
		return KindSolution
	case m.Locked:
		return KindReadOnly
	}
	return KindNone
}

// HasPoints reports whether the metadata carries a points value.
func (m *Meta) HasPoints() bool { return m.hasPoints }

// EffectiveLocked is nbgrader's is_locked: solution cells are never locked,
// grade cells always are, other cells follow the locked flag.
func (m *Meta) EffectiveLocked() bool {
	switch {
	case m == nil || m.Solution:
		return false
	case m.Grade:
		return true
	}
	return m.Locked
}

// GradeIDPattern is what nbgrader accepts as a grade_id.
var GradeIDPattern = lazyre.New(`^[a-zA-Z0-9_\-]*$`)

// Get returns the cell's nbgrader metadata, or nil when it has none.
func Get(c *notebook.Cell) (*Meta, error) {
	raw, ok := c.Metadata["nbgrader"]
	if !ok {
		return nil, nil
	}
	var m Meta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("metadata.nbgrader: %w", err)
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(raw, &keys) // it decoded above
	_, m.hasPoints = keys["points"]
	return &m, nil
}

// Set writes m as the cell's metadata.nbgrader, keeping keys of the existing
// object that Meta does not know. A zero Points is written only when the cell
// is a grade cell.
func Set(c *notebook.Cell, m *Meta) error {
	obj := map[string]json.RawMessage{}
	if raw, ok := c.Metadata["nbgrader"]; ok {
		_ = json.Unmarshal(raw, &obj) // a malformed object is replaced
	}
	put := func(k string, v any) {
		b, _ := json.Marshal(v) // plain values always encode
		obj[k] = b
	}
	put("schema_version", m.SchemaVersion)
	put("grade", m.Grade)
	put("solution", m.Solution)
	put("locked", m.Locked)
	for k, v := range map[string]string{"grade_id": m.GradeID, "checksum": m.Checksum, "cell_type": m.CellType} {
		if v != "" {
			put(k, v)
		} else {
			delete(obj, k)
		}
	}
	if m.Task {
		put("task", true)
	}
	if m.Grade || m.Points != 0 {
		obj["points"] = json.RawMessage(strconv.FormatFloat(m.Points, 'f', -1, 64))
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if c.Metadata == nil {
		c.Metadata = notebook.Object{}
	}
	c.Metadata["nbgrader"] = b
	return nil
}

// pyFloatRepr formats f as Python's repr(float(f)) does: the shortest digits
// that round-trip, in positional form for 1e-4 <= |f| < 1e16 (always with a
// fractional part, "2.0") and in exponent form otherwise ("1e+16", "1e-05").
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	i := strings.LastIndexByte(e, 'e')
	mant, expText := e[:i], e[i+1:]
	exp, _ := strconv.Atoi(expText)
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	return fmt.Sprintf("%se%s%02d", mant, sign, exp)
}
