package autograde

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goagx/agx/grade"
	"github.com/goagx/agx/internal/gotool"
	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/rebuild"
	"github.com/goagx/agx/internal/sandbox"
	"github.com/goagx/agx/internal/score"
)

// Options configure Grade.
type Options struct {
	Source         string        // the instructor source notebook
	Dir            string        // the gradebook directory
	Kernel         string        // Jupyter kernelspec to wrap
	Python         string        // interpreter with nbclient; jupyter.DefaultPython when empty
	CellTimeout    time.Duration // per cell
	Timeout        time.Duration // per notebook
	MaxOutputBytes int           // per cell
	Limits         Limits
	// Isolation is IsolationStrict ("" too) or IsolationBestEffort.
	Isolation string
	// Docker, when set, is the grader image: each submission is graded in a
	// fresh container of it (docker.go), of at most ContainerMemory bytes
	// (DefaultContainerMemory when 0).
	Docker          string
	ContainerMemory int64
	Jobs            int  // submissions graded at once (at least 1)
	Force           bool // regrade submissions whose entry is up to date
	// Log receives the progress display (one line per event); nil for none.
	Log io.Writer
	// NewNonce makes the nonces; nbgrader.NewNonce when nil.
	NewNonce func() string
}

// Submission is one student's notebook.
type Submission struct {
	Student string
	Path    string
}

// Summary is what Grade did.
type Summary struct {
	Graded, Skipped, Ungradable int
	Entries                     []*gradebook.Entry // every entry in the gradebook after the run, by student
	Warnings                    []string           // about overrides (the sandbox's go to Log and Isolation)
	Isolation                   []string

	// Invalid counts the submissions that are not this assignment's
	// notebook (Unreadable, WrongNotebook): the student's to fix.
	Invalid int
}

// FindSubmissions turns the command-line arguments into submissions. An
// argument is either a notebook file STUDENT.ipynb (the student id is the
// file name without .ipynb) or a directory holding one directory per student
// with the notebook under the source's file name: DIR/STUDENT/NAME.ipynb, or
// nbgrader's layout DIR/STUDENT/ASSIGNMENT/NAME.ipynb (DIR is nbgrader's
// submitted/). Student directories without it are reported in the warnings.
func FindSubmissions(sourceName string, args []string) ([]Submission, []string, error) {
	return FindSubmissionsOf(sourceName, "", args)
}

// FindSubmissionsOf is FindSubmissions for one assignment of nbgrader's
// layout: when assignment is not empty, a student directory's notebook is
// looked for only in DIR/STUDENT/ASSIGNMENT/NAME.ipynb; when it is empty,
// DIR/STUDENT/NAME.ipynb or the one assignment directory that holds NAME.
func FindSubmissionsOf(sourceName, assignment string, args []string) ([]Submission, []string, error) {
	if assignment != "" && (assignment != filepath.Base(assignment) || strings.HasPrefix(assignment, ".")) {
		return nil, nil, fmt.Errorf("assignment %q: want a directory name", assignment)
	}
	var subs []Submission
	var warnings []string
	seen := map[string]string{}
	add := func(student, path string) error {
		if !gradebook.StudentPattern.MatchString(student) {
			return fmt.Errorf("%s: student id %q may hold only letters, digits and . _ @ + - (and not start with a symbol)", path, student)
		}
		if prev, ok := seen[student]; ok {
			return fmt.Errorf("student %s has two submissions: %s and %s", student, prev, path)
		}
		seen[student] = path
		subs = append(subs, Submission{student, path})
		return nil
	}
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			if !strings.HasSuffix(a, ".ipynb") {
				return nil, nil, fmt.Errorf("%s is not a notebook (.ipynb) or a directory", a)
			}
			if err := add(strings.TrimSuffix(filepath.Base(a), ".ipynb"), a); err != nil {
				return nil, nil, err
			}
			continue
		}
		ents, err := os.ReadDir(a)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range ents {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p, why := studentNotebook(filepath.Join(a, e.Name()), sourceName, assignment)
			if p == "" {
				warnings = append(warnings, fmt.Sprintf("%s: %s; not graded", filepath.Join(a, e.Name()), why))
				continue
			}
			if err := add(e.Name(), p); err != nil {
				return nil, nil, err
			}
		}
	}
	return subs, warnings, nil
}

