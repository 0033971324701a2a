// Package jupyter executes notebooks headless through a Jupyter kernel.
//
// The work is done by a small Python script (driver.py, embedded) run with
// Debian's /usr/bin/python3 and nbclient: it starts the kernel, executes the
// code cells one by one with a per-cell time limit and reports each cell's
// outputs and timing as JSON lines, which Execute turns into Events and an
// executed copy of the notebook.
package jupyter

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/goagx/agx/internal/notebook"
)

//go:embed driver.py
var driverScript string

// DefaultPython is Debian's interpreter, which has the Jupyter modules; a
// python3 found first on PATH (pyenv, conda) usually does not.
const DefaultPython = "/usr/bin/python3"

// Options configure Execute.
type Options struct {
	Python      string        // interpreter with nbclient; DefaultPython when empty
	Kernel      string        // kernelspec name
	CellTimeout time.Duration // limit per cell; 0 means none
	Timeout     time.Duration // limit for the whole notebook; 0 means none
	// OnEvent, when set, is called for every event, in order, from Execute's goroutine.
	OnEvent func(Event)

	// MaxOutputBytes caps the outputs kept per cell (their JSON size); later
	// outputs are dropped and one note says so. Outputs carrying one of the
	// KeepMIME types count against a separate budget of 16 times the cap, so
	// that a flood of prints cannot push out a test cell's result. 0: no cap.
	MaxOutputBytes int
	KeepMIME       []string
	// ContinueOnTimeout interrupts a cell that runs past CellTimeout and goes
	// on with the next cell (the cell is reported TimedOut); without it, or
	// when the interrupted cell still does not answer within CellTimeout, the
	// run stops there.
	ContinueOnTimeout bool
	// OutputTimeout is how long to wait, once the kernel has replied to a
	// cell, for the rest of its output (the kernel sends it on another
	// channel, and a cell that printed a lot can be far behind on a busy
	// machine); a cell whose output did not all arrive is reported
	// OutputIncomplete. 0: CellTimeout, or 5 minutes without one.
	OutputTimeout time.Duration
	// StartupTimeout bounds the kernel's start; 0: 5 minutes.
	StartupTimeout time.Duration
	// Wrap, when set, is a command prefix the driver runs under (for example
	// an unshare(1) invocation): the driver is started as
	// Wrap[0] Wrap[1:]... PYTHON -c SCRIPT ARGS...
	Wrap []string
	// Env, when set, replaces the driver's environment (and so the kernel's).
	Env []string
	// Secrets, when set, are handed to the programs of some cells through a
	// file (see Secrets).
	Secrets *Secrets
}

// Secrets are handed to the programs of some cells: just before cell I runs,
// the driver writes ByCell[I] into a new file at Path, mode 0400, and removes
// the file after the cell. They never appear in a command line.
type Secrets struct {
	ByCell map[int]string
	Path   string // where the kernel's programs find the secret
	Dir    string // a directory only the grader may enter, for the driver's copy
	// UID and GID own the file when >= 0 (the kernel's user, when it is not
	// the driver's). KillUID >= 0: before writing a secret, every process of
	// that user except the kernel is killed, so that nothing left running by
	// earlier cells can read the file before the cell's program does.
	UID, GID, KillUID int
}

// driverOptions returns the driver's options for s, writing the secrets to
// a file in s.Dir.
func (s *Secrets) driverOptions(opts map[string]any) error {
	if s == nil || len(s.ByCell) == 0 {
		return nil
	}
	byCell := map[string]string{}
	for i, v := range s.ByCell {
		byCell[strconv.Itoa(i)] = v
	}
	b, _ := json.Marshal(byCell) // strings always encode
	f, err := os.CreateTemp(s.Dir, "secrets-*.json")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	opts["secrets_file"], opts["secret_path"] = f.Name(), s.Path
	if s.UID >= 0 {
		opts["secret_uid"], opts["secret_gid"] = s.UID, s.GID
	}
	if s.KillUID >= 0 {
		opts["kill_uid"] = s.KillUID
	}
	return nil
}

// Event kinds.
const (
	Started   = "started"    // the kernel is up
	CellStart = "cell_start" // a code cell began executing
	CellDone  = "cell_done"  // a code cell finished (or timed out)
	Skipped   = "skipped"    // a code cell was not run (Reason says why)
	Stopped   = "stopped"    // the run stopped before the last cell (Reason says why)
	Fatal     = "fatal"      // the run failed (Message says why)
	Finished  = "finished"   // all cells were handled
)

