package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/notebook"
)

// DefaultKernel is the kernelspec that docker/scripts/install-kernel.sh installs ("Go (agx)").
const DefaultKernel = "agx-go"

const executedSuffix = ".executed.ipynb"

const runUsage = `usage: agx run [flags] NOTEBOOK...

Executes each notebook headless through Jupyter with the GoNB kernel, writes an
executed copy (NAME.executed.ipynb next to it, or DIR/NAME.ipynb with -o DIR)
and checks every code cell:
  - no error output and no Go panic or compile error on stderr, unless the cell
    is tagged raises-exception, in which case it must produce an error;
  - the expectations in its metadata.agx (expect, expect_numbers, expect_error).
With --store, a notebook whose checks all pass gets the outputs of the run
stored in it (the course's lessons are read without running them); with
--check-stored, every cell's stored outputs must equal the run's, except in
cells whose metadata.agx.volatile is true. Exits with status 1 when a check
fails. Arguments ending in .executed.ipynb are skipped. See docs/notebooks.md.

Flags:
`

type runOptions struct {
	kernel      string
	python      string
	cellTimeout time.Duration
	timeout     time.Duration
	outDir      string
	store       bool // write the run's outputs into the notebook itself
	checkStored bool // compare the run's outputs with the stored ones
	jobs        int  // notebooks run at once, each in a kernel of its own
}

// runCommand implements `agx run`.
func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var opt runOptions
	fs := flag.NewFlagSet("agx run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opt.kernel, "kernel", DefaultKernel, "Jupyter kernelspec `name` to run the notebooks with")
	fs.DurationVar(&opt.cellTimeout, "cell-timeout", 300*time.Second, "time limit per cell (a cold Go build takes ~30s); 0 for none")
	fs.DurationVar(&opt.timeout, "timeout", 30*time.Minute, "time limit per notebook; 0 for none")
	fs.StringVar(&opt.outDir, "o", "", "write executed copies to `DIR` as NAME.ipynb (default: NAME.executed.ipynb beside each notebook)")
	fs.StringVar(&opt.python, "python", jupyter.DefaultPython, "Python `interpreter` that has nbclient (Debian's)")
	fs.BoolVar(&opt.store, "store", false, "store the outputs of the run in each notebook whose checks pass")
	fs.BoolVar(&opt.checkStored, "check-stored", false, "fail when a cell's stored outputs differ from the run's (cells marked volatile excepted)")
	fs.IntVar(&opt.jobs, "j", 1, "run `N` notebooks at once, each in its own kernel; their reports are printed whole, as each ends")
	fs.Usage = func() {
		fmt.Fprint(stderr, runUsage)
		fs.PrintDefaults()
	}
	paths, help, err := parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	if opt.cellTimeout < 0 || opt.timeout < 0 {
		return usageError{"time limits must not be negative"}
	}
	if opt.jobs < 1 {
		return usageError{fmt.Sprintf("-j %d: run at least one notebook at a time", opt.jobs)}
	}
	if opt.store && opt.checkStored {
		return usageError{"--store and --check-stored exclude each other: store, or check what is stored"}
	}
	jobs, err := planRun(paths, opt.outDir, stderr)
	if err != nil {
		return err
	}

	// One clear message up front instead of the same failure per notebook.
	if err := jupyter.CheckKernel(ctx, opt.python, opt.kernel); err != nil {
		return fmt.Errorf("%w\nInstall Jupyter and the Go (agx) kernel with docker/scripts/install-all.sh (make deps), or pick a kernel with --kernel", err)
	}

	summaries := runAll(ctx, jobs, opt, stderr)
	failed := false
	for _, s := range summaries {
		failed = failed || s.failures > 0
	}
	printSummary(stdout, summaries)
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted")
	}
	if failed {
		return errFailed
	}
	return nil
}

// parseArgs parses a subcommand's flags and positional arguments: -h has
// printed the usage and ends the command successfully (help is true), and a
// bad flag is a usageError.
func parseArgs(fs *flag.FlagSet, args []string) (paths []string, help bool, err error) {
	paths, err = parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, true, nil
	case err != nil:
		return nil, false, usageError{err.Error()}
	}
	return paths, false, nil
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments, and returns the positional ones. "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag stops at the first non-flag; it consumed a "--" itself when
		// len(args)-len(rest) shows one right before rest.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// A runJob is one notebook to execute and where its executed copy goes.
type runJob struct {
	path string
	out  string
}

