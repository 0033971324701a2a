package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/goagx/agx/tensor"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/internal/testenv"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestCalibrate(t *testing.T) {
	if got := calibrate(10*time.Millisecond, 40*time.Millisecond); got != 4 {
		t.Errorf("calibrate = %d, want 4", got)
	}
	if got := calibrate(time.Second, 40*time.Millisecond); got != 1 {
		t.Errorf("a slow call still gets one iteration, got %d", got)
	}
}

// A slow first call must not leave the samples short: warmUp calibrates
// on the warm calls.
func TestWarmUpCalibratesOnWarmCalls(t *testing.T) {
	calls := 0
	run := func() {
		calls++
		if calls == 1 {
			time.Sleep(20 * time.Millisecond)
			return
		}
		time.Sleep(time.Millisecond)
	}
	n := warmUp(run, 40*time.Millisecond)
	// Calibrated on the first call alone, n would be 2; on the warm calls
	// (1 ms and a little more each) it is a few dozen.
	if n < 10 || n > 40 {
		t.Errorf("warmUp = %d calls per sample, want about 40 ms / 1 ms", n)
	}
	if calls < 2 {
		t.Errorf("warmUp ran %d calls, want the first and a warm-up", calls)
	}
}

// An allocating workload warms up until the heap has cycled (warmCycles
// collections), however short warmMin; one that does not allocate stops at
// warmMin, not at warmMax.
func TestWarmUpUntilTheHeapCycles(t *testing.T) {
	defer func(mn, mx time.Duration) { warmMin, warmMax = mn, mx }(warmMin, warmMax)
	warmMin, warmMax = 10*time.Millisecond, 20*time.Second

	var sink []byte
	cycles0, _ := gcCounters()
	warmUp(func() { sink = make([]byte, 256<<10); sink[0] = 1 }, time.Millisecond)
	if cycles, _ := gcCounters(); cycles-cycles0 < warmCycles {
		t.Errorf("an allocating workload's warm-up saw %d collections, want at least %d", cycles-cycles0, warmCycles)
	}
	_ = sink

	x := 0
	start := time.Now()
	warmUp(func() { x++ }, time.Millisecond)
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("a workload that does not allocate warmed up for %v, want about warmMin (%v)", el, warmMin)
	}
}

// The PyTorch process runs as many threads as agx (one at GOMAXPROCS=1,
// nproc at the default) and keeps glibc's large blocks, unless the user set
// GLIBC_TUNABLES.
func TestTorchEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		threads int
		want    string
	}{
		{"one thread", 1, "1"},
		{"default threads", 4, "4"},
		{"zero means one", 0, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := torchEnv([]string{"PATH=/bin"}, tc.threads)
			for _, want := range []string{"PATH=/bin", "OMP_NUM_THREADS=" + tc.want, "OPENBLAS_NUM_THREADS=" + tc.want, "AGX_BENCH_THREADS=" + tc.want, "GLIBC_TUNABLES=" + torchMalloc} {
				if !slices.Contains(env, want) {
					t.Errorf("torchEnv lacks %s: %q", want, env)
				}
			}
		})
	}
	mine := "GLIBC_TUNABLES=glibc.malloc.arena_max=1"
	env := torchEnv([]string{mine}, 1)
	if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GLIBC_TUNABLES=") && kv != mine }) {
		t.Errorf("torchEnv overrode the user's GLIBC_TUNABLES: %q", env)
	}
}

// Run times a workload on the agx side alone and reports its figures.
func TestRunAgxOnly(t *testing.T) {
	res, err := Run(context.Background(), Options{
		Filter: regexp.MustCompile(`^custom_function_overhead$`), Rounds: 2, Sample: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Name != "custom_function_overhead" {
		t.Fatalf("got %+v", res)
	}
	r := res[0]
	if r.Agx <= 0 || r.Torch != 0 || r.Ratio != 0 || r.AllocsPerOp <= 0 || (r.FaultsPerOp < 0 && minorFaults() >= 0) {
		t.Errorf("unexpected figures %+v", r)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "custom_function_overhead") || !strings.Contains(buf.String(), "WORKLOAD") {
		t.Errorf("table:\n%s", buf.String())
	}
}

// TestRunGCPerOp: a workload that allocates results of 512 KiB collects
// every few steps, and the collector's CPU time per call is counted, above
// zero and below the samples' CPU time.
func TestRunGCPerOp(t *testing.T) {
	// With more than one P the floor is 64 MiB and two samples may end no
	// cycle.
	prev := tensor.SetHeapFloorMiB(2)
	defer tensor.SetHeapFloorMiB(prev)
	res, err := Run(context.Background(), Options{
		Filter: regexp.MustCompile(`^course_square$`), Rounds: 2, Sample: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.GCPerOp <= 0 || r.GCPerOp > 1.5*r.Agx*float64(runtime.GOMAXPROCS(0)) {
		t.Errorf("collector CPU %g s per call against %g s a call on %d Ps", r.GCPerOp, r.Agx, runtime.GOMAXPROCS(0))
	}
}

// With Gap, agx idles before each sample: two rounds take at least two gaps.
func TestRunAgxOnlyGap(t *testing.T) {
	start := time.Now()
	res, err := Run(context.Background(), Options{
		Filter: regexp.MustCompile(`^custom_function_overhead$`), Rounds: 2, Sample: time.Millisecond, Gap: 30 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 60*time.Millisecond {
		t.Errorf("two rounds with a 30ms gap took %v", el)
	}
	if len(res) != 1 || res[0].Agx <= 0 {
		t.Fatalf("got %+v", res)
	}
}

// Every Go workload has a PyTorch twin with the same name, and vice versa.
func TestTorchScriptHasEveryWorkload(t *testing.T) {
	oracle.Skip(t)
	cmd := exec.Command(oracle.Python, "-c", torchScript)
	cmd.Stdin = strings.NewReader("list\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Names []string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var want []string
	for _, w := range All() {
		want = append(want, w.Name)
	}
	slices.Sort(want)
	if !slices.Equal(got.Names, want) {
		t.Errorf("PyTorch workloads %v\nGo workloads      %v", got.Names, want)
	}
}

// The PyTorch process names the BLAS it runs on, with OpenBLAS's set of
// kernels, which OPENBLAS_CORETYPE chooses.
func TestTorchBLAS(t *testing.T) {
	oracle.Skip(t)
	for _, core := range []string{"Haswell", "Sandybridge"} {
		t.Run(core, func(t *testing.T) {
			t.Setenv("OPENBLAS_CORETYPE", core)
			p, err := startTorch(t.Context(), oracle.Python)
			if err != nil {
				t.Fatal(err)
			}
			defer p.close()
			got, err := p.blas()
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(got, "not OpenBLAS") {
				testenv.Missing(t, "PyTorch does not run on OpenBLAS here (apt-get install libopenblas-dev): %s", got)
			}
			want := core + " kernels (OPENBLAS_CORETYPE=" + core + ")"
			if !strings.HasPrefix(got, "OpenBLAS ") || !strings.HasSuffix(got, want) {
				t.Errorf("blas() = %q, want OpenBLAS ... %s", got, want)
			}
			if _, err := p.time("tiny_ops_overhead", 1); err != nil {
				t.Errorf("after blas: %v", err)
			}
		})
	}
}
