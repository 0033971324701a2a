package score

import (
	"fmt"
	"math"
	"strings"

	"github.com/goagx/agx/grade"
	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/rebuild"
)

// Score grades the executed notebook res (the rebuilt notebook rb, run) from
// the source's points and the results that carry each test cell's nonce.
func Score(rb *rebuild.Rebuilt, res *jupyter.Result) ([]*gradebook.CellGrade, []gradebook.Flag) {
	runs := map[int]*jupyter.CellRun{}
	for _, r := range res.Cells {
		runs[r.Index] = r
	}
	var cells []*gradebook.CellGrade
	var flags []gradebook.Flag
	var answerErrs []string // of the student's cells so far
	for _, rc := range rb.Cells {
		c := res.Notebook.Cells[rc.Index]
		run := runs[rc.Index]
		name := rc.Name()
		if rc.Student() && c.CellType == notebook.Code {
			if msgs, failed := cellErrors(c); failed && len(msgs) > 0 {
				answerErrs = append(answerErrs, fmt.Sprintf("your cell %s failed: %s", name, notebook.Clip(msgs[0], gradebook.MaxMessage/2)))
			}
		}
		if run != nil && run.TimedOut {
			flags = append(flags, gradebook.Flag{Kind: gradebook.FlagTimeout, Cell: name, Message: "the cell ran past its time limit and was interrupted"})
		}
		if run != nil && run.OutputTruncated {
			flags = append(flags, gradebook.Flag{Kind: gradebook.FlagOutputCapped, Cell: name, Message: "the cell's output was truncated"})
		}
		isTest := rc.Kind == nbgrader.KindTest && c.CellType == notebook.Code
		accepted, void, resFlags := results(rc, c, isTest, name)
		flags = append(flags, resFlags...)
		switch {
		case isTest:
			if len(accepted) > 1 {
				void = fmt.Sprintf("%d results with this run's nonce", len(accepted))
			}
			if void != "" {
				// Only the test cell's own Grader reports, once: anything else
				// in its outputs means that code other than the checks took
				// part, so none of its results is trusted.
				flags = append(flags, gradebook.Flag{Kind: gradebook.FlagForged, Cell: name, Message: void + "; the cell gets no points"})
				cells = append(cells, voidGrade(rc, c, run, void))
				continue
			}
			g := testGrade(rc, c, run, accepted)
			g.Bonus = nbgrader.IsBonus(c)
			if g.Status != gradebook.StatusPassed && len(answerErrs) > 0 {
				g.AnswerErrors = append([]string{}, answerErrs...)
			}
			if g.Status == gradebook.StatusNoResult || g.Status == gradebook.StatusError || g.Status == gradebook.StatusTimeout {
				flags = append(flags, gradebook.Flag{Kind: gradebook.FlagNoResult, Cell: name, Message: "no result: " + g.Status})
			}
			cells = append(cells, g)
		case rc.Kind == nbgrader.KindManual || rc.Kind == nbgrader.KindTask:
			cells = append(cells, &gradebook.CellGrade{GradeID: rc.GradeID, Kind: rc.Kind, MaxPoints: rc.Points, Status: gradebook.StatusManual, Bonus: nbgrader.IsBonus(c),
				Messages: []string{"graded by hand: add a line to " + gradebook.OverridesFile}})
		}
	}
	return cells, flags
}

// results reads the grade results in the outputs of cell c (rc in the
// rebuilt notebook): those its nonce and this run's secret authenticate,
// why the cell's results cannot be trusted ("" when they can), and the
// flags of results (or text shaped like them) outside test cells.
func results(rc *rebuild.RebuiltCell, c *notebook.Cell, isTest bool, name string) (accepted []*grade.Result, void string, flags []gradebook.Flag) {
	for _, o := range c.Outputs {
		raw, ok := o.Data[grade.MIMEType]
		if !ok {
			if !isTest && looksForged(o) {
				flags = append(flags, gradebook.Flag{Kind: gradebook.FlagForged, Cell: name, Message: "printed text that looks like a grade result; ignored"})
			}
			continue
		}
		r, err := grade.ParseOutput(raw)
		switch {
		case !isTest:
			flags = append(flags, gradebook.Flag{Kind: gradebook.FlagForged, Cell: name, Message: "a grade result from a cell that is not a test cell; ignored"})
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
	return accepted, void, flags
}

// voidGrade is the grade of a test cell whose outputs hold a result that its
// own Grader did not produce: 0 points, status rejected.
func voidGrade(rc *rebuild.RebuiltCell, c *notebook.Cell, run *jupyter.CellRun, why string) *gradebook.CellGrade {
	g := &gradebook.CellGrade{GradeID: rc.GradeID, Kind: rc.Kind, MaxPoints: rc.Points, Status: gradebook.StatusRejected,
		HasHidden: nbgrader.HasHiddenTests(c.Source),
		Messages:  []string{"the cell's outputs hold " + why + "; no points given"}}
	if run != nil {
		g.Seconds = run.Seconds
	}
	return g
}

// testGrade scores one test cell from its one accepted result.
func testGrade(rc *rebuild.RebuiltCell, c *notebook.Cell, run *jupyter.CellRun, accepted []*grade.Result) *gradebook.CellGrade {
	g := &gradebook.CellGrade{GradeID: rc.GradeID, Kind: rc.Kind, MaxPoints: rc.Points, HasHidden: nbgrader.HasHiddenTests(c.Source)}
	if run != nil {
		g.Seconds = run.Seconds
	}
	if len(accepted) > 0 {
		r := accepted[0]
		g.NonceOK = true
		for _, ch := range r.Checks {
			g.Checks = append(g.Checks, gradebook.Check{Name: ch.Name, Points: ch.Points, Max: ch.Max, Status: ch.Status, Hidden: ch.Hidden, Message: ch.Message})
		}
		switch {
		case math.Abs(r.MaxScore-rc.Points) > 1e-9:
			g.Status = gradebook.StatusRejected
			g.Messages = append(g.Messages, fmt.Sprintf("the result's checks are worth %g points, the cell %g; no points given", r.MaxScore, rc.Points))
		case r.MaxScore == 0:
			g.Status = gradebook.StatusPassed
		default:
			g.AutoPoints = rc.Points * (r.Score / r.MaxScore)
			switch {
			case r.Score == r.MaxScore:
				g.Status, g.AutoPoints = gradebook.StatusPassed, rc.Points
			case r.Score > 0:
				g.Status = gradebook.StatusPartial
			default:
				g.Status = gradebook.StatusFailed
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
		g.Status = gradebook.StatusUngradable
		g.Messages = append(g.Messages, "the cell's output did not all arrive after its program ended (the grading machine was too busy?), so its result could not be read; it will be graded again")
	case run == nil || !run.Ran:
		g.Status = gradebook.StatusNotRun
		if run != nil && run.Skipped != "" {
			g.Messages = append(g.Messages, "not run: "+run.Skipped)
		}
	case run.TimedOut:
		g.Status = gradebook.StatusTimeout
		g.Messages = append(g.Messages, fmt.Sprintf("the cell ran past its time limit (%.0fs) without reporting", run.Seconds))
	default:
		g.Status = gradebook.StatusNoResult
		msgs, failed := cellErrors(c)
		g.Messages = append(g.Messages, msgs...)
		if failed {
			g.Status = gradebook.StatusError
		}
		if g.Status == gradebook.StatusNoResult {
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