// planRun checks the inputs and chooses the output paths.
func planRun(paths []string, outDir string, stderr io.Writer) ([]runJob, error) {
	var jobs []runJob
	outs := map[string]string{}
	inputs := map[string]bool{}
	for _, p := range paths {
		abs, _ := filepath.Abs(p)
		inputs[abs] = true
	}
	for _, p := range paths {
		if strings.HasSuffix(p, executedSuffix) {
			fmt.Fprintf(stderr, "agx run: skipping %s (an executed copy)\n", p)
			continue
		}
		if !strings.HasSuffix(p, ".ipynb") {
			return nil, usageError{fmt.Sprintf("%s is not a notebook (.ipynb)", p)}
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			return nil, usageError{p + " is a directory"}
		}
		out := strings.TrimSuffix(p, ".ipynb") + executedSuffix
		if outDir != "" {
			out = filepath.Join(outDir, filepath.Base(p))
		}
		absOut, _ := filepath.Abs(out)
		if inputs[absOut] {
			return nil, usageError{fmt.Sprintf("the executed copy of %s would overwrite the notebook %s", p, out)}
		}
		if prev, ok := outs[absOut]; ok {
			return nil, usageError{fmt.Sprintf("%s and %s would both be written to %s", prev, p, out)}
		}
		outs[absOut] = p
		jobs = append(jobs, runJob{path: p, out: out})
	}
	if len(jobs) == 0 {
		return nil, usageError{"no notebooks to run"}
	}
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return nil, err
		}
	}
	return jobs, nil
}

// runAll runs the jobs, opt.jobs at a time, and returns their summaries in
// the jobs' order (those that started before an interrupt). One at a time,
// each notebook reports to stderr as it runs; with more, each one's report
// is kept and printed whole when it ends, so reports do not interleave.
func runAll(ctx context.Context, jobs []runJob, opt runOptions, stderr io.Writer) []runSummary {
	if opt.jobs == 1 {
		prog := newProgress(stderr)
		defer prog.close()
		var summaries []runSummary
		for _, job := range jobs {
			if ctx.Err() != nil {
				break
			}
			summaries = append(summaries, runNotebook(ctx, job, opt, prog))
		}
		return summaries
	}
	summaries := make([]runSummary, len(jobs))
	started := make([]bool, len(jobs))
	var mu sync.Mutex // stderr
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(opt.jobs, len(jobs)) {
		wg.Go(func() {
			for i := range next {
				var report bytes.Buffer
				summaries[i] = runNotebook(ctx, jobs[i], opt, newProgress(&report))
				mu.Lock()
				stderr.Write(report.Bytes())
				mu.Unlock()
			}
		})
	}
dispatch:
	for i := range jobs {
		select {
		case next <- i:
			started[i] = true
		case <-ctx.Done():
			break dispatch
		}
	}
	close(next)
	wg.Wait()
	var out []runSummary
	for i, s := range summaries {
		if started[i] {
			out = append(out, s)
		}
	}
	return out
}

// runSummary is one row of the final table.
type runSummary struct {
	path     string
	cells    int // code cells
	failures int // failing cells, plus one when the run itself failed
	seconds  float64
}

// runNotebook executes and checks one notebook, reporting as it goes.
func runNotebook(ctx context.Context, job runJob, opt runOptions, prog *progress) runSummary {
	r := &notebookRun{job: job, opt: opt, prog: prog, sum: runSummary{path: job.path}, failedCells: map[int]bool{}}
	nb, err := notebook.Read(job.path)
	if err != nil {
		prog.fail(job.path, []string{err.Error()})
		r.sum.failures++
		return r.sum
	}
	r.nb = nb
	r.numberCodeCells()
	prog.notebook(job.path, r.codeCells)
	// The kernel's TMPDIR is a directory of the run's own, removed when it
	// ends: GoNB's working directory (the compiled cell, its named pipes)
	// and whatever the cells put in os.TempDir() go there. A kernel that
	// shuts down removes its own files, but one killed (at a time limit, in
	// a stopped run, or when it does not stop in time) cannot.
	tmp, err := runTempDir()
	if err != nil {
		prog.fail(job.path, []string{"cannot create the run's temporary directory: " + err.Error()})
		r.sum.failures++
		return r.sum
	}
	res, err := jupyter.Execute(ctx, job.path, jupyter.Options{
		Python:      opt.python,
		Kernel:      opt.kernel,
		CellTimeout: opt.cellTimeout,
		Timeout:     opt.timeout,
		Env:         append(os.Environ(), "TMPDIR="+tmp),
		OnEvent:     r.onEvent,
	})
	if rmErr := removeRunTemp(tmp); rmErr != nil {
		prog.println("  warning: the run's temporary directory is left: %v", rmErr)
	}
	if err != nil {
		prog.fail(job.path, []string{err.Error()})
		r.sum.failures++
		return r.sum
	}
	r.sum.cells = len(res.Cells)
	r.sum.seconds = res.Seconds
	if res.Err != nil {
		r.fail("run failed: " + res.Err.Error())
	}
	if opt.checkStored || opt.store {
		fresh := freshOutputs(res, pathNormalizer(job.path))
		if opt.checkStored {
			r.checkStoredOutputs(fresh)
		}
		if opt.store {
			r.storeOutputs(res, fresh)
		}
	}
	r.writeExecuted(res)
	if len(r.failures) > 0 {
		prog.fail(job.path, r.failures)
	}
	return r.sum
}

