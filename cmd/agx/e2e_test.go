package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/testenv"
)

// testKernel is the kernelspec the end-to-end tests use: $AGX_TEST_KERNEL, else
// the one docker/scripts/install-kernel.sh installs.
func testKernel() string {
	if k := os.Getenv("AGX_TEST_KERNEL"); k != "" {
		return k
	}
	return DefaultKernel
}

// needJupyter skips (under make test: fails) the test when Jupyter or the Go kernel is not installed.
func needJupyter(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: runs Jupyter (-short)")
	}
	if _, err := os.Stat("/usr/bin/jupyter"); err != nil {
		testenv.Missing(t, "skipping: /usr/bin/jupyter is missing; install Jupyter and the kernel with docker/scripts/install-all.sh (make deps)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := jupyter.CheckKernel(ctx, jupyter.DefaultPython, testKernel()); err != nil {
		testenv.Missing(t, "skipping: %v; install the kernel with docker/scripts/install-all.sh (make deps) or set AGX_TEST_KERNEL", err)
	}
}

// summaryRows parses agx run's summary table: notebook -> [cells failures seconds result].
func summaryRows(stdout string) map[string][]string {
	rows := map[string][]string{}
	for _, line := range strings.Split(stdout, "\n")[1:] {
		if f := strings.Fields(line); len(f) == 5 {
			rows[f[0]] = f[1:]
		}
	}
	return rows
}

// TestRunEndToEnd runs the notebooks in testdata through the real kernel,
// one at a time and three at once.
func TestRunEndToEnd(t *testing.T) {
	needJupyter(t)
	for _, jobs := range []string{"1", "3"} {
		t.Run("j="+jobs, func(t *testing.T) { testRunEndToEnd(t, jobs) })
	}
}

