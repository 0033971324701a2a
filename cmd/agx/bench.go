package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/goagx/agx/bench"
)

const benchUsage = `usage: agx bench [flags]

Runs the performance workloads (bench/README.md) in agx and, when Debian's
python3-torch is importable, the same workloads in PyTorch (as many threads
as agx's GOMAXPROCS: one with GOMAXPROCS=1, nproc by default), in
one invocation, alternating between the two. Prints the median time per call
(per op for tiny_ops_overhead), the agx/PyTorch ratio, GFLOP/s, allocations
and the collector's CPU time. The agx side runs as notebook cells run: in a
program built like one (bench/cell: agx and agx/nb, not this command's
grading and web code, whose start-up heap makes collections slower), each
workload in a new process of it, against one PyTorch process per run, as
in a Jupyter kernel. agx bench builds it with the go command from the agx
checkout it runs in, with this command's build tags. -in-process times agx
inside this command instead, all workloads in one process, which needs no
checkout (-mem and -peak always run inside it).
With -repeat N it runs all of that N times in new processes and prints the
median and range of each workload's figures over the runs (one run draws
each side's memory once, which moves memory-bound workloads). The agx side
runs as notebook cells do, with GODEBUG=madvdontneed=0,memprofilerate=0,
each unless GODEBUG already sets it (madvdontneed=1,memprofilerate=524288:
as a plain Go program).

Flags:
`

func benchCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, f := newBenchFlags(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{"unexpected arguments"}
	}
	if err := f.check(); err != nil {
		return err
	}
	if *f.peakReport {
		peaks, rows := bench.MeasureGEMMPeak(bench.PeakOptions{Progress: stderr})
		return bench.WriteGEMMPeak(stdout, peaks, rows)
	}
	opts, err := f.Options(stderr)
	if err != nil {
		return usageError{err.Error()}
	}
	if *f.memSteps > 0 {
		return benchMemory(stdout, opts.Filter, *f.Filter, *f.memSteps)
	}
	// The flags that time workloads, for a child process (-run apart: the
	// cell program gets one workload's).
	var child []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "repeat", "json", "in-process", "run":
		default:
			child = append(child, "-"+fl.Name+"="+fl.Value.String())
		}
	})
	if *f.inProcess {
		if len(bench.Names(opts.Filter)) == 0 {
			return fmt.Errorf("no workload matches %q", *f.Filter)
		}
		if *f.repeat > 1 {
			if *f.Filter != "" {
				child = append(child, "-run="+*f.Filter)
			}
			return benchRepeat(ctx, *f.repeat, func(i int, out string) ([]bench.Result, error) {
				return runChild(ctx, "", append(slices.Clone(child), "-json="+out), nil, stderr)
			}, *f.JSON, stdout, stderr)
		}
		opts.Where = inProcessWhere
		return bench.RunOnce(ctx, opts, *f.Filter, *f.JSON, stdout)
	}
	cell, cleanup, err := buildCell(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	// The workloads of the checkout the cell was built from, which may
	// differ from this command's.
	names, err := cellWorkloads(ctx, cell, *f.Filter)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("no workload matches %q", *f.Filter)
	}
	runCells := func(_ int, out string) ([]bench.Result, error) {
		return runCells(ctx, cell, names, child, !*f.NoTorch, *f.Python, filepath.Dir(out), stderr)
	}
	if *f.repeat > 1 {
		return benchRepeat(ctx, *f.repeat, runCells, *f.JSON, stdout, stderr)
	}
	dir, err := os.MkdirTemp("", "agx-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	res, err := runCells(0, filepath.Join(dir, "run.json"))
	if err != nil {
		return err
	}
	return bench.WriteResults(stdout, res, *f.JSON)
}

// cellWorkloads returns the names of the cell program's workloads that the
// -run expression filter matches (all when it is ""), in their order.
func cellWorkloads(ctx context.Context, cell, filter string) ([]string, error) {
	cmd, err := benchChild(ctx, cell, []string{"-list", "-run=" + filter})
	if err != nil {
		return nil, err
	}
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("listing the agx side's workloads: %s", commandError(err))
	}
	return strings.Fields(string(out)), nil
}

// runCells times the named workloads one at a time, each in a new process
// of the cell program, as each execution of a notebook cell is a new
// process: in one process for all, a workload's time depended on those
// before it, whose live heap and buffers moved the collector's pace.
// PyTorch (when torch, with python) runs in one process for all of them,
// as in a Jupyter kernel, which the cell processes reach through its
// pipes. args are the other timing flags; the processes write their
// results into dir. Only the first prints the header.
func runCells(ctx context.Context, cell string, names, args []string, torch bool, python, dir string, stderr io.Writer) ([]bench.Result, error) {
	var srv *bench.TorchServer
	if torch {
		s, err := bench.StartTorchServer(ctx, python)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			fmt.Fprintf(stderr, "PyTorch unavailable (%v): timing agx only\n", err)
			args = append(slices.Clone(args), "-no-torch")
		} else {
			srv = s
			defer srv.Close()
			args = append(slices.Clone(args), "-torch-server")
		}
	}
	var all []bench.Result
	for i, name := range names {
		a := append(slices.Clone(args), "-run=^"+regexp.QuoteMeta(name)+"$", "-json="+filepath.Join(dir, fmt.Sprintf("cell%d.json", i)))
		if i > 0 {
			a = append(a, "-no-header")
		}
		var files []*os.File
		if srv != nil {
			files = srv.Files()
		}
		res, err := runChild(ctx, cell, a, files, stderr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		all = append(all, res...)
	}
	return all, nil
}

