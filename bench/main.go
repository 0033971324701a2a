package bench

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
)

// Flags are the flags that time workloads, which `agx bench` and the
// program of its agx side (bench/cell) share.
type Flags struct {
	Filter, Python, JSON *string
	Rounds               *int
	Sample, Gap          *time.Duration
	NoTorch              *bool
}

// DefineFlags defines the flags that time workloads on fs.
func DefineFlags(fs *flag.FlagSet) *Flags {
	return &Flags{
		Filter:  fs.String("run", "", "only workloads whose name matches this `regexp`"),
		Rounds:  fs.Int("rounds", 7, "alternating agx/PyTorch rounds per workload"),
		Sample:  fs.Duration("sample", 40*time.Millisecond, "target duration of one timed sample"),
		NoTorch: fs.Bool("no-torch", false, "time agx only"),
		Python:  fs.String("python", "/usr/bin/python3", "Python `interpreter` with torch"),
		JSON:    fs.String("json", "", "also write the results as JSON to `FILE`"),
		Gap:     fs.Duration("gap", 0, "with -no-torch, idle this long before each agx sample, as agx idles while PyTorch runs its sample"),
	}
}

// Options returns the Options the flags set, with progress on progress.
func (f *Flags) Options(progress io.Writer) (Options, error) {
	opts := Options{Rounds: *f.Rounds, Sample: *f.Sample, Torch: !*f.NoTorch, Python: *f.Python, Progress: progress, Gap: *f.Gap}
	if *f.Filter != "" {
		re, err := regexp.Compile(*f.Filter)
		if err != nil {
			return opts, fmt.Errorf("bad -run: %v", err)
		}
		opts.Filter = re
	}
	return opts, nil
}

// Main runs one timing comparison with the command-line arguments args
// (flags of DefineFlags, which `agx bench` has already checked), prints the
// table on stdout and progress on stderr, and returns the exit status.
// where says in which program the agx side runs, for the header. It is the
// body of the program that `agx bench` builds for its agx side
// (bench/cell).
func Main(ctx context.Context, args []string, where string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := DefineFlags(fs)
	noHeader := fs.Bool("no-header", false, "do not print the lines on the agx and PyTorch setup (agx bench gives it to all but the first workload of a run)")
	list := fs.Bool("list", false, "print the names of the workloads -run selects, one a line, and exit")
	inherited := fs.Bool("torch-server", false, "time PyTorch through the pipes of agx bench's PyTorch process, at file descriptors 3 and 4, instead of starting one")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "bench: unexpected arguments")
		return 2
	}
	opts, err := f.Options(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	opts.Where = where
	if *list {
		for _, name := range Names(opts.Filter) {
			fmt.Fprintln(stdout, name)
		}
		return 0
	}
	opts.NoHeader, opts.InheritedTorch = *noHeader, *inherited
	if err := RunOnce(ctx, opts, *f.Filter, *f.JSON, stdout); err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	return 0
}

// Names returns the names of the workloads re matches (all when re is nil),
// in the order in which they run.
func Names(re *regexp.Regexp) []string {
	var names []string
	for _, w := range All() {
		if re == nil || re.MatchString(w.Name) {
			names = append(names, w.Name)
		}
	}
	return names
}

// RunOnce runs the comparison once, prints its table and, when jsonOut is
// set, writes the results there as JSON. filter is the -run expression, for
// the error when nothing matches.
func RunOnce(ctx context.Context, opts Options, filter, jsonOut string, stdout io.Writer) error {
	res, err := Run(ctx, opts)
	if err != nil {
		return err
	}
	if len(res) == 0 {
		return fmt.Errorf("no workload matches %q", filter)
	}
	return WriteResults(stdout, res, jsonOut)
}

// WriteResults prints the results as a table after an empty line and, when
// jsonOut is set, writes them there as JSON.
func WriteResults(stdout io.Writer, res []Result, jsonOut string) error {
	fmt.Fprintln(stdout)
	if err := WriteTable(stdout, res); err != nil {
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