func testRunEndToEnd(t *testing.T, jobs string) {
	out := t.TempDir()
	names := []string{"pass", "panic", "raises", "raises_missing"}
	args := []string{"run", "--kernel", testKernel(), "-o", out, "-j", jobs}
	for _, n := range names {
		args = append(args, filepath.Join("testdata", n+".ipynb"))
	}
	var stdout, stderr bytes.Buffer
	code := agxMain(context.Background(), args, &stdout, &stderr)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if code != 1 {
		t.Errorf("exit status %d, want 1 (two notebooks fail)", code)
	}
	rows := summaryRows(stdout.String())
	var order []string
	for line := range strings.Lines(stdout.String()) {
		if f := strings.Fields(line); len(f) == 5 && strings.HasPrefix(f[0], "testdata/") {
			order = append(order, strings.TrimSuffix(filepath.Base(f[0]), ".ipynb"))
		}
	}
	if !slices.Equal(order, names) {
		t.Errorf("summary rows %q, want the command line's order %q", order, names)
	}
	// Each notebook's report is one block: from its "== " line to the next
	// notebook's, only its own lines.
	var current string
	for line := range strings.Lines(stderr.String()) {
		if name, ok := strings.CutPrefix(line, "== "); ok {
			current = strings.Fields(name)[0]
			continue
		}
		if path, ok := strings.CutPrefix(line, "FAIL "); ok && strings.TrimSpace(path) != current {
			t.Errorf("FAIL %s inside the report of %s", strings.TrimSpace(path), current)
		}
		if path, ok := strings.CutPrefix(line, "  wrote "); ok && filepath.Base(strings.TrimSpace(path)) != filepath.Base(current) {
			t.Errorf("wrote %s inside the report of %s", strings.TrimSpace(path), current)
		}
	}

	for _, tc := range []struct {
		name     string
		cells    string
		failures string
		result   string
		messages []string // in agx run's stderr
	}{
		{"pass", "6", "0", "ok", nil},
		{"panic", "3", "2", "FAIL", []string{
			`cell 2 (panic("unexpected boom")): unexpected error: panic: unexpected boom`,
			"cell 3 (fmt.Println(1.5, 2)): number 2: got 2, want 3",
		}},
		{"raises", "3", "0", "ok", nil},
		{"raises_missing", "1", "1", "FAIL", []string{
			`cell 1 (fmt.Println("no error here")): expected an error (the cell is tagged raises-exception) but it ran without one`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("testdata", tc.name+".ipynb")
			row := rows[path]
			if len(row) != 4 || row[0] != tc.cells || row[1] != tc.failures || row[3] != tc.result {
				t.Errorf("summary row %q, want cells %s failures %s result %s", row, tc.cells, tc.failures, tc.result)
			}
			for _, m := range tc.messages {
				if !strings.Contains(stderr.String(), m) {
					t.Errorf("stderr lacks %q", m)
				}
			}
			executed, err := notebook.Read(filepath.Join(out, tc.name+".ipynb"))
			if err != nil {
				t.Fatalf("executed copy: %v", err)
			}
			orig, err := notebook.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(executed.Cells) != len(orig.Cells) {
				t.Fatalf("executed copy has %d cells, want %d", len(executed.Cells), len(orig.Cells))
			}
			for i, c := range executed.Cells {
				if c.CellType == notebook.Code && c.ExecutionCount == nil && strings.TrimSpace(c.Source) != "" {
					t.Errorf("cell %d has no execution count in the executed copy", i)
				}
				if string(c.Metadata["agx"]) != string(orig.Cells[i].Metadata["agx"]) {
					t.Errorf("cell %d metadata changed", i)
				}
			}
		})
	}
	t.Run("outputs kept", func(t *testing.T) {
		nb, err := notebook.Read(filepath.Join(out, "pass.ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		if got := nb.Cells[1].TextOutput(); got != "hello agx\nx = [4 6]\n" {
			t.Errorf("cell 1 output %q", got)
		}
	})
}

// TestKernelShutsDown checks that the kernel is shut down, not killed, at
// the end of a run: GoNB then removes its working directory (gonb_*, with
// the cell's program, about 8 MB) itself, which a killed kernel leaves.
// jupyter.Execute runs the notebook with the test's directory as TMPDIR,
// without agx run's own temporary directory around it; a cell prints
// GoNB's directory, to show that it lay there.
func TestKernelShutsDown(t *testing.T) {
	needJupyter(t)
	tmp := t.TempDir()
	path := filepath.Join(t.TempDir(), "tmpdir.ipynb")
	writeNotebook(t, path, "import \"os\"\n\n%%\nfmt.Println(os.Getenv(\"GONB_TMP_DIR\"))")
	res, err := jupyter.Execute(context.Background(), path, jupyter.Options{
		Kernel: testKernel(), Timeout: 2 * time.Minute, Env: append(os.Environ(), "TMPDIR="+tmp)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	work := strings.TrimSpace(res.Notebook.Cells[0].TextOutput())
	if filepath.Dir(work) != tmp || !strings.HasPrefix(filepath.Base(work), "gonb_") {
		t.Fatalf("the kernel's working directory was %q, not a gonb_* directory in $TMPDIR (%s)", work, tmp)
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("the kernel left its working directory %s (stat: %v)", work, err)
	}
}

// TestRunLeavesNoKernelFiles checks that agx run leaves nothing in
// $TMPDIR: the kernel's TMPDIR is a directory of the run's own, removed
// with whatever is in it, as a killed kernel's files would be. A cell
// prints GoNB's directory, to show that it lay in the test's $TMPDIR, and
// leaves a file of its own in os.TempDir(). A second run times out in a
// cell that leaves a file and then sleeps, so that the kernel is
// interrupted and the run stops early. A third runs with a relative
// $TMPDIR, which the kernel, started in the notebook's directory, must
// still find.
func TestRunLeavesNoKernelFiles(t *testing.T) {
	needJupyter(t)
	tmp, dir, out := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	path := filepath.Join(dir, "tmpdir.ipynb")
	leave := "f, _ := os.CreateTemp(\"\", \"cell-leftover-\")\nf.Close()\nfmt.Println(f.Name())"
	writeNotebook(t, path, "import \"os\"\n\n%%\nfmt.Println(os.Getenv(\"GONB_TMP_DIR\"))\n"+leave)
	var stdout, stderr bytes.Buffer
	if code := agxMain(context.Background(), []string{"run", "--kernel", testKernel(), "-o", out, path}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	nb, err := notebook.Read(filepath.Join(out, "tmpdir.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(nb.Cells[0].TextOutput())
	if len(lines) != 2 {
		t.Fatalf("cell output %q, want two paths", nb.Cells[0].TextOutput())
	}
	work, left := lines[0], lines[1]
	if !strings.HasPrefix(work, tmp+string(filepath.Separator)) || !strings.HasPrefix(filepath.Base(work), "gonb_") {
		t.Fatalf("the kernel's working directory was %q, not a gonb_* directory in $TMPDIR (%s)", work, tmp)
	}
	if !strings.HasPrefix(left, tmp+string(filepath.Separator)) {
		t.Fatalf("the cell's temporary file %q is not in $TMPDIR (%s)", left, tmp)
	}
	noneLeft := func(tmp string) {
		t.Helper()
		ents, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			t.Errorf("the run left %s in $TMPDIR", e.Name())
		}
	}
	noneLeft(tmp)

	slow := filepath.Join(dir, "slow.ipynb")
	writeNotebook(t, slow, "import \"os\"\n\n%%\n"+leave+"\ntime.Sleep(time.Minute)")
	stdout.Reset()
	stderr.Reset()
	if code := agxMain(context.Background(), []string{"run", "--kernel", testKernel(), "--cell-timeout", "2s", "-o", out, slow}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit status %d, want 1\nstderr:\n%s", code, stderr.String())
	}
	noneLeft(tmp)

	base := t.TempDir()
	if err := os.Mkdir(filepath.Join(base, "rel"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(base)
	t.Setenv("TMPDIR", "rel")
	stdout.Reset()
	stderr.Reset()
	if code := agxMain(context.Background(), []string{"run", "--kernel", testKernel(), "-o", out, path}, &stdout, &stderr); code != 0 {
		t.Fatalf("with TMPDIR=rel: exit status %d\nstderr:\n%s", code, stderr.String())
	}
	noneLeft(filepath.Join(base, "rel"))
}

// TestRemoveRunTemp checks that a run's temporary directory goes with
// directories a cell made read-only or unreadable in it. (Run as root, as
// make test is, the first removal already succeeds; the fallback that makes
// them writable is for other users.)
func TestRemoveRunTemp(t *testing.T) {
	tmp := filepath.Join(t.TempDir(), "agx-run-1")
	for _, d := range []string{"ro/sub", "none/sub"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, d, "f"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for d, mode := range map[string]os.FileMode{"ro/sub": 0o500, "ro": 0o500, "none": 0} {
		if err := os.Chmod(filepath.Join(tmp, d), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := removeRunTemp(tmp); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tmp); !os.IsNotExist(err) {
		t.Fatalf("%s is still there (%v)", tmp, err)
	}
}

// TestRunTimeouts checks the per-cell and per-notebook time limits.
func TestRunTimeouts(t *testing.T) {
	needJupyter(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "slow.ipynb")
	writeNotebook(t, path,
		"%%\ntime.Sleep(2 * time.Second)\nfmt.Println(\"slept\")",
		"%%\nfmt.Println(\"never runs\")",
	)
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string
	}{
		{"cell", []string{"--cell-timeout", "1s"}, []string{
			"cell 1 (time.Sleep(2 * time.Second)): timed out after 1s (the cell time limit)",
			"[2/2] skipped: an earlier cell timed out",
		}},
		{"notebook", []string{"--timeout", "1s"}, []string{
			"run failed: the notebook time limit (1s) was reached",
			"[2/2] skipped: the notebook time limit (1s) was reached",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"run", "--kernel", testKernel()}, tc.flags...)
			code := agxMain(context.Background(), append(args, path), &stdout, &stderr)
			t.Logf("stderr:\n%s", stderr.String())
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			for _, m := range tc.want {
				if !strings.Contains(stderr.String(), m) {
					t.Errorf("stderr lacks %q", m)
				}
			}
			if _, err := notebook.Read(filepath.Join(dir, "slow.executed.ipynb")); err != nil {
				t.Errorf("executed copy: %v", err)
			}
		})
	}
}

func TestRunUnknownKernel(t *testing.T) {
	needJupyter(t)
	var stdout, stderr bytes.Buffer
	code := agxMain(context.Background(), []string{"run", "--kernel", "agx-no-such-kernel", "testdata/pass.ipynb"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "no Jupyter kernel named 'agx-no-such-kernel'") {
		t.Errorf("exit status %d, stderr:\n%s", code, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("no summary expected when the kernel is missing, got:\n%s", stdout.String())
	}
}
