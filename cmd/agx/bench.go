package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"time"

	"github.com/goagx/agx/bench"
)

const benchUsage = `usage: agx bench [flags]

Runs the performance workloads (bench/README.md) in agx and, when Debian's
python3-torch is importable, the same workloads in PyTorch (one thread), in
one invocation, alternating between the two. Prints the median time per call
(per op for tiny_ops_overhead), the agx/PyTorch ratio, GFLOP/s and allocations.

Flags:
`

func benchCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agx bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	filter := fs.String("run", "", "only workloads whose name matches this `regexp`")
	rounds := fs.Int("rounds", 7, "alternating agx/PyTorch rounds per workload")
	sample := fs.Duration("sample", 40*time.Millisecond, "target duration of one timed sample")
	noTorch := fs.Bool("no-torch", false, "time agx only")
	python := fs.String("python", "/usr/bin/python3", "Python `interpreter` with torch")
	jsonOut := fs.String("json", "", "also write the results as JSON to `FILE`")
	gap := fs.Duration("gap", 0, "with -no-torch, idle this long before each agx sample, as agx idles while PyTorch runs its sample")
	memSteps := fs.Int("mem", 0, "instead of timing, run each workload `N` times and report its memory (allocation per call, live heap, peak heap)")
	fs.Usage = func() {
		fmt.Fprint(stderr, benchUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{"unexpected arguments"}
	}
	if *gap < 0 || (*gap > 0 && !*noTorch) {
		return usageError{"-gap takes a positive duration and needs -no-torch (with PyTorch, agx already idles while PyTorch runs)"}
	}
	opts := bench.Options{Rounds: *rounds, Sample: *sample, Torch: !*noTorch, Python: *python, Progress: stderr, Gap: *gap}
	if *filter != "" {
		re, err := regexp.Compile(*filter)
		if err != nil {
			return usageError{"bad -run: " + err.Error()}
		}
		opts.Filter = re
	}
	if *memSteps > 0 {
		var ws []bench.Workload
		for _, w := range bench.All() {
			if opts.Filter == nil || opts.Filter.MatchString(w.Name) {
				ws = append(ws, w)
			}
		}
		if len(ws) == 0 {
			return fmt.Errorf("no workload matches %q", *filter)
		}
		return bench.WriteMemTable(stdout, bench.Memory(ws, *memSteps))
	}
	res, err := bench.Run(ctx, opts)
	if err != nil {
		return err
	}
	if len(res) == 0 {
		return fmt.Errorf("no workload matches %q", *filter)
	}
	fmt.Fprintln(stdout)
	if err := bench.WriteTable(stdout, res); err != nil {
		return err
	}
	if *jsonOut != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
