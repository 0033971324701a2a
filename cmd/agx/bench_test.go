package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/bench"
	"github.com/goagx/agx/internal/oracle"
)

// TestMain lets the test binary stand in for agx in child processes
// (benchRepeat's runs): with AGX_TEST_AS_AGX=1 it runs the command line as
// agx would.
func TestMain(m *testing.M) {
	if os.Getenv("AGX_TEST_AS_AGX") == "1" {
		benchAsNotebook(os.Args) // as main does
		os.Exit(agxMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// asAgx makes benchRepeat's runs start this test binary as agx, and records
// their arguments.
func asAgx(t *testing.T) *[][]string {
	var calls [][]string
	old := benchChild
	t.Cleanup(func() { benchChild = old })
	benchChild = func(ctx context.Context, cell string, args []string) (*exec.Cmd, error) {
		if cell != "" {
			t.Errorf("a run of the cell program %s with -in-process", cell)
		}
		calls = append(calls, args)
		cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"bench", "-in-process"}, args...)...)
		cmd.Env = append(os.Environ(), "AGX_TEST_AS_AGX=1")
		return cmd, nil
	}
	return &calls
}

func TestBenchRepeat(t *testing.T) {
	calls := asAgx(t)
	out := filepath.Join(t.TempDir(), "out.json")
	var stdout, stderr strings.Builder
	err := benchCommand(t.Context(), []string{"-in-process", "-repeat", "3", "-no-torch", "-run", "^tiny_ops_overhead$", "-rounds", "1", "-sample", "2ms", "-json", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if len(*calls) != 3 {
		t.Fatalf("%d runs, want 3", len(*calls))
	}
	for i, args := range *calls {
		joined := strings.Join(args, " ")
		for _, want := range []string{"-no-torch=true", "-run=^tiny_ops_overhead$", "-rounds=1", "-sample=2ms", "-json="} {
			if !strings.Contains(joined, want) {
				t.Errorf("run %d: args %q lack %q", i+1, args, want)
			}
		}
		if strings.Contains(joined, "-repeat") || strings.Contains(joined, out) || strings.Contains(joined, "-in-process") {
			t.Errorf("run %d: args %q pass on -repeat, -in-process or the summary's -json", i+1, args)
		}
	}
	for i := 1; i <= 3; i++ {
		if !strings.Contains(stderr.String(), "run "+string(rune('0'+i))+" of 3") {
			t.Errorf("progress lacks run %d of 3:\n%s", i, stderr.String())
		}
	}
	fields := func(s string) [][]string {
		var rows [][]string
		for _, l := range strings.Split(s, "\n") {
			rows = append(rows, strings.Fields(l))
		}
		return rows
	}
	var row []string
	for _, f := range fields(stdout.String()) {
		if len(f) > 0 && f[0] == "tiny_ops_overhead" {
			row = f
		}
	}
	if !strings.Contains(stdout.String(), "Over 3 runs") || len(row) < 2 || row[1] != "3" {
		t.Errorf("summary:\n%s", stdout.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got repeatJSON
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 3 || len(got.Summary) != 1 || got.Summary[0].Runs != 3 || got.Summary[0].Agx <= 0 {
		t.Errorf("JSON: %+v", got)
	}
}

// TestBenchCell runs agx bench as users do, without -in-process: it builds
// the cell program (bench/cell) and times the agx side there, once and with
// -repeat, and the header says so.
func TestBenchCell(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bench/cell with the go command")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"once", []string{"-json", filepath.Join(dir, "once.json")}},
		{"repeat", []string{"-repeat", "2", "-json", filepath.Join(dir, "repeat.json")}},
		{"two workloads", []string{"-run", "^(tiny_ops_overhead|custom_function_overhead)$", "-json", filepath.Join(dir, "two.json")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			args := append([]string{"-no-torch", "-run", "^tiny_ops_overhead$", "-rounds", "1", "-sample", "2ms"}, c.args...) // a later -run wins
			if err := benchCommand(t.Context(), args, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			for _, want := range []string{"building the agx side", "agx side: a program linking agx and agx/nb"} {
				if !strings.Contains(strings.ToLower(stderr.String()), strings.ToLower(want)) {
					t.Errorf("progress lacks %q:\n%s", want, stderr.String())
				}
			}
			if !strings.Contains(stdout.String(), "tiny_ops_overhead") {
				t.Errorf("no row for the workload:\n%s", stdout.String())
			}
			if c.name == "two workloads" {
				// One process each: the header once, both rows.
				if n := strings.Count(stderr.String(), "agx side:"); n != 1 {
					t.Errorf("the header %d times, want once:\n%s", n, stderr.String())
				}
				if !strings.Contains(stdout.String(), "custom_function_overhead") {
					t.Errorf("no row for custom_function_overhead:\n%s", stdout.String())
				}
			}
			if _, err := os.Stat(c.args[len(c.args)-1]); err != nil {
				t.Errorf("-json: %v", err)
			}
		})
	}
}

// TestBenchCellTorch times two workloads against PyTorch: each in its own
// cell process, both against one PyTorch process reached through its
// pipes, so that both rows have a PyTorch time.
func TestBenchCellTorch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bench/cell with the go command")
	}
	oracle.Skip(t)
	// Record the cell processes' arguments.
	var cells [][]string
	old := benchChild
	t.Cleanup(func() { benchChild = old })
	benchChild = func(ctx context.Context, cell string, args []string) (*exec.Cmd, error) {
		if !slices.Contains(args, "-list") {
			cells = append(cells, args)
		}
		return old(ctx, cell, args)
	}
	out := filepath.Join(t.TempDir(), "out.json")
	var stdout, stderr strings.Builder
	args := []string{"-python", oracle.Python, "-run", "^(tiny_ops_overhead|custom_function_overhead)$", "-rounds", "1", "-sample", "2ms", "-json", out}
	if err := benchCommand(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	// One cell per workload, each on the run's PyTorch process, the
	// timing flags passed on, the header from the first only.
	if len(cells) != 2 {
		t.Fatalf("%d cell processes, want 2: %q", len(cells), cells)
	}
	for i, a := range cells {
		for _, want := range []string{"-torch-server", "-rounds=1", "-sample=2ms"} {
			if !slices.Contains(a, want) {
				t.Errorf("cell %d: args %q lack %s", i, a, want)
			}
		}
		if slices.Contains(a, "-no-header") != (i > 0) {
			t.Errorf("cell %d: args %q: -no-header on all but the first", i, a)
		}
	}
	if n := strings.Count(stderr.String(), "PyTorch BLAS:"); n != 1 {
		t.Errorf("PyTorch's header %d times, want once:\n%s", n, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res []bench.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Torch <= 0 || res[1].Torch <= 0 || res[0].Ratio <= 0 {
		t.Fatalf("results without PyTorch times: %+v", res)
	}
	// In the order of bench.All.
	if res[0].Name != "tiny_ops_overhead" || res[1].Name != "custom_function_overhead" {
		t.Errorf("rows %s, %s; want tiny_ops_overhead, custom_function_overhead", res[0].Name, res[1].Name)
	}
}

// TestAgxModuleDir: in a go.work workspace of several modules, the cell
// program is built from the agx module, whichever comes first.
func TestAgxModuleDir(t *testing.T) {
	root, err := agxModuleDir(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var goLine string
	for _, l := range strings.Split(string(gomod), "\n") {
		if strings.HasPrefix(l, "go ") {
			goLine = l
		}
	}
	ws := t.TempDir()
	other := filepath.Join(ws, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n\n"+goLine+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	work := goLine + "\n\nuse (\n\t./other\n\t" + root + "\n)\n"
	if err := os.WriteFile(filepath.Join(ws, "go.work"), []byte(work), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(other)
	got, err := agxModuleDir(t.Context())
	if err != nil || got != root {
		t.Errorf("in a workspace: agxModuleDir = %q, %v; want %q", got, err, root)
	}
}

// TestBenchCellOutsideAgx: outside agx's module agx bench cannot build its
// agx side, and says so and what to do instead, rather than timing agx in
// this command unasked.
func TestBenchCellOutsideAgx(t *testing.T) {
	t.Chdir(t.TempDir())
	var stdout, stderr strings.Builder
	err := benchCommand(t.Context(), []string{"-no-torch", "-run", "^tiny_ops_overhead$", "-rounds", "1"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "-in-process") || !strings.Contains(err.Error(), "no Go module") {
		t.Fatalf("error %v, want one naming -in-process", err)
	}
	if stdout.Len() > 0 {
		t.Errorf("a table without an agx side:\n%s", stdout.String())
	}
}

func TestBenchRepeatErrors(t *testing.T) {
	asAgx(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-repeat", "0"}, "-repeat takes a count"},
		{[]string{"-repeat", "2", "-mem", "5"}, "-mem measures memory"},
		{[]string{"-in-process", "-repeat", "2", "-no-torch", "-run", "^no_such_workload$"}, "no workload matches"},
		{[]string{"-peak", "-repeat", "2"}, "-peak runs on its own"},
		{[]string{"-peak", "-mem", "5"}, "-peak runs on its own"},
	} {
		var stdout, stderr strings.Builder
		err := benchCommand(t.Context(), c.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.args, err, c.want)
		}
	}
}

// TestBenchGEMMISAUnknown: a value of AGX_GEMM_ISA that the GEMM does not
// know (a typo, or "avx512", which cannot add an ISA the CPU lacks) stops
// agx bench with an error naming the accepted values, rather than measuring
// the default kernels under a name that says otherwise.
func TestBenchGEMMISAUnknown(t *testing.T) {
	asAgx(t)
	for _, isa := range []string{"AVX2", "avx-2", "avx512", "none"} {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("AGX_GEMM_ISA", isa)
			for _, args := range [][]string{{"-peak"}, {"-no-torch", "-run", "^no_such_workload$"}} {
				var stdout, stderr strings.Builder
				err := benchCommand(t.Context(), args, &stdout, &stderr)
				want := fmt.Sprintf("AGX_GEMM_ISA=%q", isa)
				if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `"avx2" or "go"`) {
					t.Errorf("%q: error %v, want one saying %s and the accepted values", args, err, want)
				}
			}
		})
	}
}

func TestNotebookGODEBUG(t *testing.T) {
	for _, c := range []struct {
		in, want string
		changed  bool
	}{
		{"", "madvdontneed=0,memprofilerate=0", true},
		{"gctrace=1", "gctrace=1,madvdontneed=0,memprofilerate=0", true},
		{"madvdontneed=1", "madvdontneed=1,memprofilerate=0", true},
		{"memprofilerate=1", "memprofilerate=1,madvdontneed=0", true},
		{"madvdontneed=1,memprofilerate=524288", "madvdontneed=1,memprofilerate=524288", false},
		{"gctrace=1,memprofilerate=0,madvdontneed=0", "gctrace=1,memprofilerate=0,madvdontneed=0", false},
		{"xmadvdontneed=1", "xmadvdontneed=1,madvdontneed=0,memprofilerate=0", true},
		{"madvdontneed=1,xmemprofilerate=1", "madvdontneed=1,xmemprofilerate=1,memprofilerate=0", true},
	} {
		got, changed := notebookGODEBUG(c.in)
		if got != c.want || changed != c.changed {
			t.Errorf("notebookGODEBUG(%q) = %q, %v; want %q, %v", c.in, got, changed, c.want, c.changed)
		}
	}
}

func TestWithEnv(t *testing.T) {
	for _, c := range []struct {
		in, want []string
	}{
		{nil, []string{"GODEBUG=x=1"}},
		{[]string{"A=1", "B=2"}, []string{"A=1", "B=2", "GODEBUG=x=1"}},
		{[]string{"GODEBUG=gctrace=1", "A=1", "GODEBUG=y=2"}, []string{"A=1", "GODEBUG=x=1"}},
		{[]string{"GODEBUGX=1", "XGODEBUG=2"}, []string{"GODEBUGX=1", "XGODEBUG=2", "GODEBUG=x=1"}},
	} {
		if got := withEnv(c.in, "GODEBUG", "x=1"); !slices.Equal(got, c.want) {
			t.Errorf("withEnv(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestBenchGODEBUGExec runs agx bench (this test binary as agx, through
// benchAsNotebook as main calls it) under GODEBUG values that lack one or
// both notebook settings: it must exec itself once with them added and run,
// not exec itself again and again.
func TestBenchGODEBUGExec(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"madvdontneed=1", "madvdontneed=1,memprofilerate=0"},
		{"gctrace=0", "gctrace=0,madvdontneed=0,memprofilerate=0"},
		{"madvdontneed=1,memprofilerate=524288", "madvdontneed=1,memprofilerate=524288"},
	} {
		t.Run(c.in, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "bench", "-no-torch", "-run", "^custom_function_overhead$", "-rounds", "1", "-sample", "5ms")
			cmd.Env = append(withEnv(os.Environ(), "GODEBUG", c.in), "AGX_TEST_AS_AGX=1")
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("agx bench under GODEBUG=%s did not finish in 2 minutes (an exec loop?)\n%s", c.in, out)
			}
			if err != nil {
				t.Fatalf("agx bench under GODEBUG=%s: %v\n%s", c.in, err, out)
			}
			if want := "GODEBUG: " + c.want + "\n"; !strings.Contains(string(out), want) {
				t.Errorf("agx bench under GODEBUG=%s: no %q in its output:\n%s", c.in, want, out)
			}
		})
	}
}
