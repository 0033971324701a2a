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
	src, srcBytes, err := readSource(opt.Source)
	if err != nil {
		return nil, err
	}
	overrides, err := gradebook.ReadOverrides(opt.Dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(opt.Dir, gradebook.ExecutedDir), 0o755); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	sum := &Summary{}
	logf := logger(opt.Log)
	g := &grader{opt: opt, src: src, srcBytes: srcBytes, srcName: filepath.Base(opt.Source), srcHash: sha256Hex(srcBytes), logf: logf}
	cleanup, err := g.startRunner(ctx, sum)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	g.isolation = sum.Isolation
	start := time.Now()
	if err := g.gradeAll(ctx, subs, overrides, sum, start); err != nil {
		return nil, err
	}
	entries, err := applyOverrides(opt.Dir, overrides, sum)
	if err != nil {
		return nil, err
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

// readSource reads and validates the instructor source at path.
func readSource(path string) (*notebook.Notebook, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	src, err := notebook.Parse(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := nbgrader.Validate(src); err != nil {
		return nil, nil, fmt.Errorf("%s is not a valid instructor source:\n%w", path, err)
	}
	return src, b, nil
}

// withDefaults fills in the options left zero that have a default.
func (opt Options) withDefaults() Options {
	if opt.Jobs < 1 {
		opt.Jobs = 1
	}
	if opt.Python == "" {
		opt.Python = jupyter.DefaultPython
	}
	if opt.NewNonce == nil {
		opt.NewNonce = nbgrader.NewNonce
	}
	return opt
}

// logger returns a printf to w, one line a call, safe for concurrent use;
// it prints nothing when w is nil.
func logger(w io.Writer) func(string, ...any) {
	if w == nil {
		return func(format string, args ...any) {}
	}
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// startRunner sets up what runs the kernels: the grading containers with
// Options.Docker, else the sandbox, after checking the kernel and its
// module cache. When the kernel or the sandbox is missing, every submission
// that needs running is ungradable, with the reason (g.infraErr); an error
// is returned only when nobody can be graded with the options given. The
// measures in force go to sum.Isolation; cleanup undoes the setup.
func (g *grader) startRunner(ctx context.Context, sum *Summary) (cleanup func(), err error) {
	opt := g.opt
	if opt.Docker != "" {
		if opt.Isolation == IsolationBestEffort {
			return nil, errors.New("--docker grades with the container's isolation or not at all: --isolation=" + IsolationBestEffort + " does not apply")
		}
		g.logf("checking the image %s and its isolation", opt.Docker)
		g.docker, sum.Isolation, err = newDockerGrader(ctx, opt)
		if err != nil {
			return nil, err
		}
		return g.docker.cleanup, nil
	}
	if g.infraErr = jupyter.CheckKernel(ctx, opt.Python, opt.Kernel); g.infraErr != nil {
		return func() {}, nil
	}
	// Without the modules its scratch module needs, the kernel would
	// fail every cell: stop before grading anyone.
	if err := gotool.EnsureKernelModules(ctx, opt.Python, opt.Kernel, g.logf); err != nil {
		return nil, err
	}
	g.sb, g.infraErr = sandbox.New(ctx, opt.Python, opt.Kernel, opt.Limits, opt.Jobs, opt.Isolation)
	var isoErr *IsolationError
	if g.sb == nil && (opt.Limits.Network == NetNone || errors.As(g.infraErr, &isoErr)) {
		return nil, g.infraErr
	}
	if g.sb == nil {
		return func() {}, nil
	}
	sum.Isolation = g.sb.Isolation()
	for _, w := range g.sb.Warnings() {
		g.logf("warning: %s", w)
	}
	return g.sb.Cleanup, nil
}

// gradeAll grades subs, opt.Jobs at a time, writing each entry (with the
// overrides applied) as soon as it is graded and counting it in sum.
func (g *grader) gradeAll(ctx context.Context, subs []Submission, overrides map[string]map[string]gradebook.Override, sum *Summary, start time.Time) error {
	total := len(subs)
	g.logf("grading %d %s of %s, %d at a time", total, plural(total, "submission", "submissions"), g.srcName, g.opt.Jobs)
	var (
		mu       sync.Mutex
		done     int
		wg       sync.WaitGroup
		writeErr error
	)
	work := make(chan Submission)
	for range g.opt.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				e, skipped := g.grade(ctx, s)
				if e == nil { // interrupted
					continue
				}
				e.ApplyOverrides(overrides[e.Student])
				var err error
				if !skipped {
					err = gradebook.WriteEntry(g.opt.Dir, e)
				}
				mu.Lock()
				done++
				k := done
				if err := sum.count(e, skipped, err); err != nil {
					writeErr = errors.Join(writeErr, err)
				}
				mu.Unlock()
				g.logf("[%*d/%d] %s", len(fmt.Sprint(total)), k, total, progressLine(e, skipped, time.Since(start)))
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
		return writeErr
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w (the entries written so far are kept; run again to go on)", context.Cause(ctx))
	}
	return nil
}

// grade grades one submission, in a container with Options.Docker.
func (g *grader) grade(ctx context.Context, s Submission) (*gradebook.Entry, bool) {
	if g.docker != nil {
		return g.oneInContainer(ctx, s)
	}
	return g.one(ctx, s)
}

// count counts entry e in the summary; writeErr, the error of writing it,
// is returned (and the entry not counted) when there was one.
func (sum *Summary) count(e *gradebook.Entry, skipped bool, writeErr error) error {
	switch {
	case writeErr != nil:
		return writeErr
	case skipped:
		sum.Skipped++
	case e.Status == gradebook.Ungradable:
		sum.Ungradable++
	case e.Status == gradebook.Unreadable || e.Status == gradebook.WrongNotebook:
		sum.Invalid++
	default:
		sum.Graded++
	}
	return nil
}

// applyOverrides applies the overrides to every entry of the gradebook in
// dir, those of earlier runs too, rewriting the entries they change, and
// warns in sum of overrides for cells or students it does not have.
func applyOverrides(dir string, overrides map[string]map[string]gradebook.Override, sum *Summary) ([]*gradebook.Entry, error) {
	entries, err := gradebook.ReadEntries(dir)
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
			if err := gradebook.WriteEntry(dir, e); err != nil {
				return nil, err
			}
		}
	}
	sum.Warnings = append(sum.Warnings, gradebook.UnknownOverrides(overrides, known)...)
	return entries, nil
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
	rb, final := g.rebuild(e, b)
	if final != nil {
		return final, false
	}
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

	run, err := g.execute(ctx, s, rb)
	if errors.Is(err, errInterrupted) {
		return nil, false
	}
	if err != nil {
		return g.ungradable(e, err.Error()), false
	}
	if final := g.recordRun(e, rb, run); final != nil {
		return final, false
	}
	g.scoreRun(e, rb, run.res)
	if err := notebook.Write(filepath.Join(g.opt.Dir, gradebook.ExecutedDir, s.Student+".ipynb"), run.res.Notebook); err != nil {
		g.logf("warning: %s: cannot keep the executed notebook: %v", s.Student, err)
	}
	return e, false
}