// notebookRun is the state of runNotebook while it runs one notebook: the
// notebook as read, its code cell numbers, and the failures so far.
type notebookRun struct {
	job         runJob
	opt         runOptions
	prog        *progress
	nb          *notebook.Notebook
	codeCells   int
	ordinal     map[int]int // notebook cell index -> code cell number (1-based)
	failures    []string
	failedCells map[int]bool // notebook cell indices
	sum         runSummary
}

// numberCodeCells counts the code cells and numbers them from 1.
func (r *notebookRun) numberCodeCells() {
	_, indices := r.nb.CodeCells()
	r.codeCells = len(indices)
	r.ordinal = map[int]int{}
	for k, i := range indices {
		r.ordinal[i] = k + 1
	}
}

// fail records a failure that counts once in the summary.
func (r *notebookRun) fail(msg string) {
	r.failures = append(r.failures, msg)
	r.sum.failures++
}

// onEvent reports the kernel's progress, and records the problems of each
// cell that finishes.
func (r *notebookRun) onEvent(ev jupyter.Event) {
	switch ev.Event {
	case jupyter.Started:
		r.prog.kernelUp()
	case jupyter.CellStart:
		r.prog.cellStart(r.ordinal[ev.Index], r.codeCells, ev.Cell.FirstLine())
	case jupyter.CellDone:
		problems := cellProblems(ev)
		r.prog.cellDone(r.ordinal[ev.Index], r.codeCells, ev.Cell.FirstLine(), ev.Seconds, len(problems) == 0)
		for _, p := range problems {
			r.failures = append(r.failures, fmt.Sprintf("cell %d (%s): %s", r.ordinal[ev.Index], clipLine(ev.Cell.FirstLine(), 40), p))
		}
		if len(problems) > 0 {
			r.sum.failures++
			r.failedCells[ev.Index] = true
		}
	case jupyter.Skipped:
		r.prog.cellSkipped(r.ordinal[ev.Index], r.codeCells, ev.Reason)
	}
}

// cellProblems is what went wrong in a finished cell: its time limit, or
// what its checks found.
func cellProblems(ev jupyter.Event) []string {
	if ev.TimedOut {
		limit := "cell"
		if ev.NotebookTimeout {
			limit = "notebook"
		}
		return []string{fmt.Sprintf("timed out after %.0fs (the %s time limit)", ev.Seconds, limit)}
	}
	return ev.Cell.Check()
}

// freshOutputs are the outputs, as stored, of the cells that ran to the end
// with their output whole, by notebook cell index.
func freshOutputs(res *jupyter.Result, norm notebook.PathNormalizer) map[int][]*notebook.Output {
	fresh := map[int][]*notebook.Output{}
	for _, run := range res.Cells {
		if run.Ran && !run.TimedOut && !run.OutputIncomplete && !run.OutputTruncated {
			fresh[run.Index] = notebook.StoredOutputs(res.Notebook.Cells[run.Index].Outputs, norm)
		}
	}
	return fresh
}

// checkStoredOutputs compares the notebook's stored outputs with the fresh
// ones; a failing cell counts once.
func (r *notebookRun) checkStoredOutputs(fresh map[int][]*notebook.Output) {
	problems, cells := checkStored(r.nb, fresh, r.ordinal)
	r.failures = append(r.failures, problems...)
	for _, i := range cells {
		if !r.failedCells[i] { // a cell counts once
			r.failedCells[i] = true
			r.sum.failures++
		}
	}
	if len(problems) > len(cells) { // nothing stored at all
		r.sum.failures++
	}
}