// Event is one progress report of the driver.
type Event struct {
	Event          string             `json:"event"`
	Index          int                `json:"index"` // cell index in the notebook (all cells)
	Seconds        float64            `json:"seconds"`
	ExecutionCount *int               `json:"execution_count"`
	Outputs        []*notebook.Output `json:"outputs"`
	TimedOut       bool               `json:"timed_out"`
	// OutputTruncated: outputs past Options.MaxOutputBytes were dropped.
	OutputTruncated bool `json:"output_truncated"`
	// OutputIncomplete: the rest of the cell's output did not arrive within
	// Options.OutputTimeout after the kernel replied.
	OutputIncomplete bool `json:"output_incomplete"`
	// NotebookTimeout: the notebook's time limit (not the cell's) stopped this cell.
	NotebookTimeout bool   `json:"notebook_timeout"`
	Reason          string `json:"reason"`
	Message         string `json:"message"`
	Kernel          string `json:"kernel"`
	// LanguageInfo (Started) is the kernel's language_info; Execute puts it
	// into the executed notebook's metadata, as Jupyter does on opening it.
	LanguageInfo json.RawMessage `json:"language_info"`

	// Cell is the notebook cell of a cell_start, cell_done or skipped event
	// (with its new outputs for cell_done); nil for the others.
	Cell *notebook.Cell `json:"-"`
}

// CellRun is what happened to one code cell.
type CellRun struct {
	Index    int     // in Notebook.Cells
	Ran      bool    // false: not reached or skipped
	Seconds  float64 // execution time, kernel round trip included
	TimedOut bool
	// OutputTruncated: outputs past Options.MaxOutputBytes were dropped.
	OutputTruncated bool
	// OutputIncomplete: outputs were lost (see Event.OutputIncomplete).
	OutputIncomplete bool
	Skipped          string // why the cell was not run, when Ran is false
}

// Result of Execute.
type Result struct {
	// Notebook is the executed copy: code cells carry the new outputs and
	// execution counts (none for cells that did not run).
	Notebook *notebook.Notebook
	Cells    []*CellRun // one per code cell, in order
	// Err is set when the run as a whole failed or stopped before the last
	// cell (kernel missing or dead, driver crash, notebook time limit, a cell
	// that did not stop after its time limit); cells not reached have Ran ==
	// false.
	Err     error
	Seconds float64
}

// Execute runs the notebook at path. It returns an error only when the
// notebook cannot be read; failures while running are in Result.Err.
func Execute(ctx context.Context, path string, opt Options) (*Result, error) {
	nb, err := notebook.Read(path)
	if err != nil {
		return nil, err
	}
	d := newDriverRun(nb, opt)
	res := d.res
	start := time.Now()
	defer func() { res.Seconds = time.Since(start).Seconds() }()

	python := opt.Python
	if python == "" {
		python = DefaultPython
	}
	if opt.Timeout > 0 {
		// The driver enforces the limit itself and shuts the kernel down; this
		// is a backstop for a driver that hangs (e.g. in kernel start-up).
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout+outputTimeout(opt)+time.Minute)
		defer cancel()
	}
	driverOpts, err := driverOptions(opt)
	if err != nil {
		res.Err = err
		return res, nil
	}
	argv := append(append([]string{}, opt.Wrap...), python, "-c", driverScript, path, opt.Kernel,
		seconds(opt.CellTimeout), seconds(opt.Timeout), driverOpts)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if opt.Env != nil {
		cmd.Env = opt.Env
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	stderr := &tailBuffer{max: 32 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		res.Err = fmt.Errorf("cannot start %s: %w (Jupyter is installed by docker/scripts/install-jupyter.sh)", python, err)
		return res, nil
	}
	scanErr := d.readEvents(stdout)
	if scanErr != nil {
		// Drain so that the driver is not blocked on a full pipe.
		_, _ = io.Copy(io.Discard, stdout)
	}
	waitErr := cmd.Wait()
	if d.finished && errors.Is(waitErr, exec.ErrWaitDelay) {
		// The driver finished; a program the notebook left running still
		// held its stderr (and was cut off).
		waitErr = nil
	}
	res.Err = d.runErr(ctx, scanErr, waitErr, stderr.String())
	for _, run := range res.Cells {
		if !run.Ran && run.Skipped == "" {
			run.Skipped = "not reached"
		}
	}
	return res, nil
}

// driverOptions returns the driver's options as JSON; an error is the
// run's (the secrets cannot be handed over).
func driverOptions(opt Options) (string, error) {
	opts := map[string]any{
		"max_output_bytes":    opt.MaxOutputBytes,
		"keep_mime":           opt.KeepMIME,
		"continue_on_timeout": opt.ContinueOnTimeout,
		"output_timeout":      outputTimeout(opt).Seconds(),
		"startup_timeout":     startupTimeout(opt).Seconds(),
	}
	if err := opt.Secrets.driverOptions(opts); err != nil {
		return "", fmt.Errorf("cannot hand the secrets to the driver: %w", err)
	}
	b, _ := json.Marshal(opts) // plain values always encode
	return string(b), nil
}