// rebuild parses the submission b and rebuilds it from the source, with
// the notes and flags of the rebuild and of the static review in e, and the
// magic lines disarmed. When it cannot, it returns e's final state instead:
// unreadable, another notebook, or ungradable.
func (g *grader) rebuild(e *gradebook.Entry, b []byte) (*rebuild.Rebuilt, *gradebook.Entry) {
	sub, err := notebook.Parse(b)
	if err != nil {
		// The student's file, not the grader: say so.
		return nil, g.notGraded(e, gradebook.Unreadable, "the submitted file is not a readable notebook ("+err.Error()+"); submit the .ipynb file that Jupyter saved")
	}
	if wrong, ids := rebuild.WrongNotebook(g.src, sub); wrong {
		return nil, g.notGraded(e, gradebook.WrongNotebook, rebuild.WrongNotebookReason(g.srcName, ids))
	}
	rb, err := rebuild.Rebuild(g.src, sub, g.opt.NewNonce)
	if err != nil {
		return nil, g.ungradable(e, "cannot rebuild the submission: "+err.Error())
	}
	e.Notes = append(e.Notes, rb.Notes...)
	e.Flags = append(e.Flags, rb.Flags...)
	e.Flags = append(e.Flags, rebuild.ScanStudentCells(rb)...)
	rebuild.DisarmMagic(rb)
	return rb, nil
}

// errInterrupted: the context was cancelled while the submission ran or
// waited for a slot.
var errInterrupted = errors.New("interrupted")