// runChild runs one comparison in a new process (benchChild's) with args,
// which must include -json=FILE, and files at file descriptors 3 and up,
// passes its progress on to stderr (its table is dropped: the caller
// prints the results) and returns the results it wrote.
func runChild(ctx context.Context, cell string, args []string, files []*os.File, stderr io.Writer) ([]bench.Result, error) {
	var out string
	for _, a := range args {
		if f, ok := strings.CutPrefix(a, "-json="); ok {
			out = f
		}
	}
	cmd, err := benchChild(ctx, cell, args)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = io.Discard, stderr, files
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	var res []bench.Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, err
	}
	return res, nil
}

// inProcessWhere is the header's description of the agx side with
// -in-process.
const inProcessWhere = "inside the agx command (-in-process; its collections cost more than a notebook cell's)"

// cellPkg is the program agx bench builds for its agx side.
const cellPkg = "github.com/goagx/agx/bench/cell"

// buildCell builds cellPkg with the go command, from the main module of the
// current directory, which must be agx's, into a temporary directory, with
// the build tags this command was built with. It returns the program's path
// and a function that removes it.
func buildCell(ctx context.Context, stderr io.Writer) (string, func(), error) {
	hint := "run agx bench in a checkout of agx (go run ./cmd/agx bench) with Go installed, or add -in-process to time agx inside this command, whose collections cost more than a notebook cell's"
	dir, err := agxModuleDir(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("the agx side (%s) is built from the agx module, but %v: %s", cellPkg, err, hint)
	}
	tmp, err := os.MkdirTemp("", "agx-bench-cell-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	exe := filepath.Join(tmp, "cell")
	args := []string{"build", "-o", exe}
	if tags := buildTags(); tags != "" {
		args = append(args, "-tags", tags)
	}
	fmt.Fprintf(stderr, "agx bench: building the agx side (%s)\n", cellPkg)
	build := exec.CommandContext(ctx, "go", append(args, "./bench/cell")...)
	build.Dir = dir
	// On Ctrl-C the go command gets an interrupt, not a kill, so that it
	// removes its work directory.
	build.Cancel = func() error { return build.Process.Signal(os.Interrupt) }
	build.WaitDelay = 5 * time.Second
	if msg, err := build.CombinedOutput(); err != nil {
		cleanup()
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		return "", nil, fmt.Errorf("building the agx side (%s) in %s failed: %v\n%sFix the build, or add -in-process to time agx inside this command", cellPkg, dir, err, msg)
	}
	return exe, cleanup, nil
}

// agxModuleDir returns the directory of the agx module when it is a main
// module of the current directory (alone, or in a go.work workspace).
func agxModuleDir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Path}}\t{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("`go list -m` failed here (%s)", commandError(err))
	}
	var mains []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, "\t")
		if path == "github.com/goagx/agx" && dir != "" {
			return dir, nil
		}
		if dir != "" {
			mains = append(mains, path)
		}
	}
	if len(mains) == 0 {
		return "", errors.New("this directory is in no Go module")
	}
	return "", fmt.Errorf("this directory's main module is %s", strings.Join(mains, ", "))
}

// commandError adds a failed command's standard error to err.
func commandError(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return strings.TrimSpace(string(ee.Stderr))
	}
	return err.Error()
}

// buildTags returns the build tags this program was built with ("" for
// none), so that the agx side runs the same code (-tags openblas: MatMul
// on OpenBLAS).
func buildTags() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range info.Settings {
		if s.Key == "-tags" {
			return s.Value
		}
	}
	return ""
}

// benchFlags holds the parsed flags of agx bench: those that time
// workloads, which the program of the agx side takes too, and agx bench's
// own.
type benchFlags struct {
	*bench.Flags
	repeat, memSteps      *int
	peakReport, inProcess *bool
}

