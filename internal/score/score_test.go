package score

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goagx/agx/grade"
	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/nbtest"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/rebuild"
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
		{"own result", []*notebook.Output{result("t", "N", true)}, gradebook.StatusPassed, 2, false},
		{"own failing result", []*notebook.Output{result("t", "N", false)}, gradebook.StatusFailed, 0, false},
		{"no result", nil, gradebook.StatusNoResult, 0, false},
		{"two valid results", []*notebook.Output{result("t", "N", true), result("t", "N", true)}, gradebook.StatusRejected, 0, true},
		{"forged then own", []*notebook.Output{result("t", "", true), result("t", "N", false)}, gradebook.StatusRejected, 0, true},
		{"own then forged", []*notebook.Output{result("t", "N", true), result("t", "guess", true)}, gradebook.StatusRejected, 0, true},
		{"forged only", []*notebook.Output{result("t", "", true)}, gradebook.StatusRejected, 0, true},
		{"other grade_id", []*notebook.Output{result("u", "N", true), result("t", "N", true)}, gradebook.StatusRejected, 0, true},
		{"unreadable", []*notebook.Output{{OutputType: notebook.DisplayData, Data: notebook.Object{grade.MIMEType: json.RawMessage(`"{}"`)}}, result("t", "N", true)}, gradebook.StatusRejected, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta, _ := json.Marshal(map[string]any{"nbgrader": map[string]any{"schema_version": 3, "grade": true, "solution": false, "locked": true, "grade_id": "t", "points": 2}})
			cell := &notebook.Cell{CellType: notebook.Code, Source: "%%\ng := grade.New(\"t\")\ng.Done()", Outputs: tc.outputs}
			if err := json.Unmarshal(meta, &cell.Metadata); err != nil {
				t.Fatal(err)
			}
			nb := &notebook.Notebook{Nbformat: 4, NbformatMinor: 5, Cells: []*notebook.Cell{cell}}
			rb := &rebuild.Rebuilt{Notebook: nb, Cells: []*rebuild.RebuiltCell{{Index: 0, GradeID: "t", Kind: nbgrader.KindTest, Origin: rebuild.FromSource, Points: 2, Nonce: "N"}}}
			res := &jupyter.Result{Notebook: nb, Cells: []*jupyter.CellRun{{Index: 0, Ran: true}}}
			cells, flags := Score(rb, res)
			if len(cells) != 1 || cells[0].Status != tc.status || cells[0].Points != tc.points {
				t.Fatalf("got %+v, want %s with %v points", cells[0], tc.status, tc.points)
			}
			forged := false
			for _, f := range flags {
				forged = forged || f.Kind == gradebook.FlagForged
			}
			if forged != tc.forged {
				t.Errorf("forged_result flag %v, want %v: %+v", forged, tc.forged, flags)
			}
		})
	}
}

// TestDisarmAndVoid: magic lines of student cells become comments; a
// student cell with a voiding flag costs the test cells after it their
// points, and only those.
func TestDisarmAndVoid(t *testing.T) {
	src := nbtest.ReadNB(t, "../autograde/testdata/double.ipynb")
	for _, tc := range []struct {
		name, code string
		lines      []string // lines the cell must then hold
		voided     bool
	}{
		{"magic", "!*go mod edit -replace=x=y\n%env A=1\n%%\nfmt.Println(1)", []string{"// agx autograde: not run at grading: !*go mod edit -replace=x=y", "// agx autograde: not run at grading: %env A=1", "%%"}, false},
		{"gonb-prefix", "//gonb:!echo hi\n//gonb:%goflags -toolexec=/tmp/tx\n//gonb:%%\nfmt.Println(1)", []string{"// agx autograde: not run at grading: //gonb:!echo hi", "// agx autograde: not run at grading: //gonb:%goflags -toolexec=/tmp/tx", "//gonb:%%"}, false},
		{"plain", "func Double(x float64) float64 { return 2 * x }", []string{"func Double(x float64) float64 { return 2 * x }"}, false},
		{"unsafe", "func Double(x float64) float64 { _ = unsafe.Pointer(nil); return 2 * x }", nil, true},
		{"cgo", "import \"C\"\n\nfunc Double(x float64) float64 { return 2 * x }", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := nbtest.Solved(t, src)
			nbtest.CellByID(t, sub, "double-code").Source = tc.code
			rb, err := rebuild.Rebuild(src, sub, nbtest.Counter())
			if err != nil {
				t.Fatal(err)
			}
			flags := rebuild.ScanStudentCells(rb)
			rebuild.DisarmMagic(rb)
			got := nbtest.CellByID(t, rb.Notebook, "double-code").Source
			for _, l := range tc.lines {
				if !strings.Contains(got+"\n", l+"\n") {
					t.Errorf("the cell lacks %q:\n%s", l, got)
				}
			}
			cells := []*gradebook.CellGrade{{GradeID: "double-test", Kind: nbgrader.KindTest, Points: 2, AutoPoints: 2, MaxPoints: 2, Status: gradebook.StatusPassed},
				{GradeID: "explain", Kind: nbgrader.KindManual, MaxPoints: 1, Status: gradebook.StatusManual}}
			voided := VoidAfterFlags(rb, flags, cells)
			if (len(voided) > 0) != tc.voided || (tc.voided && (cells[0].AutoPoints != 0 || cells[0].Status != gradebook.StatusRejected)) {
				t.Errorf("voided %v, cells %+v; want voided %v", voided, cells[0], tc.voided)
			}
			if cells[1].Status != gradebook.StatusManual {
				t.Errorf("a manual cell was voided: %+v", cells[1])
			}
		})
	}
}

// TestTestGradeWithoutResult: a test cell without an accepted result gets
// the status and messages that say why.
func TestTestGradeWithoutResult(t *testing.T) {
	for _, tc := range []struct {
		name    string
		run     *jupyter.CellRun
		outputs []*notebook.Output
		status  string
		message string // a substring of the messages; "" for none wanted
	}{
		{"not run", &jupyter.CellRun{Skipped: "the kernel died"}, nil, gradebook.StatusNotRun, "not run: the kernel died"},
		{"timeout", &jupyter.CellRun{Ran: true, TimedOut: true, Seconds: 120}, nil, gradebook.StatusTimeout, "time limit"},
		{"no result", &jupyter.CellRun{Ran: true}, nil, gradebook.StatusNoResult, "reported no result"},
		{"output lost", &jupyter.CellRun{Ran: true, OutputIncomplete: true}, nil, gradebook.StatusUngradable, "did not all arrive"},
		{"output lost after a timeout", &jupyter.CellRun{Ran: true, TimedOut: true, OutputIncomplete: true}, nil, gradebook.StatusUngradable, "could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := &rebuild.RebuiltCell{GradeID: "t", Kind: "test", Points: 2}
			g := testGrade(rc, &notebook.Cell{CellType: notebook.Code, Outputs: tc.outputs}, tc.run, nil)
			if g.Status != tc.status || g.Points != 0 {
				t.Errorf("status %s points %v, want %s and 0", g.Status, g.Points, tc.status)
			}
			if msg := strings.Join(g.Messages, "\n"); !strings.Contains(msg, tc.message) {
				t.Errorf("messages %q lack %q", g.Messages, tc.message)
			}
		})
	}
}