// Grade grades the submissions against the source and updates the gradebook
// in opt.Dir: one entry per student (written as soon as the student is
// graded), the overrides applied to every entry, and the class table. An
// entry that is graded and whose submission and source hashes match is kept
// unless opt.Force. It returns an error only for problems with the run as a
// whole (an invalid source, an unwritable gradebook, bad overrides); a
// submission that cannot be run gets an "ungradable" entry.
func Grade(ctx context.Context, opt Options, subs []Submission) (*Summary, error) {
	srcBytes, err := os.ReadFile(opt.Source)
	if err != nil {
		return nil, err
	}
	src, err := notebook.Parse(srcBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opt.Source, err)
	}
	if err := nbgrader.Validate(src); err != nil {
		return nil, fmt.Errorf("%s is not a valid instructor source:\n%w", opt.Source, err)
	}
	srcHash := sha256Hex(srcBytes)
	overrides, err := gradebook.ReadOverrides(opt.Dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(opt.Dir, gradebook.ExecutedDir), 0o755); err != nil {
		return nil, err
	}
	if opt.Jobs < 1 {
		opt.Jobs = 1
	}
	if opt.Python == "" {
		opt.Python = jupyter.DefaultPython
	}
	if opt.NewNonce == nil {
		opt.NewNonce = nbgrader.NewNonce
	}
	sum := &Summary{}
	logf := func(format string, args ...any) {}
	if opt.Log != nil {
		var mu sync.Mutex
		logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(opt.Log, format+"\n", args...)
		}
	}

	// The kernel and the sandbox; when they are missing every submission
	// that needs running is ungradable, with the reason.
	var sb *sandbox.Sandbox
	var dg *dockerGrader
	var infraErr error
	if opt.Docker != "" {
		if opt.Isolation == IsolationBestEffort {
			return nil, errors.New("--docker grades with the container's isolation or not at all: --isolation=" + IsolationBestEffort + " does not apply")
		}
		logf("checking the image %s and its isolation", opt.Docker)
		dg, sum.Isolation, err = newDockerGrader(ctx, opt)
		if err != nil {
			return nil, err
		}
		defer dg.cleanup()
	} else if infraErr = jupyter.CheckKernel(ctx, opt.Python, opt.Kernel); infraErr == nil {
		// Without the modules its scratch module needs, the kernel would
		// fail every cell: stop before grading anyone.
		if err := gotool.EnsureKernelModules(ctx, opt.Python, opt.Kernel, logf); err != nil {
			return nil, err
		}
		sb, infraErr = sandbox.New(ctx, opt.Python, opt.Kernel, opt.Limits, opt.Jobs, opt.Isolation)
		var isoErr *IsolationError
		if sb == nil && (opt.Limits.Network == NetNone || errors.As(infraErr, &isoErr)) {
			return nil, infraErr
		}
	}
	if sb != nil {
		defer sb.Cleanup()
		sum.Isolation = sb.Isolation()
		for _, w := range sb.Warnings() {
			logf("warning: %s", w)
		}
	}

	g := &grader{opt: opt, src: src, srcBytes: srcBytes, srcName: filepath.Base(opt.Source), srcHash: srcHash, sb: sb, docker: dg,
		isolation: sum.Isolation, infraErr: infraErr, logf: logf}
	total := len(subs)
	logf("grading %d %s of %s, %d at a time", total, plural(total, "submission", "submissions"), g.srcName, opt.Jobs)
	start := time.Now()
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
	)
	work := make(chan Submission)
	var writeErr error
	for range opt.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				var e *gradebook.Entry
				var skipped bool
				if g.docker != nil {
					e, skipped = g.oneInContainer(ctx, s)
				} else {
					e, skipped = g.one(ctx, s)
				}
				if e == nil { // interrupted
					continue
				}
				e.ApplyOverrides(overrides[e.Student])
				var err error
				if !skipped {
					err = gradebook.WriteEntry(opt.Dir, e)
				}
				mu.Lock()
				done++
				k := done
				switch {
				case err != nil:
					writeErr = errors.Join(writeErr, err)
				case skipped:
					sum.Skipped++
				case e.Status == gradebook.Ungradable:
					sum.Ungradable++
				case e.Status == gradebook.Unreadable || e.Status == gradebook.WrongNotebook:
					sum.Invalid++
				default:
					sum.Graded++
				}
				mu.Unlock()
				logf("[%*d/%d] %s", len(fmt.Sprint(total)), k, total, progressLine(e, skipped, time.Since(start)))
			}
		}()
	}
