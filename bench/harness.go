package bench

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/goagx/agx/tensor"
)

//go:embed torch_workloads.py
var torchScript string

// Options configures Run.
type Options struct {
	Filter   *regexp.Regexp // workloads to run (nil: all)
	Rounds   int            // alternating A/B rounds (default 7)
	Sample   time.Duration  // target duration of one timed sample (default 40ms)
	Torch    bool           // also run PyTorch, when available
	Python   string         // interpreter with torch (default /usr/bin/python3)
	Progress io.Writer      // progress lines (nil: none)
	// Gap, when positive, idles the agx process this long before each of its
	// samples, as it idles while PyTorch runs its sample; it applies only
	// when agx runs alone (see docs/performance.md, "What is still
	// slower, and why", on idle time).
	Gap time.Duration
	// Where, when set, says in which program the agx side runs; the header
	// prints it.
	Where string
	// NoHeader leaves out the header: the lines on where and how each side
	// runs.
	NoHeader bool
	// InheritedTorch, with Torch, times PyTorch through the pipes of a
	// TorchServer at TorchFD instead of starting a process.
	InheritedTorch bool
}

// Result is one workload's figures. Times are medians per call (per op for
// workloads with Ops > 1), in seconds; Torch fields are 0 without PyTorch.
type Result struct {
	Name        string  `json:"name"`
	Desc        string  `json:"desc"`
	PerOp       bool    `json:"per_op"`
	Agx         float64 `json:"agx_seconds"`
	Torch       float64 `json:"torch_seconds,omitempty"`
	Ratio       float64 `json:"ratio,omitempty"`
	GFlops      float64 `json:"agx_gflops,omitempty"`
	TorchGFlops float64 `json:"torch_gflops,omitempty"`
	AllocsPerOp float64 `json:"allocs_per_op"`
	BytesPerOp  float64 `json:"bytes_per_op"`
	// FaultsPerOp is the agx process's minor page faults per call (per op)
	// in its last timed sample: memory the runtime mapped or got back from
	// the OS and touched again. -1 where the OS does not report it.
	FaultsPerOp float64 `json:"faults_per_op"`
	// GCPerOp is the CPU time Go's garbage collector spent over all of the
	// workload's agx samples divided by their calls (ops), in seconds (a
	// mean, where Agx is the median sample): marking by
	// the collector's workers and by allocating goroutines (assists), and
	// its pauses, as the runtime estimates them (runtime/metrics
	// /cpu/classes/gc/total:cpu-seconds, counted at the end of each cycle).
	// At one thread it is the part of Agx the collector took.
	GCPerOp float64 `json:"gc_cpu_seconds_per_op"`
}

// torchProc is the PyTorch side, a persistent process answering timing
// requests, which this program started (cmd) or reaches through a
// TorchServer's pipes.
type torchProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// checkTorch reports why python cannot run the PyTorch side, or nil.
func checkTorch(ctx context.Context, python string) error {
	if _, err := os.Stat(python); err != nil {
		return fmt.Errorf("%s not found", python)
	}
	if out, err := exec.CommandContext(ctx, python, "-c", "import torch").CombinedOutput(); err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return fmt.Errorf("%s cannot import torch: %s", python, lines[len(lines)-1])
	}
	return nil
}

// torchCommand is the PyTorch side's process, with its environment.
func torchCommand(ctx context.Context, python string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, python, "-c", torchScript)
	cmd.Env = torchEnv(os.Environ(), runtime.GOMAXPROCS(0))
	cmd.Stderr = os.Stderr
	return cmd
}

func startTorch(ctx context.Context, python string) (*torchProc, error) {
	if err := checkTorch(ctx, python); err != nil {
		return nil, err
	}
	cmd := torchCommand(ctx, python)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &torchProc{cmd: cmd, in: in, out: torchScanner(out)}, nil
}

func torchScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return sc
}

// A TorchServer is a PyTorch side that outlives the programs that time
// against it: `agx bench` starts one per run and hands its pipes to the
// process of each workload (Files), so that PyTorch runs as in a Jupyter
// kernel, one process for all workloads, while each workload's agx side
// starts afresh, as a notebook cell's program does.
type TorchServer struct {
	cmd          *exec.Cmd
	toPy, fromPy *os.File // our ends: requests in, answers out
}

