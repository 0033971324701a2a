package autograde

import (
	"strings"
	"testing"

	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/notebook"
)

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
		{"not run", &jupyter.CellRun{Skipped: "the kernel died"}, nil, StatusNotRun, "not run: the kernel died"},
		{"timeout", &jupyter.CellRun{Ran: true, TimedOut: true, Seconds: 120}, nil, StatusTimeout, "time limit"},
		{"no result", &jupyter.CellRun{Ran: true}, nil, StatusNoResult, "reported no result"},
		{"output lost", &jupyter.CellRun{Ran: true, OutputIncomplete: true}, nil, StatusUngradable, "did not all arrive"},
		{"output lost after a timeout", &jupyter.CellRun{Ran: true, TimedOut: true, OutputIncomplete: true}, nil, StatusUngradable, "could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := &RebuiltCell{GradeID: "t", Kind: "test", Points: 2}
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
