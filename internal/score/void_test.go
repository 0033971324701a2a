package score

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/nbtest"
	"github.com/goagx/agx/internal/rebuild"
)

// TestForbid: the source's metadata.agx.forbid names packages and names a
// student cell may not use (an agx built-in or a reference solution that
// implements the answer); a use is flagged forbidden, and the test cells
// after it get no points.
func TestForbid(t *testing.T) {
	src := nbtest.ReadNB(t, "../autograde/testdata/double.ipynb")
	src.Metadata["agx"] = json.RawMessage(`{"forbid": ["functions", "GELU"]}`)
	for _, tc := range []struct{ name, code, want string }{
		{"own function", "func Double(x float64) float64 { return 2 * x }\n\nfunc GELU(x float64) float64 { return x }\n\nvar y = GELU(1)", ""},
		{"method", "func Double(x float64) float64 { return agx.Scalar(x).GELU().Item() }", gradebook.FlagForbidden},
		{"package use", "func Double(x float64) float64 { return functions.GELU(agx.Scalar(x)).Item() }", gradebook.FlagForbidden + "," + gradebook.FlagForbidden},
		{"import", "import fn \"github.com/goagx/agx/functions\"\n\nvar d = fn.X", gradebook.FlagForbidden},
		{"dot import", "import . \"github.com/goagx/agx/functions\"", gradebook.FlagForbidden},
		{"in a string or comment", "// x.GELU() would do\nvar s = \"functions.GELU\"", ""},
		{"longer name", "var f = x.GELUTanh", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := nbtest.Release(t, src)
			nbtest.CellByID(t, sub, "double-code").Source = tc.code
			rb, err := rebuild.Rebuild(src, sub, nbtest.Counter())
			if err != nil {
				t.Fatal(err)
			}
			flags := rebuild.ScanStudentCells(rb)
			var kinds []string
			for _, f := range flags {
				if f.Kind == gradebook.FlagForbidden {
					kinds = append(kinds, f.Kind)
				}
			}
			if got := strings.Join(kinds, ","); got != tc.want {
				t.Errorf("flags %q, want %q (%+v)", got, tc.want, flags)
			}
			var cells []*gradebook.CellGrade
			for _, rc := range rb.Cells {
				if rc.Kind == nbgrader.KindTest {
					cells = append(cells, &gradebook.CellGrade{GradeID: rc.GradeID, Kind: rc.Kind, Points: rc.Points, AutoPoints: rc.Points, Status: gradebook.StatusPassed})
				}
			}
			voided := VoidAfterFlags(rb, flags, cells)
			if (len(voided) > 0) != (tc.want != "") {
				t.Errorf("voided %v", voided)
			}
			for _, c := range cells {
				if tc.want != "" && (c.Points != 0 || c.Status != gradebook.StatusRejected || !strings.Contains(strings.Join(c.Messages, " "), "forbids")) {
					t.Errorf("%s after a forbidden use: %+v", c.GradeID, c)
				}
			}
		})
	}
	// A malformed list is the instructor's error.
	src.Metadata["agx"] = json.RawMessage(`{"forbid": ["a b"]}`)
	if _, err := rebuild.Rebuild(src, nbtest.Release(t, src), nbtest.Counter()); err == nil {
		t.Error("a forbid entry with a space was accepted")
	}
}