// TorchFD is the file descriptor at which a program started with a
// TorchServer's Files finds the pipe to PyTorch; the pipe from it is the
// next one.
const TorchFD = 3

// StartTorchServer starts the PyTorch side with python. When PyTorch is
// unavailable it returns a nil server and why.
func StartTorchServer(ctx context.Context, python string) (*TorchServer, error) {
	if err := checkTorch(ctx, python); err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := torchCommand(ctx, python)
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	return &TorchServer{cmd: cmd, toPy: inW, fromPy: outR}, nil
}

// Files returns the pipes to and from PyTorch, for exec.Cmd.ExtraFiles
// (they become TorchFD and TorchFD+1 there). One program at a time may
// use them.
func (s *TorchServer) Files() []*os.File { return []*os.File{s.toPy, s.fromPy} }

// Close ends the PyTorch process.
func (s *TorchServer) Close() {
	s.toPy.Close()
	s.cmd.Wait()
	s.fromPy.Close()
}

// inheritedTorch is the PyTorch side of a TorchServer whose pipes this
// program was given at TorchFD.
func inheritedTorch() (*torchProc, error) {
	to, from := os.NewFile(TorchFD, "to-pytorch"), os.NewFile(TorchFD+1, "from-pytorch")
	for _, f := range []*os.File{to, from} {
		if st, err := f.Stat(); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			return nil, fmt.Errorf("no pipe to or from PyTorch at file descriptor %d (-torch-server is for agx bench's cell processes)", f.Fd())
		}
	}
	return &torchProc{in: to, out: torchScanner(from)}, nil
}

// torchMalloc keeps glibc's malloc in the PyTorch process from giving
// large blocks back to the OS. Without it, blocks above its mmap threshold
// (128 KiB at first) are mapped fresh for each allocation, and freed memory
// above its trim threshold goes back to the OS; glibc raises both to fit
// the largest block freed so far, so PyTorch's time for a workload
// depended on which workloads had run before it in the same process. Measured on the
// tenth round's machine: batchnorm_backward's 512 KiB tensors took 6.7-8.4
// ms a step run alone or after the gradchecks and 1.3 ms after the matrix
// products of a full run; with these settings 1.3 ms either way.
const torchMalloc = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=134217728"

// torchEnv is the PyTorch process's environment: env with threads threads
// for every BLAS and OpenMP and for torch.set_num_threads (AGX_BENCH_THREADS,
// read by torch_workloads.py), and torchMalloc unless GLIBC_TUNABLES is set.
func torchEnv(env []string, threads int) []string {
	n := strconv.Itoa(max(threads, 1))
	out := append(slices.Clip(env), "OMP_NUM_THREADS="+n, "OPENBLAS_NUM_THREADS="+n, "MKL_NUM_THREADS="+n, "AGX_BENCH_THREADS="+n)
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GLIBC_TUNABLES=") }) {
		out = append(out, "GLIBC_TUNABLES="+torchMalloc)
	}
	return out
}

// time runs the workload iters times in PyTorch and returns the total seconds.
func (p *torchProc) time(name string, iters int) (float64, error) {
	if _, err := fmt.Fprintf(p.in, "%s %d\n", name, iters); err != nil {
		return 0, err
	}
	if !p.out.Scan() {
		return 0, fmt.Errorf("pytorch process ended: %v", p.out.Err())
	}
	var r struct {
		Seconds float64 `json:"seconds"`
		Error   string  `json:"error"`
	}
	if err := json.Unmarshal(p.out.Bytes(), &r); err != nil {
		return 0, err
	}
	if r.Error != "" {
		return 0, fmt.Errorf("pytorch: %s", r.Error)
	}
	return r.Seconds, nil
}

