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
	"slices"
	"time"

	"github.com/goagx/agx/bench"
)

const benchUsage = `usage: agx bench [flags]

Runs the performance workloads (bench/README.md) in agx and, when Debian's
python3-torch is importable, the same workloads in PyTorch (as many threads
as agx's GOMAXPROCS: one with GOMAXPROCS=1, nproc by default), in
one invocation, alternating between the two. Prints the median time per call
(per op for tiny_ops_overhead), the agx/PyTorch ratio, GFLOP/s and allocations.
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
	opts := bench.Options{Rounds: *f.rounds, Sample: *f.sample, Torch: !*f.noTorch, Python: *f.python, Progress: stderr, Gap: *f.gap}
	if *f.filter != "" {
		re, err := regexp.Compile(*f.filter)
		if err != nil {
			return usageError{"bad -run: " + err.Error()}
		}
		opts.Filter = re
	}
	if *f.memSteps > 0 {
		return benchMemory(stdout, opts.Filter, *f.filter, *f.memSteps)
	}
	if *f.repeat > 1 {
		var child []string
		fs.Visit(func(fl *flag.Flag) {
			if fl.Name != "repeat" && fl.Name != "json" {
				child = append(child, "-"+fl.Name+"="+fl.Value.String())
			}
		})
		return benchRepeat(ctx, *f.repeat, child, *f.jsonOut, stdout, stderr)
	}
	return benchOnce(ctx, opts, *f.filter, *f.jsonOut, stdout)
}

// benchFlags holds the parsed flags of agx bench.
type benchFlags struct {
	filter, python, jsonOut  *string
	rounds, repeat, memSteps *int
	sample, gap              *time.Duration
	noTorch, peakReport      *bool
}

// newBenchFlags defines the flags of agx bench on a new flag set.
func newBenchFlags(stderr io.Writer) (*flag.FlagSet, *benchFlags) {
	fs := flag.NewFlagSet("agx bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchFlags{}
	f.filter = fs.String("run", "", "only workloads whose name matches this `regexp`")
	f.rounds = fs.Int("rounds", 7, "alternating agx/PyTorch rounds per workload")
	f.sample = fs.Duration("sample", 40*time.Millisecond, "target duration of one timed sample")
	f.noTorch = fs.Bool("no-torch", false, "time agx only")
	f.python = fs.String("python", "/usr/bin/python3", "Python `interpreter` with torch")
	f.jsonOut = fs.String("json", "", "also write the results as JSON to `FILE`")
	f.gap = fs.Duration("gap", 0, "with -no-torch, idle this long before each agx sample, as agx idles while PyTorch runs its sample")
	f.repeat = fs.Int("repeat", 1, "run the whole comparison `N` times, each in a new agx and a new PyTorch process, and print the median and range of each workload's figures over the runs")
	f.peakReport = fs.Bool("peak", false, "instead of the workloads, measure one core's FMA peak and the float32 and float64 GEMM (256 to 2048, one thread) as a fraction of it; AGX_GEMM_ISA=avx2 in the environment measures the AVX2 kernels on an AVX-512 CPU")
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
	if *f.gap < 0 || (*f.gap > 0 && !*f.noTorch) {
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

// benchOnce runs the timing comparison once, prints its table and, when
// jsonOut is set, writes the results there as JSON.
func benchOnce(ctx context.Context, opts bench.Options, filter, jsonOut string, stdout io.Writer) error {
	res, err := bench.Run(ctx, opts)
	if err != nil {
		return err
	}
	if len(res) == 0 {
		return fmt.Errorf("no workload matches %q", filter)
	}
	fmt.Fprintln(stdout)
	if err := bench.WriteTable(stdout, res); err != nil {
		return err
	}
	if jsonOut != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// checkpointModel is the model of -mem's checkpointing comparison (a
// variable for the tests, which use a smaller one).
var checkpointModel = bench.DefaultDeepMLP

// benchChild returns the command that runs one `agx bench` with args in a
// new process (a variable for the tests).
var benchChild = func(ctx context.Context, args []string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.CommandContext(ctx, exe, append([]string{"bench"}, args...)...), nil
}

// repeatJSON is what -json writes with -repeat: every run's results and the
// summary over them.
type repeatJSON struct {
	Runs    [][]bench.Result `json:"runs"`
	Summary []bench.Summary  `json:"summary"`
}

// benchRepeat runs `agx bench` with args n times, each in a new process
// (which starts its own PyTorch process), passes their output on to stderr,
// and prints the summary over the runs on stdout.
func benchRepeat(ctx context.Context, n int, args []string, jsonOut string, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "agx-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var runs [][]bench.Result
	for i := range n {
		fmt.Fprintf(stderr, "agx bench: run %d of %d, in new processes\n", i+1, n)
		out := filepath.Join(dir, fmt.Sprintf("run%d.json", i+1))
		cmd, err := benchChild(ctx, append(slices.Clone(args), "-json="+out))
		if err != nil {
			return err
		}
		cmd.Stdout, cmd.Stderr = stderr, stderr
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("run %d of %d: %w", i+1, n, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return fmt.Errorf("run %d of %d: %w", i+1, n, err)
		}
		var res []bench.Result
		if err := json.Unmarshal(b, &res); err != nil {
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