feed:
	for _, s := range subs {
		select {
		case work <- s:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if writeErr != nil {
		return nil, writeErr
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interrupted: %w (the entries written so far are kept; run again to go on)", context.Cause(ctx))
	}

	// Overrides apply to every entry, those of earlier runs too.
	entries, err := gradebook.ReadEntries(opt.Dir)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, e := range entries {
		known[e.Student] = true
		before := fmt.Sprint(e.Score, overrideKey(e))
		for _, id := range e.ApplyOverrides(overrides[e.Student]) {
			sum.Warnings = append(sum.Warnings, fmt.Sprintf("%s: override for %s, which is not a graded cell of %s", gradebook.OverridesFile, id, e.Student))
		}
		if fmt.Sprint(e.Score, overrideKey(e)) != before {
			if err := gradebook.WriteEntry(opt.Dir, e); err != nil {
				return nil, err
			}
		}
	}
	var unknown []string
	for s := range overrides {
		if !known[s] {
			unknown = append(unknown, s)
		}
	}
	sort.Strings(unknown)
	for _, s := range unknown {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%s: override for %s, who has no gradebook entry", gradebook.OverridesFile, s))
	}
	if err := gradebook.WriteClassTable(opt.Dir, entries); err != nil {
		return nil, err
	}
	sum.Entries = entries
	invalid := ""
	if sum.Invalid > 0 {
		invalid = fmt.Sprintf(", %d not this assignment's notebook", sum.Invalid)
	}
	logf("done in %.1fs: %d graded, %d unchanged, %d ungradable%s; wrote %s", time.Since(start).Seconds(),
		sum.Graded, sum.Skipped, sum.Ungradable, invalid, filepath.Join(opt.Dir, gradebook.ClassFile))
	return sum, nil
}

func overrideKey(e *gradebook.Entry) string {
	var b strings.Builder
	for _, c := range e.Cells {
		if c.Override != nil {
			fmt.Fprintf(&b, "%s=%v:%s;", c.GradeID, c.Override.Points, c.Override.Comment)
		}
	}
	return b.String()
}

func progressLine(e *gradebook.Entry, skipped bool, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s ", e.Student)
	switch {
	case skipped:
		fmt.Fprintf(&b, "%s / %s  unchanged, kept", formatPoints(e.Score), formatPoints(e.MaxScore))
	case e.Status != gradebook.Graded:
		fmt.Fprintf(&b, "%s: %s", strings.ToUpper(strings.ReplaceAll(e.Status, "_", " ")), notebook.Clip(firstLine(e.UngradableReason), 100))
	default:
		fmt.Fprintf(&b, "%s / %s  (%.1fs)", formatPoints(e.Score), formatPoints(e.MaxScore), e.Run.Seconds)
	}
	if len(e.Flags) > 0 {
		fmt.Fprintf(&b, "  flags: %s", gradebook.FlagSummary(e.Flags))
	}
	fmt.Fprintf(&b, "  [%.0fs elapsed]", elapsed.Seconds())
	return b.String()
}

func formatPoints(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

type grader struct {
	opt       Options
	src       *notebook.Notebook
	srcBytes  []byte
	srcName   string
	srcHash   string
	sb        *sandbox.Sandbox
	docker    *dockerGrader // with Options.Docker; sb is nil then
	isolation []string      // the run's measures
	infraErr  error
	logf      func(string, ...any)
}

// open starts the entry of submission s and reads the file. done is true
// when there is nothing more to do: the context was cancelled (e nil), the
// file cannot be read (e says so), or the existing entry is up to date (e
// is it, skipped).
func (g *grader) open(ctx context.Context, s Submission) (e *gradebook.Entry, b []byte, done, skipped bool) {
	if ctx.Err() != nil {
		return nil, nil, true, false
	}
	e = &gradebook.Entry{Version: gradebook.EntryVersion, Student: s.Student, Notebook: g.srcName, Submission: s.Path,
		SourceSHA256: g.srcHash, Cells: []*gradebook.CellGrade{}, Flags: []gradebook.Flag{}, Notes: []string{}}
	b, err := os.ReadFile(s.Path)
	if err != nil {
		return g.ungradable(e, "cannot read the submission: "+err.Error()), nil, true, false
	}
	e.SubmissionSHA256 = sha256Hex(b)
	if !g.opt.Force {
		if old, err := gradebook.ReadEntry(gradebook.EntryPath(g.opt.Dir, s.Student)); err == nil && old.Status == gradebook.Graded &&
			old.SubmissionSHA256 == e.SubmissionSHA256 && old.SourceSHA256 == e.SourceSHA256 {
			return old, b, true, true
		}
	}
	return e, b, false, false
}

// one grades one submission. It returns nil when the context was cancelled
// before the submission was graded, and skipped when the existing entry is
// up to date.
func (g *grader) one(ctx context.Context, s Submission) (e *gradebook.Entry, skipped bool) {
	e, b, done, skipped := g.open(ctx, s)
	if done {
		return e, skipped
	}
	sub, err := notebook.Parse(b)
	if err != nil {
		// The student's file, not the grader: say so.
		return g.notGraded(e, gradebook.Unreadable, "the submitted file is not a readable notebook ("+err.Error()+"); submit the .ipynb file that Jupyter saved"), false
	}
	if wrong, ids := rebuild.WrongNotebook(g.src, sub); wrong {
		return g.notGraded(e, gradebook.WrongNotebook, rebuild.WrongNotebookReason(g.srcName, ids)), false
	}
	rb, err := rebuild.Rebuild(g.src, sub, g.opt.NewNonce)
	if err != nil {
		return g.ungradable(e, "cannot rebuild the submission: "+err.Error()), false
	}
	e.Notes = append(e.Notes, rb.Notes...)
	e.Flags = append(e.Flags, rb.Flags...)
	e.Flags = append(e.Flags, rebuild.ScanStudentCells(rb)...)
	rebuild.DisarmMagic(rb)
	if g.infraErr != nil {
		return g.ungradable(e, g.infraErr.Error()), false
	}
	// Sanitized: a probe's reason may name this run's temporary directory, and the
	// entry (so grades.csv) must not change from run to run.
	e.Run.Isolation = []string{}
	for _, m := range g.sb.Isolation() {
		e.Run.Isolation = append(e.Run.Isolation, score.Sanitize(m))
	}
	e.Run.IsolationMode = g.sb.Mode()

	work, err := os.MkdirTemp("", "agx-grade-"+s.Student+"-")
	if err != nil {
		return g.ungradable(e, err.Error()), false
	}
	defer os.RemoveAll(work)
	path := filepath.Join(work, g.srcName)
	if err := notebook.Write(path, rb.Notebook); err != nil {
		return g.ungradable(e, err.Error()), false
	}
	student := map[int]bool{}
	for _, rc := range rb.Cells {
		student[rc.Index] = rc.Student() && rb.Notebook.Cells[rc.Index].CellType == notebook.Code
	}
	env := g.sb.Env()
	secrets := &jupyter.Secrets{ByCell: map[int]string{}, Dir: work, UID: -1, GID: -1, KillUID: -1}
	for _, rc := range rb.Cells {
		if rc.Nonce != "" {
			secrets.ByCell[rc.Index] = rc.GradeID + " " + rc.Nonce
		}
	}
	sl, err := g.sb.Acquire(ctx)
	if err != nil {
		return nil, false
	}
	if sl != nil {
		defer g.sb.Release(sl)
		env = append(append([]string{}, env...), sl.Env(work)...)
		secrets.Path, secrets.UID, secrets.GID, secrets.KillUID = filepath.Join(sl.Home(), secretName), sl.UID(), sl.GID(), sl.UID()
	} else {
		// The kernel runs as this user: a directory of its own for the file.
		sd, err := os.MkdirTemp("", "agx-grade-secret-")
		if err != nil {
			return g.ungradable(e, err.Error()), false
		}
		defer os.RemoveAll(sd)
		secrets.Path = filepath.Join(sd, secretName)
	}
	env = append(append([]string{}, env...), grade.SecretEnv+"="+secrets.Path)
	kernelUp, studentRan := false, false
	res, err := jupyter.Execute(ctx, path, jupyter.Options{
		Python:            g.opt.Python,
		Kernel:            g.sb.Kernel(),
		CellTimeout:       g.opt.CellTimeout,
		Timeout:           g.opt.Timeout,
		MaxOutputBytes:    g.opt.MaxOutputBytes,
		KeepMIME:          []string{grade.MIMEType},
		ContinueOnTimeout: true,
		Wrap:              g.sb.Wrap(),
		Env:               env,
		Secrets:           secrets,
		OnEvent: func(ev jupyter.Event) {
			switch ev.Event {
			case jupyter.Started:
				kernelUp = true
			case jupyter.CellStart:
				studentRan = studentRan || student[ev.Index]
			}
		},
	})
	if ctx.Err() != nil {
		return nil, false
	}
	if err != nil {
		return g.ungradable(e, err.Error()), false
	}
	e.Run.Seconds = res.Seconds
	e.Run.CodeCells = len(res.Cells)
	for _, r := range res.Cells {
		if r.Ran {
			e.Run.CellsRun++
		}
	}
	if res.Err != nil {
		e.Run.Error = score.Sanitize(res.Err.Error())
		if !kernelUp || !studentRan {
			return g.ungradable(e, "the notebook could not be run before any student code: "+e.Run.Error), false
		}
		e.Flags = append(e.Flags, gradebook.Flag{Kind: gradebook.FlagIncomplete, Cell: "notebook", Message: notebook.Clip(firstLine(e.Run.Error), 300)})
	}
	if why := toolingFailure(rb, res); why != "" {
		return g.ungradable(e, why), false
	}
	cells, flags := score.Score(rb, res)
	score.VoidAfterFlags(rb, e.Flags, cells)
	for _, c := range cells {
		for i, m := range c.Messages {
			c.Messages[i] = score.Sanitize(m)
		}
		for i, m := range c.AnswerErrors {
			c.AnswerErrors[i] = score.Sanitize(m)
		}
		for i := range c.Checks {
			c.Checks[i].Message = score.Sanitize(c.Checks[i].Message)
		}
	}
	for i := range flags {
		flags[i].Message = score.Sanitize(flags[i].Message)
	}
	e.Cells = cells
	e.Flags = append(e.Flags, flags...)
	e.Status = gradebook.Graded
	for _, c := range cells {
		if c.Status == gradebook.StatusUngradable {
			// Not a score to keep: a resume must grade it again.
			e.Status = gradebook.Ungradable
			e.UngradableReason = fmt.Sprintf("the result of test cell %s could not be read: its output did not all arrive within %v after its program ended (the grading machine was too busy?); run again", c.GradeID, g.opt.CellTimeout)
			break
		}
	}
	if err := notebook.Write(filepath.Join(g.opt.Dir, gradebook.ExecutedDir, s.Student+".ipynb"), res.Notebook); err != nil {
		g.logf("warning: %s: cannot keep the executed notebook: %v", s.Student, err)
	}
	return e, false
}

// secretName is the file through which a test cell's program receives its
// secret (grade.SecretEnv), in the kernel's private home.
const secretName = ".agx-grade-secret"

// ungradable marks e ungradable: every graded cell of the source is listed,
// not run, with no points.
func (g *grader) ungradable(e *gradebook.Entry, reason string) *gradebook.Entry {
	return g.notGraded(e, gradebook.Ungradable, reason)
}

// notGraded gives e a status other than graded, with the reason; every
// graded cell of the source is listed, not run, with no points.
func (g *grader) notGraded(e *gradebook.Entry, status, reason string) *gradebook.Entry {
	e.Status, e.UngradableReason = status, score.Sanitize(reason)
	e.Cells = []*gradebook.CellGrade{}
	for _, c := range g.src.Cells {
		m, _ := nbgrader.Get(c) // the source is valid
		if k := m.Kind(); k == nbgrader.KindTest || k == nbgrader.KindManual || k == nbgrader.KindTask {
			e.Cells = append(e.Cells, &gradebook.CellGrade{GradeID: m.GradeID, Kind: k, MaxPoints: m.Points, Status: gradebook.StatusNotRun, Bonus: nbgrader.IsBonus(c),
				Messages: []string{status + ": " + firstLine(e.UngradableReason)}})
		}
	}
	return e
}