// blas asks the PyTorch process which BLAS it runs on (for OpenBLAS, its
// set of kernels).
func (p *torchProc) blas() (string, error) {
	if _, err := fmt.Fprintln(p.in, "blas"); err != nil {
		return "", err
	}
	if !p.out.Scan() {
		return "", fmt.Errorf("pytorch process ended: %v", p.out.Err())
	}
	var r struct {
		BLAS string `json:"blas"`
	}
	if err := json.Unmarshal(p.out.Bytes(), &r); err != nil {
		return "", err
	}
	return r.BLAS, nil
}

// close ends the PyTorch process this program started; the server's is
// left to it.
func (p *torchProc) close() {
	if p.cmd == nil {
		return
	}
	p.in.Close()
	p.cmd.Wait()
}

// calibrate returns how many calls make one sample of about target.
func calibrate(one time.Duration, target time.Duration) int {
	if one <= 0 {
		return 1000
	}
	n := int(target / one)
	return max(1, min(n, 1_000_000))
}

// The warm-up's bounds (variables for the tests). A workload is warm when
// it has run for warmMin and the Go heap has reached its steady state: at
// least warmCycles collections since the warm-up began, so that the memory
// its results cycle through has been touched once and is reused from then
// on. A workload that allocates less than warmQuiet bytes in warmMin does
// not cycle the heap and stops at warmMin; none runs longer than warmMax.
var (
	warmMin    = 300 * time.Millisecond
	warmMax    = 3 * time.Second
	warmCycles = uint64(2)
	warmQuiet  = uint64(1 << 20)
)

// warmUp runs a workload once, then in batches of about one sample's worth
// of calls until it is warm (see warmMin), and returns the calls per
// sample, calibrated on the last batch: the first call can be many times
// slower than the rest, and calibrated on it alone the samples would be
// short.
//
// One sample's worth of calls used to be the whole warm-up. On a machine
// where the first touch of a page is expensive (measured on a VM where it
// costs tens of microseconds), an allocating workload then spent its first
// timed rounds touching the heap that its fresh results grow into: the
// 256³ float32 product, the first workload, took 600-1000 µs a call in a
// 7-round run against 200-330 µs in a 21-round one, on the same build.
func warmUp(run func(), sample time.Duration) int {
	start := time.Now()
	run()
	n := calibrate(time.Since(start), sample)
	cycles0, allocs0 := gcCounters()
	begin := time.Now()
	for {
		t := time.Now()
		for range n {
			run()
		}
		n = calibrate(time.Since(t)/time.Duration(n), sample)
		el := time.Since(begin)
		if el >= warmMax {
			return n
		}
		if el >= warmMin {
			cycles, allocs := gcCounters()
			if cycles-cycles0 >= warmCycles || allocs-allocs0 < warmQuiet {
				return n
			}
		}
	}
}

// gcCPU returns the CPU time the collector has spent since the program
// started, in seconds, as of its last completed cycle.
func gcCPU() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return s[0].Value.Float64()
}