// storeOutputs writes the fresh outputs, execution counts and language_info
// into the notebook itself, when the whole run succeeded.
func (r *notebookRun) storeOutputs(res *jupyter.Result, fresh map[int][]*notebook.Output) {
	if len(r.failures) > 0 || len(fresh) != r.codeCells {
		r.fail("outputs not stored: the run failed, or a cell's output was cut or incomplete")
		return
	}
	nb := r.nb
	for i, outs := range fresh {
		nb.Cells[i].Outputs = outs
		nb.Cells[i].ExecutionCount = res.Notebook.Cells[i].ExecutionCount
	}
	// Jupyter writes the kernel's language_info into a notebook
	// it opens and marks it changed when it differs; with it
	// stored, a lesson opens unchanged (and its autosave does
	// not turn a student's untouched copy into an edited one).
	if li, ok := res.Notebook.Metadata["language_info"]; ok {
		if nb.Metadata == nil {
			nb.Metadata = notebook.Object{}
		}
		nb.Metadata["language_info"] = li
	}
	if err := notebook.Write(r.job.path, nb); err != nil {
		r.fail("storing the outputs: " + err.Error())
	} else {
		r.prog.println("  stored the outputs in %s", r.job.path)
	}
}

// writeExecuted writes the executed copy to the job's output path.
func (r *notebookRun) writeExecuted(res *jupyter.Result) {
	if err := notebook.Write(r.job.out, res.Notebook); err != nil {
		r.fail("writing the executed copy: " + err.Error())
	} else {
		r.prog.wrote(r.job.out)
	}
}

// checkStored compares the stored outputs of nb's code cells with fresh ones
// (by cell index) and returns one failure per cell that differs, and those
// cells' indices. A notebook with nothing stored is one failure, no cell.
func checkStored(nb *notebook.Notebook, fresh map[int][]*notebook.Output, ordinal map[int]int) (failures []string, cells []int) {
	if !nb.HasStoredOutputs() {
		return []string{"no stored outputs to check (store them with agx run --store, or make outputs)"}, nil
	}
	for i, c := range nb.Cells {
		outs, ran := fresh[i]
		if c.CellType != notebook.Code || !ran || c.Volatile() {
			continue
		}
		if diff := notebook.CompareStored(c.Outputs, outs); diff != "" {
			failures = append(failures, fmt.Sprintf("cell %d (%s): the stored outputs differ from this run's (- stored, + this run); "+
				"store them anew with make outputs, or mark the cell \"agx\": {\"volatile\": true} if they vary:\n%s",
				ordinal[i], clipLine(c.FirstLine(), 40), diff))
			cells = append(cells, i)
		}
	}
	return failures, cells
}

// runTempDir makes a run's temporary directory, the kernel's TMPDIR, as an
// absolute path: the kernel starts in the notebook's directory, where a
// relative $TMPDIR would name another place.
func runTempDir() (string, error) {
	tmp, err := os.MkdirTemp("", "agx-run-")
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(tmp)
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return abs, nil
}

// removeRunTemp removes a run's temporary directory. Directories a cell
// made read-only, whose entries its owner could not remove, are made
// writable first.
func removeRunTemp(tmp string) error {
	if os.RemoveAll(tmp) == nil {
		return nil
	}
	_ = filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(tmp)
}

// pathNormalizer finds the Go module that holds the notebook (the nearest
// go.mod above it), whose directory appears in the stack traces of cells.
func pathNormalizer(nbPath string) notebook.PathNormalizer {
	dir, err := filepath.Abs(filepath.Dir(nbPath))
	if err != nil {
		return notebook.PathNormalizer{}
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			if mod := modulePath(b); mod != "" {
				return notebook.PathNormalizer{Root: dir, Module: mod}
			}
			return notebook.PathNormalizer{}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return notebook.PathNormalizer{}
		}
		dir = parent
	}
}

// modulePath returns the module path of a go.mod file ("" when it has none).
func modulePath(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

func printSummary(w io.Writer, rows []runSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NOTEBOOK\tCELLS\tFAILURES\tSECONDS\tRESULT")
	total := runSummary{path: "total"}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%s\n", r.path, r.cells, r.failures, r.seconds, verdict(r.failures))
		total.cells += r.cells
		total.failures += r.failures
		total.seconds += r.seconds
	}
	if len(rows) > 1 {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%s\n", total.path, total.cells, total.failures, total.seconds, verdict(total.failures))
	}
	tw.Flush()
}

func verdict(failures int) string {
	if failures > 0 {
		return "FAIL"
	}
	return "ok"
}

// clipLine shortens s to at most n runes, marking a cut with "…".
func clipLine(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