// A run is an executed submission: the result, and whether the kernel
// started and a student cell began to run.
type run struct {
	res                  *jupyter.Result
	kernelUp, studentRan bool
}

// execute runs the rebuilt notebook in the sandbox, in a slot when there
// are slot users, with each test cell's secret in a file only its program
// reads. It returns errInterrupted when the context was cancelled.
func (g *grader) execute(ctx context.Context, s Submission, rb *rebuild.Rebuilt) (*run, error) {
	work, err := os.MkdirTemp("", "agx-grade-"+s.Student+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	path := filepath.Join(work, g.srcName)
	if err := notebook.Write(path, rb.Notebook); err != nil {
		return nil, err
	}
	student := map[int]bool{}
	for _, rc := range rb.Cells {
		student[rc.Index] = rc.Student() && rb.Notebook.Cells[rc.Index].CellType == notebook.Code
	}
	env, secrets, release, err := g.secrets(ctx, rb, work)
	if err != nil {
		return nil, err
	}
	defer release()
	r := &run{}
	r.res, err = jupyter.Execute(ctx, path, jupyter.Options{
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
				r.kernelUp = true
			case jupyter.CellStart:
				r.studentRan = r.studentRan || student[ev.Index]
			}
		},
	})
	if ctx.Err() != nil {
		return nil, errInterrupted
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// secrets acquires a slot (when the sandbox has slot users) and returns the
// kernel's environment and the test cells' secrets, with the file for them
// in the slot's home or in a directory of its own; release gives the slot
// back and removes that directory. It returns errInterrupted when the
// context was cancelled while waiting for a slot.
func (g *grader) secrets(ctx context.Context, rb *rebuild.Rebuilt, work string) (env []string, secrets *jupyter.Secrets, release func(), err error) {
	env = g.sb.Env()
	secrets = &jupyter.Secrets{ByCell: map[int]string{}, Dir: work, UID: -1, GID: -1, KillUID: -1}
	for _, rc := range rb.Cells {
		if rc.Nonce != "" {
			secrets.ByCell[rc.Index] = rc.GradeID + " " + rc.Nonce
		}
	}
	sl, err := g.sb.Acquire(ctx)
	if err != nil {
		return nil, nil, nil, errInterrupted
	}
	if sl != nil {
		release = func() { g.sb.Release(sl) }
		env = append(append([]string{}, env...), sl.Env(work)...)
		secrets.Path, secrets.UID, secrets.GID, secrets.KillUID = filepath.Join(sl.Home(), secretName), sl.UID(), sl.GID(), sl.UID()
	} else {
		// The kernel runs as this user: a directory of its own for the file.
		sd, err := os.MkdirTemp("", "agx-grade-secret-")
		if err != nil {
			return nil, nil, nil, err
		}
		release = func() { os.RemoveAll(sd) }
		secrets.Path = filepath.Join(sd, secretName)
	}
	env = append(append([]string{}, env...), grade.SecretEnv+"="+secrets.Path)
	return env, secrets, release, nil
}

// recordRun records in e how the run went. When it stopped before any
// student code ran, or the kernel's Go tooling failed in a cell without
// student code, it returns e's final state (ungradable).
func (g *grader) recordRun(e *gradebook.Entry, rb *rebuild.Rebuilt, r *run) *gradebook.Entry {
	res := r.res
	e.Run.Seconds = res.Seconds
	e.Run.CodeCells = len(res.Cells)
	for _, c := range res.Cells {
		if c.Ran {
			e.Run.CellsRun++
		}
	}
	if res.Err != nil {
		e.Run.Error = score.Sanitize(res.Err.Error())
		if !r.kernelUp || !r.studentRan {
			return g.ungradable(e, "the notebook could not be run before any student code: "+e.Run.Error)
		}
		e.Flags = append(e.Flags, gradebook.Flag{Kind: gradebook.FlagIncomplete, Cell: "notebook", Message: notebook.Clip(firstLine(e.Run.Error), 300)})
	}
	if why := toolingFailure(rb, res); why != "" {
		return g.ungradable(e, why)
	}
	return nil
}

// scoreRun scores the executed notebook into e: the cells' grades, the
// flags of the run, and the status (ungradable when a test cell's result
// could not be read).
func (g *grader) scoreRun(e *gradebook.Entry, rb *rebuild.Rebuilt, res *jupyter.Result) {
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