// gcCounters returns the collections completed and the bytes allocated on
// the heap since the program started.
func gcCounters() (cycles, allocs uint64) {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// Run times the workloads, alternating agx and PyTorch samples round by round,
// and returns the medians. Without PyTorch (or with Torch false) only agx runs.
func Run(ctx context.Context, opts Options) ([]Result, error) {
	opts = withDefaults(opts)
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	header := progress
	if opts.NoHeader {
		header = io.Discard
	}
	reportAgxSetup(header, opts.Where)
	var tp *torchProc
	if opts.Torch && opts.InheritedTorch {
		p, err := inheritedTorch()
		if err == nil {
			err = reportTorch(p, header)
		}
		if err != nil {
			return nil, err
		}
		tp = p
	} else if opts.Torch {
		p, err := startTorchReporting(ctx, opts.Python, header)
		if err != nil {
			return nil, err
		}
		if p != nil {
			tp = p
			defer tp.close()
		}
	}
	var results []Result
	for _, w := range All() {
		if opts.Filter != nil && !opts.Filter.MatchString(w.Name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return results, err
		}
		res, err := runWorkload(w, tp, opts, progress)
		if err != nil {
			return results, err
		}
		results = append(results, res)
	}
	return results, nil
}

// withDefaults fills in the zero fields of opts.
func withDefaults(opts Options) Options {
	if opts.Rounds <= 0 {
		opts.Rounds = 7
	}
	if opts.Sample <= 0 {
		opts.Sample = 40 * time.Millisecond
	}
	if opts.Python == "" {
		opts.Python = "/usr/bin/python3"
	}
	return opts
}

// reportAgxSetup prints where the agx side runs and the BLAS, heap floor
// and GODEBUG it runs under.
func reportAgxSetup(progress io.Writer, where string) {
	if where != "" {
		fmt.Fprintf(progress, "agx side: %s\n", where)
	}
	godebug := os.Getenv("GODEBUG")
	if godebug == "" {
		godebug = "(unset; the lab's kernel and agx bench set madvdontneed=0,memprofilerate=0)"
	}
	fmt.Fprintf(progress, "agx BLAS: %s; heap floor: %d MiB (AGX_HEAP_FLOOR_MB); GODEBUG: %s\n", tensor.BLAS(), tensor.HeapFloorMiB(), godebug)
}

// startTorchReporting starts the PyTorch side and prints its BLAS and
// threads. It returns a nil process, and no error, when PyTorch is
// unavailable; the caller closes a non-nil process, also on error.
func startTorchReporting(ctx context.Context, python string, progress io.Writer) (*torchProc, error) {
	tp, err := startTorch(ctx, python)
	if err != nil {
		fmt.Fprintf(progress, "PyTorch unavailable (%v): timing agx only\n", err)
		return nil, nil
	}
	if err := reportTorch(tp, progress); err != nil {
		tp.close()
		return nil, err
	}
	return tp, nil
}

// reportTorch prints PyTorch's BLAS and threads, unless progress discards
// them.
func reportTorch(tp *torchProc, progress io.Writer) error {
	if progress == io.Discard {
		return nil
	}
	b, err := tp.blas()
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "PyTorch BLAS: %s\n", b)
	fmt.Fprintf(progress, "threads: agx GOMAXPROCS %d, PyTorch torch.set_num_threads(%d)\n", runtime.GOMAXPROCS(0), runtime.GOMAXPROCS(0))
	return nil
}

// warmUpTorch sets up and warms up workload name on the PyTorch side and
// returns how many iterations make one sample.
func warmUpTorch(tp *torchProc, name string, sample time.Duration) (int, error) {
	if _, err := tp.time(name, 1); err != nil { // set up and warm up
		return 0, err
	}
	s, err := tp.time(name, 1)
	if err != nil {
		return 0, err
	}
	iters := calibrate(time.Duration(s*float64(time.Second)), sample)
	// At least as long a warm-up as agx's shortest.
	for begin := time.Now(); time.Since(begin) < warmMin; {
		if _, err := tp.time(name, iters); err != nil {
			return 0, err
		}
	}
	return iters, nil
}

// workloadSamples collects the per-round timings and the last round's
// per-op allocation and fault counts of one workload.
type workloadSamples struct {
	agxS, torchS          []float64
	allocs, bytes, faults float64
	// gc and calls sum the collector's CPU time and the calls over all agx
	// samples.
	gc    float64
	calls int
}

// sampleAgx times agxIters calls of run and records their allocations
// and minor faults per op.
func (s *workloadSamples) sampleAgx(run func(), agxIters, ops int) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f0 := minorFaults()
	gc0 := gcCPU()
	t0 := time.Now()
	for i := 0; i < agxIters; i++ {
		run()
	}
	el := time.Since(t0).Seconds()
	s.gc += gcCPU() - gc0
	s.calls += agxIters
	f1 := minorFaults()
	runtime.ReadMemStats(&m1)
	s.agxS = append(s.agxS, el/float64(agxIters))
	s.allocs = float64(m1.Mallocs-m0.Mallocs) / float64(agxIters*ops)
	s.bytes = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(agxIters*ops)
	s.faults = -1
	if f0 >= 0 {
		s.faults = float64(f1-f0) / float64(agxIters*ops)
	}
}

