package nbgrader

import (
	"crypto/md5"
	"encoding/hex"

	"github.com/goagx/agx/internal/notebook"
)

// Checksum computes nbgrader's checksum of a cell (nbgrader.utils.compute_checksum):
//
//	md5( source
//	   + cell_type
//	   + str(is_grade) + str(is_solution) + str(is_locked)   // "True" / "False"
//	   + grade_id
//	   + str(float(points))  if is_grade )                   // Python repr: "2.0", "0.5", "1e-05"
//
// as one MD5 over the UTF-8 concatenation, hex-encoded. is_locked is
// EffectiveLocked (solution cells never, grade cells always). The source is the
// cell's source as one string (nbformat joins the stored lines). It detects
// casual edits only: anyone can recompute it.
func Checksum(c *notebook.Cell, m *Meta) string {
	h := md5.New()
	py := func(b bool) string {
		if b {
			return "True"
		}
		return "False"
	}
	h.Write([]byte(c.Source))
	h.Write([]byte(c.CellType))
	h.Write([]byte(py(m.Grade)))
	h.Write([]byte(py(m.Solution)))
	h.Write([]byte(py(m.EffectiveLocked())))
	h.Write([]byte(m.GradeID))
	if m.Grade {
		h.Write([]byte(pyFloatRepr(m.Points)))
	}
	return hex.EncodeToString(h.Sum(nil))
}
