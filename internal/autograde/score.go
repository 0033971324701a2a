package autograde

import (
	"fmt"
	"math"
	"strings"

	"github.com/goagx/agx/grade"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
)

// Cell statuses in the gradebook.
const (
	StatusPassed   = "passed"    // the result gives all the points
	StatusPartial  = "partial"   // some of the points
	StatusFailed   = "failed"    // a valid result with no points
	StatusRejected = "rejected"  // a result whose total disagrees with the cell's points, or results the cell's Grader did not produce
	StatusError    = "error"     // no result; the cell failed (compile error, panic)
	StatusTimeout  = "timeout"   // no result; the cell ran past its time limit
	StatusNotRun   = "not_run"   // the cell was not executed
	StatusNoResult = "no_result" // the cell ran but reported nothing (os.Exit, crash)
	StatusManual   = "manual"    // graded by hand (overrides)
	// StatusUngradable: the cell's output could not all be read (it did not
	// arrive in time), so whether it reported a result is unknown; the entry
	// is ungradable and retried on the next run.
	StatusUngradable = "ungradable"
)

// CellGrade is the grade of one graded cell.
type CellGrade struct {
	GradeID    string   `json:"grade_id"`
	Kind       string   `json:"kind"`        // test, manual or task
	Points     float64  `json:"points"`      // after overrides
	AutoPoints float64  `json:"auto_points"` // what the autograder gave
	MaxPoints  float64  `json:"max_points"`  // the source's points
	Status     string   `json:"status"`
	Messages   []string `json:"messages,omitempty"`
	Checks     []Check  `json:"checks,omitempty"`
	NonceOK    bool     `json:"nonce_ok"` // a result with this run's nonce came from this cell
	// HasHidden: the source cell has hidden tests, so feedback withholds its
	// raw error messages (they may quote hidden code).
	HasHidden bool      `json:"has_hidden,omitempty"`
	Seconds   float64   `json:"seconds"`
	Override  *Override `json:"override,omitempty"`
	// Bonus: an optional cell (metadata.agx.bonus in the source); its points
	// count in the score, not in the maximum.
	Bonus bool `json:"bonus,omitempty"`
	// AnswerErrors: the errors of the student's own cells before this test
	// cell (a compile error in the answer, a panic), when the cell did not
	// pass. They quote only the student's code, so feedback shows them even
	// where the cell's own messages are withheld.
	AnswerErrors []string `json:"answer_errors,omitempty"`
}

// Check is one check of a test cell's result.
type Check struct {
	Name    string  `json:"name"`
	Points  float64 `json:"points"`
	Max     float64 `json:"max"`
	Status  string  `json:"status"`
	Hidden  bool    `json:"hidden"`
	Message string  `json:"message,omitempty"`
}

// maxMessage bounds the messages the gradebook keeps from a cell's outputs.
const maxMessage = 2000

// score grades the executed notebook res (the rebuilt notebook rb, run) from
// the source's points and the results that carry each test cell's nonce.
func score(rb *Rebuilt, res *jupyter.Result) ([]*CellGrade, []Flag) {
	runs := map[int]*jupyter.CellRun{}
	for _, r := range res.Cells {
		runs[r.Index] = r
	}
	var cells []*CellGrade
	var flags []Flag
	var answerErrs []string // of the student's cells so far
	for _, rc := range rb.Cells {
		c := res.Notebook.Cells[rc.Index]
		run := runs[rc.Index]
		name := cellName(rc)
		if rc.Student() && c.CellType == notebook.Code {
			if msgs, failed := cellErrors(c); failed && len(msgs) > 0 {
				answerErrs = append(answerErrs, fmt.Sprintf("your cell %s failed: %s", name, clip(msgs[0], maxMessage/2)))
			}
		}
		if run != nil && run.TimedOut {
			flags = append(flags, Flag{Kind: FlagTimeout, Cell: name, Message: "the cell ran past its time limit and was interrupted"})
		}
		if run != nil && run.OutputTruncated {
			flags = append(flags, Flag{Kind: FlagOutputCapped, Cell: name, Message: "the cell's output was truncated"})
		}
		isTest := rc.Kind == nbgrader.KindTest && c.CellType == notebook.Code
		var accepted []*grade.Result
		void := "" // why the test cell's results cannot be trusted
		for _, o := range c.Outputs {
			raw, ok := o.Data[grade.MIMEType]
			if !ok {
				if !isTest && looksForged(o) {
					flags = append(flags, Flag{Kind: FlagForged, Cell: name, Message: "printed text that looks like a grade result; ignored"})
				}
				continue
			}
			r, err := grade.ParseOutput(raw)
			switch {
			case !isTest:
				flags = append(flags, Flag{Kind: FlagForged, Cell: name, Message: "a grade result from a cell that is not a test cell; ignored"})
			case err != nil:
				// No text of the result is quoted: code in the test cell's
				// program could put the hidden tests there, and flags and
				// messages reach the student's feedback.
				void = "an unreadable grade result"
			case r.GradeID != rc.GradeID || !r.Verify(rc.Nonce):
				// The MAC covers every check and score: a genuine result
				// that code in the program rewrote on its way (GoNB's pipe
				// is found through GONB_PIPE, which that code can change)
				// no longer verifies.
				void = "a grade result that this run's secret does not authenticate, or for another cell"
			default:
				accepted = append(accepted, r)
			}
		}
		switch {
		case isTest:
			if len(accepted) > 1 {
				void = fmt.Sprintf("%d results with this run's nonce", len(accepted))
			}
			if void != "" {
				// Only the test cell's own Grader reports, once: anything else
				// in its outputs means that code other than the checks took
				// part, so none of its results is trusted.
				flags = append(flags, Flag{Kind: FlagForged, Cell: name, Message: void + "; the cell gets no points"})
				cells = append(cells, voidGrade(rc, c, run, void))
				continue
			}
			g := testGrade(rc, c, run, accepted)
			g.Bonus = isBonus(c)
			if g.Status != StatusPassed && len(answerErrs) > 0 {
				g.AnswerErrors = append([]string{}, answerErrs...)
			}
			if g.Status == StatusNoResult || g.Status == StatusError || g.Status == StatusTimeout {
				flags = append(flags, Flag{Kind: FlagNoResult, Cell: name, Message: "no result: " + g.Status})
			}
			cells = append(cells, g)
		case rc.Kind == nbgrader.KindManual || rc.Kind == nbgrader.KindTask:
			cells = append(cells, &CellGrade{GradeID: rc.GradeID, Kind: rc.Kind, MaxPoints: rc.Points, Status: StatusManual, Bonus: isBonus(c),
				Messages: []string{"graded by hand: add a line to " + OverridesFile}})
		}
	}
	return cells, flags
}