// newBenchFlags defines the flags of agx bench on a new flag set.
func newBenchFlags(stderr io.Writer) (*flag.FlagSet, *benchFlags) {
	fs := flag.NewFlagSet("agx bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchFlags{Flags: bench.DefineFlags(fs)}
	f.repeat = fs.Int("repeat", 1, "run the whole comparison `N` times, each with new agx processes and a new PyTorch process, and print the median and range of each workload's figures over the runs")
	f.peakReport = fs.Bool("peak", false, "instead of the workloads, measure one core's FMA peak and the float32 and float64 GEMM (256 to 2048, one thread) as a fraction of it; AGX_GEMM_ISA=avx2 in the environment measures the AVX2 kernels on an AVX-512 CPU")
	f.inProcess = fs.Bool("in-process", false, "time agx inside this command instead of in a program built like a notebook cell (bench/cell); needs no agx checkout, but this command's start-up heap makes its collections cost more")
	f.memSteps = fs.Int("mem", 0, "instead of timing, run each workload `N` times and report its memory (allocation per call, live heap, peak heap), then the peak memory and step time of a deep MLP with and without agx.Checkpoint (checkpoint_deep_mlp)")
	fs.Usage = func() {
		fmt.Fprint(stderr, benchUsage)
		fs.PrintDefaults()
	}
	return fs, f
}

// check rejects flag combinations agx bench does not run, and an unknown
// AGX_GEMM_ISA.
func (f *benchFlags) check() error {
	if *f.Gap < 0 || (*f.Gap > 0 && !*f.NoTorch) {
		return usageError{"-gap takes a positive duration and needs -no-torch (with PyTorch, agx already idles while PyTorch runs)"}
	}
	if *f.repeat < 1 {
		return usageError{"-repeat takes a count of 1 or more"}
	}
	if *f.repeat > 1 && *f.memSteps > 0 {
		return usageError{"-repeat times workloads; -mem measures memory in one process"}
	}
	if err := checkGEMMISA(os.Getenv("AGX_GEMM_ISA")); err != nil {
		return err
	}
	if *f.peakReport && (*f.repeat > 1 || *f.memSteps > 0) {
		return usageError{"-peak runs on its own, without -repeat or -mem"}
	}
	return nil
}

// benchMemory reports the memory of the workloads matching re (all when
// re is nil) and of the checkpointed deep MLP, steps calls each.
func benchMemory(stdout io.Writer, re *regexp.Regexp, filter string, steps int) error {
	var ws []bench.Workload
	for _, w := range bench.All() {
		if re == nil || re.MatchString(w.Name) {
			ws = append(ws, w)
		}
	}
	ckpt := re == nil || re.MatchString(bench.CheckpointName)
	if len(ws) == 0 && !ckpt {
		return fmt.Errorf("no workload matches %q", filter)
	}
	if len(ws) > 0 {
		if err := bench.WriteMemTable(stdout, bench.Memory(ws, steps)); err != nil {
			return err
		}
	}
	if ckpt {
		// Peak memory and time of a deep MLP with and without agx.Checkpoint.
		return bench.WriteCheckpointTable(stdout, bench.CheckpointMemory(checkpointModel, steps))
	}
	return nil
}

// checkpointModel is the model of -mem's checkpointing comparison (a
// variable for the tests, which use a smaller one).
var checkpointModel = bench.DefaultDeepMLP

// benchChild returns the command that runs one comparison with args in a
// new process: the program cell (buildCell), or `agx bench -in-process`
// when cell is "" (a variable for the tests).
var benchChild = func(ctx context.Context, cell string, args []string) (*exec.Cmd, error) {
	if cell != "" {
		return exec.CommandContext(ctx, cell, args...), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.CommandContext(ctx, exe, append([]string{"bench", "-in-process"}, args...)...), nil
}

// repeatJSON is what -json writes with -repeat: every run's results and the
// summary over them.
type repeatJSON struct {
	Runs    [][]bench.Result `json:"runs"`
	Summary []bench.Summary  `json:"summary"`
}

// benchRepeat runs the comparison n times with run, each time in new
// processes (each with its own PyTorch process; out is a file in a
// temporary directory that the run may use), and prints the summary over
// the runs on stdout; the runs' progress goes to stderr.
func benchRepeat(ctx context.Context, n int, run func(i int, out string) ([]bench.Result, error), jsonOut string, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "agx-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var runs [][]bench.Result
	for i := range n {
		fmt.Fprintf(stderr, "agx bench: run %d of %d, in new processes\n", i+1, n)
		sub := filepath.Join(dir, fmt.Sprintf("run%d", i+1))
		if err := os.Mkdir(sub, 0o700); err != nil {
			return err
		}
		res, err := run(i, filepath.Join(sub, "run.json"))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("run %d of %d: %w", i+1, n, err)
		}
		runs = append(runs, res)
	}
	sum := bench.Summarize(runs)
	fmt.Fprintf(stdout, "\nOver %d runs, each in new processes:\n", n)
	if err := bench.WriteSummary(stdout, sum); err != nil {
		return err
	}
	if jsonOut != "" {
		b, err := json.MarshalIndent(repeatJSON{runs, sum}, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(jsonOut, append(b, '\n'), 0o644)
	}
	return nil
}

// checkGEMMISA rejects a value of AGX_GEMM_ISA that the GEMM kernels do not
// know: they ignore it, and a typo would measure the default kernels under
// the name of others. The values are those of tensor/internal/gemm.
func checkGEMMISA(v string) error {
	switch v {
	case "", "avx2", "go":
		return nil
	}
	return usageError{fmt.Sprintf(`AGX_GEMM_ISA=%q is not a GEMM kernel limit: use "avx2" or "go", or unset it for the widest kernels the CPU runs`, v)}
}