// A driverRun follows one run of the driver through its events.
type driverRun struct {
	opt       Options
	nb        *notebook.Notebook
	res       *Result
	byIndex   map[int]*CellRun // the code cells' runs
	fatal     string           // the driver's fatal error
	stopped   string           // why the run stopped early
	finished  bool             // the driver said it finished
	nbTimeout bool             // the notebook's time limit was reached
}

// newDriverRun starts the result of running nb: a CellRun for each code
// cell, whose outputs are cleared.
func newDriverRun(nb *notebook.Notebook, opt Options) *driverRun {
	d := &driverRun{opt: opt, nb: nb, res: &Result{Notebook: nb}, byIndex: map[int]*CellRun{}}
	for i, c := range nb.Cells {
		if c.CellType == notebook.Code {
			c.Outputs, c.ExecutionCount = nil, nil
			run := &CellRun{Index: i}
			d.res.Cells = append(d.res.Cells, run)
			d.byIndex[i] = run
		}
	}
	return d
}

// readEvents reads the driver's events, one JSON line each, until its
// output ends, and returns the error of reading it.
func (d *driverRun) readEvents(stdout io.Reader) error {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			d.fatal = fmt.Sprintf("driver sent an unreadable line: %.200s", sc.Text())
			continue
		}
		d.handle(ev)
	}
	return sc.Err()
}

// handle records one event of the driver in the result and passes it on
// to Options.OnEvent.
func (d *driverRun) handle(ev Event) {
	nb := d.nb
	d.nbTimeout = d.nbTimeout || ev.NotebookTimeout
	if d.byIndex[ev.Index] != nil && (ev.Event == CellStart || ev.Event == CellDone || ev.Event == Skipped) {
		ev.Cell = nb.Cells[ev.Index]
	}
	switch ev.Event {
	case Started:
		if len(ev.LanguageInfo) > 0 && string(ev.LanguageInfo) != "null" {
			if nb.Metadata == nil {
				nb.Metadata = notebook.Object{}
			}
			nb.Metadata["language_info"] = ev.LanguageInfo
		}
	case CellDone:
		if run := d.byIndex[ev.Index]; run != nil {
			run.Ran, run.Seconds, run.TimedOut = true, ev.Seconds, ev.TimedOut
			run.OutputTruncated, run.OutputIncomplete = ev.OutputTruncated, ev.OutputIncomplete
			c := nb.Cells[ev.Index]
			c.Outputs, c.ExecutionCount = ev.Outputs, ev.ExecutionCount
		}
	case Skipped:
		if run := d.byIndex[ev.Index]; run != nil {
			run.Skipped = ev.Reason
		}
	case Stopped:
		d.stopped = ev.Reason
	case Fatal:
		d.fatal = ev.Message
	case Finished:
		d.finished = true
	}
	if d.opt.OnEvent != nil {
		d.opt.OnEvent(ev)
	}
}

// runErr says why the run did not complete, or nil when it did.
func (d *driverRun) runErr(ctx context.Context, scanErr, waitErr error, stderr string) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("stopped: %w", context.Cause(ctx))
	case d.fatal != "":
		return errors.New(d.fatal)
	case d.nbTimeout:
		return fmt.Errorf("the notebook time limit (%v) was reached", d.opt.Timeout)
	case scanErr != nil:
		return fmt.Errorf("reading the driver's output: %w", scanErr)
	case waitErr != nil || !d.finished:
		return fmt.Errorf("the notebook driver failed (%v):\n%s", waitErr, stderr)
	case d.stopped != "":
		return fmt.Errorf("the run stopped early: %s", d.stopped)
	}
	return nil
}

// CheckKernel reports whether python can import nbclient and the kernelspec
// named kernel is installed.
func CheckKernel(ctx context.Context, python, kernel string) error {
	if python == "" {
		python = DefaultPython
	}
	const script = `import sys
try:
    import nbclient
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
except ImportError as e:
    print("cannot import the Jupyter modules: %s" % e); sys.exit(1)
try:
    KernelSpecManager().get_kernel_spec(sys.argv[1])
except NoSuchKernel:
    print("no Jupyter kernel named %r" % sys.argv[1]); sys.exit(1)
`
	out, err := exec.CommandContext(ctx, python, "-c", script, kernel).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%s: %s", python, msg)
	}
	return nil
}

func outputTimeout(opt Options) time.Duration {
	switch {
	case opt.OutputTimeout > 0:
		return opt.OutputTimeout
	case opt.CellTimeout > 0:
		return opt.CellTimeout
	}
	return 5 * time.Minute
}

func startupTimeout(opt Options) time.Duration {
	if opt.StartupTimeout > 0 {
		return opt.StartupTimeout
	}
	return 5 * time.Minute
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