// voidGrade is the grade of a test cell whose outputs hold a result that its
// own Grader did not produce: 0 points, status rejected.
func voidGrade(rc *RebuiltCell, c *notebook.Cell, run *jupyter.CellRun, why string) *CellGrade {
	g := &CellGrade{GradeID: rc.GradeID, Kind: rc.Kind, MaxPoints: rc.Points, Status: StatusRejected,
		HasHidden: nbgrader.HasHiddenTests(c.Source),
		Messages:  []string{"the cell's outputs hold " + why + "; no points given"}}
	if run != nil {
		g.Seconds = run.Seconds
	}
	return g
}

// testGrade scores one test cell from its one accepted result.
func testGrade(rc *RebuiltCell, c *notebook.Cell, run *jupyter.CellRun, accepted []*grade.Result) *CellGrade {
	g := &CellGrade{GradeID: rc.GradeID, Kind: rc.Kind, MaxPoints: rc.Points, HasHidden: nbgrader.HasHiddenTests(c.Source)}
	if run != nil {
		g.Seconds = run.Seconds
	}
	if len(accepted) > 0 {
		r := accepted[0]
		g.NonceOK = true
		for _, ch := range r.Checks {
			g.Checks = append(g.Checks, Check{Name: ch.Name, Points: ch.Points, Max: ch.Max, Status: ch.Status, Hidden: ch.Hidden, Message: ch.Message})
		}
		switch {
		case math.Abs(r.MaxScore-rc.Points) > 1e-9:
			g.Status = StatusRejected
			g.Messages = append(g.Messages, fmt.Sprintf("the result's checks are worth %g points, the cell %g; no points given", r.MaxScore, rc.Points))
		case r.MaxScore == 0:
			g.Status = StatusPassed
		default:
			g.AutoPoints = rc.Points * (r.Score / r.MaxScore)
			switch {
			case r.Score == r.MaxScore:
				g.Status, g.AutoPoints = StatusPassed, rc.Points
			case r.Score > 0:
				g.Status = StatusPartial
			default:
				g.Status = StatusFailed
			}
		}
		if run != nil && run.TimedOut {
			g.Messages = append(g.Messages, "the cell ran past its time limit after reporting")
		}
		g.Points = g.AutoPoints
		return g
	}
	switch {
	case run != nil && run.OutputIncomplete:
		g.Status = StatusUngradable
		g.Messages = append(g.Messages, "the cell's output did not all arrive after its program ended (the grading machine was too busy?), so its result could not be read; it will be graded again")
	case run == nil || !run.Ran:
		g.Status = StatusNotRun
		if run != nil && run.Skipped != "" {
			g.Messages = append(g.Messages, "not run: "+run.Skipped)
		}
	case run.TimedOut:
		g.Status = StatusTimeout
		g.Messages = append(g.Messages, fmt.Sprintf("the cell ran past its time limit (%.0fs) without reporting", run.Seconds))
	default:
		g.Status = StatusNoResult
		msgs, failed := cellErrors(c)
		g.Messages = append(g.Messages, msgs...)
		if failed {
			g.Status = StatusError
		}
		if g.Status == StatusNoResult {
			g.Messages = append(g.Messages, "the cell reported no result (its program ended early: os.Exit, a crash in a goroutine, or a killed process)")
		}
	}
	return g
}

// looksForged reports whether an output that is not a grade result carries
// text shaped like one (a student printing a result).
func looksForged(o *notebook.Output) bool {
	texts := []string{o.Text}
	for mime := range o.Data {
		if t, ok := o.DataText(mime); ok {
			texts = append(texts, t)
		}
	}
	for _, t := range texts {
		if strings.Contains(t, grade.MIMEType) || (strings.Contains(t, `"grade_id"`) && strings.Contains(t, `"max_score"`)) {
			return true
		}
	}
	return false
}
