package autograde

import (
	"encoding/json"
	"testing"

	"github.com/goagx/agx/grade"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// TestScoreVoids: a test cell counts only when its outputs hold exactly one
// result, its own; a second result (even a valid one), or one with another
// nonce or grade_id, voids the cell and flags it.
func TestScoreVoids(t *testing.T) {
	result := func(id, nonce string, passed bool) *notebook.Output {
		g := grade.New(id).Nonce(nonce)
		g.Check("c", 2, func(c *grade.C) {
			if !passed {
				c.Fail("no")
			}
		})
		r := g.Done()
		raw, _ := json.Marshal(string(r.JSON()))
		return &notebook.Output{OutputType: notebook.DisplayData, Data: notebook.Object{grade.MIMEType: raw}}
	}
	for _, tc := range []struct {
		name    string
		outputs []*notebook.Output
		status  string
		points  float64
		forged  bool
	}{
		{"own result", []*notebook.Output{result("t", "N", true)}, StatusPassed, 2, false},
		{"own failing result", []*notebook.Output{result("t", "N", false)}, StatusFailed, 0, false},
		{"no result", nil, StatusNoResult, 0, false},
		{"two valid results", []*notebook.Output{result("t", "N", true), result("t", "N", true)}, StatusRejected, 0, true},
		{"forged then own", []*notebook.Output{result("t", "", true), result("t", "N", false)}, StatusRejected, 0, true},
		{"own then forged", []*notebook.Output{result("t", "N", true), result("t", "guess", true)}, StatusRejected, 0, true},
		{"forged only", []*notebook.Output{result("t", "", true)}, StatusRejected, 0, true},
		{"other grade_id", []*notebook.Output{result("u", "N", true), result("t", "N", true)}, StatusRejected, 0, true},
		{"unreadable", []*notebook.Output{{OutputType: notebook.DisplayData, Data: notebook.Object{grade.MIMEType: json.RawMessage(`"{}"`)}}, result("t", "N", true)}, StatusRejected, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta, _ := json.Marshal(map[string]any{"nbgrader": map[string]any{"schema_version": 3, "grade": true, "solution": false, "locked": true, "grade_id": "t", "points": 2}})
			cell := &notebook.Cell{CellType: notebook.Code, Source: "%%\ng := grade.New(\"t\")\ng.Done()", Outputs: tc.outputs}
			if err := json.Unmarshal(meta, &cell.Metadata); err != nil {
				t.Fatal(err)
			}
			nb := &notebook.Notebook{Nbformat: 4, NbformatMinor: 5, Cells: []*notebook.Cell{cell}}
			rb := &Rebuilt{Notebook: nb, Cells: []*RebuiltCell{{Index: 0, GradeID: "t", Kind: nbgrader.KindTest, Origin: FromSource, Points: 2, Nonce: "N"}}}
			res := &jupyter.Result{Notebook: nb, Cells: []*jupyter.CellRun{{Index: 0, Ran: true}}}
			cells, flags := score(rb, res)
			if len(cells) != 1 || cells[0].Status != tc.status || cells[0].Points != tc.points {
				t.Fatalf("got %+v, want %s with %v points", cells[0], tc.status, tc.points)
			}
			forged := false
			for _, f := range flags {
				forged = forged || f.Kind == FlagForged
			}
			if forged != tc.forged {
				t.Errorf("forged_result flag %v, want %v: %+v", forged, tc.forged, flags)
			}
		})
	}
}