// runWorkload warms up and times one workload on agx and, when tp is not
// nil, PyTorch, alternating which side goes first each round.
func runWorkload(w Workload, tp *torchProc, opts Options, progress io.Writer) (Result, error) {
	fmt.Fprintf(progress, "%-26s ", w.Name)
	run := w.Setup()
	agxIters := warmUp(run, opts.Sample)
	torchIters := 0
	if tp != nil {
		n, err := warmUpTorch(tp, w.Name, opts.Sample)
		if err != nil {
			return Result{}, err
		}
		torchIters = n
	}
	var s workloadSamples
	for r := 0; r < opts.Rounds; r++ {
		sideA := func() {
			if tp == nil && opts.Gap > 0 {
				time.Sleep(opts.Gap)
			}
			s.sampleAgx(run, agxIters, w.Ops)
		}
		var terr error
		sideB := func() {
			if tp == nil || terr != nil {
				return
			}
			t, err := tp.time(w.Name, torchIters)
			terr = err
			s.torchS = append(s.torchS, t/float64(torchIters))
		}
		if r%2 == 0 {
			sideA()
			sideB()
		} else {
			sideB()
			sideA()
		}
		if terr != nil {
			return Result{}, terr
		}
		fmt.Fprint(progress, ".")
	}
	res := summarize(w, &s)
	fmt.Fprintf(progress, " %s\n", fmtDur(res.Agx))
	return res, nil
}

// summarize turns one workload's samples into its Result.
func summarize(w Workload, s *workloadSamples) Result {
	res := Result{Name: w.Name, Desc: w.Desc, PerOp: w.Ops > 1, AllocsPerOp: s.allocs, BytesPerOp: s.bytes, FaultsPerOp: s.faults}
	if s.calls > 0 {
		res.GCPerOp = s.gc / float64(s.calls*w.Ops)
	}
	res.Agx = median(s.agxS) / float64(w.Ops)
	if w.Flops > 0 {
		res.GFlops = w.Flops / median(s.agxS) / 1e9
	}
	if len(s.torchS) > 0 {
		res.Torch = median(s.torchS) / float64(w.Ops)
		res.Ratio = res.Agx / res.Torch
		if w.Flops > 0 {
			res.TorchGFlops = w.Flops / median(s.torchS) / 1e9
		}
	}
	return res
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fmtDur(s float64) string {
	switch {
	case s == 0:
		return "-"
	case s < 1e-6:
		return fmt.Sprintf("%.0f ns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.2f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.2f ms", s*1e3)
	}
	return fmt.Sprintf("%.2f s", s)
}

// newTable starts an aligned table (tab-separated columns) with its header.
func newTable(w io.Writer, header string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	return tw
}

// opUnit is the suffix of a time per op (workloads with Ops > 1).
func opUnit(perOp bool) string {
	if perOp {
		return "/op"
	}
	return ""
}

// fmtRatio formats an agx/PyTorch ratio, "-" where there is none.
func fmtRatio(r float64) string {
	if r > 0 {
		return fmt.Sprintf("%.2f", r)
	}
	return "-"
}

// WriteTable prints the results as an aligned table.
func WriteTable(w io.Writer, rs []Result) error {
	tw := newTable(w, "WORKLOAD\tAGX\tPYTORCH\tRATIO\tGFLOP/S (AGX / TORCH)\tALLOCS/OP\tBYTES/OP\tFAULTS/OP\tAGX GC CPU")
	for _, r := range rs {
		unit, ratio, gf := opUnit(r.PerOp), fmtRatio(r.Ratio), "-"
		if r.GFlops > 0 {
			gf = fmt.Sprintf("%.1f", r.GFlops)
			if r.TorchGFlops > 0 {
				gf += fmt.Sprintf(" / %.1f", r.TorchGFlops)
			}
		}
		faults := "-"
		if r.FaultsPerOp >= 0 {
			faults = fmt.Sprintf("%.1f", r.FaultsPerOp)
		}
		fmt.Fprintf(tw, "%s\t%s%s\t%s%s\t%s\t%s\t%.1f\t%.0f\t%s\t%s%s\n", r.Name, fmtDur(r.Agx), unit, fmtDur(r.Torch), unit, ratio, gf, r.AllocsPerOp, r.BytesPerOp, faults, fmtDur(r.GCPerOp), unit)
	}
	return tw.Flush()
}
