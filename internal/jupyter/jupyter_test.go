package jupyter

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/notebook"
)

// fakePython writes a stand-in for the Python interpreter that ignores the
// driver script, prints events and exits with status code.
func fakePython(t *testing.T, events string, code int) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "events"), []byte(events), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncat '" + filepath.Join(dir, "events") + "'\necho 'driver log line' >&2\nexit " + string(rune('0'+code)) + "\n"
	path := filepath.Join(dir, "python")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func testNotebook(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nb.ipynb")
	one := 1
	nb := &notebook.Notebook{Nbformat: 4, NbformatMinor: 5, Cells: []*notebook.Cell{
		{CellType: notebook.Markdown, Source: "# title"},
		{CellType: notebook.Code, Source: "%%\nfmt.Println(1)", ExecutionCount: &one,
			Outputs: []*notebook.Output{{OutputType: notebook.Stream, Name: "stdout", Text: "stale\n"}}},
		{CellType: notebook.Code, Source: "%%\nfmt.Println(2)"},
	}}
	if err := notebook.Write(path, nb); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	evStarted = `{"event": "started", "kernel": "k"}` + "\n"
	evCell1   = `{"event": "cell_start", "index": 1}` + "\n" +
		`{"event": "cell_done", "index": 1, "seconds": 0.5, "execution_count": 7, "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\n"}], "timed_out": false}` + "\n"
	evCell2   = `{"event": "cell_done", "index": 2, "seconds": 0.25, "execution_count": 8, "outputs": [], "timed_out": false}` + "\n"
	evFinish  = `{"event": "finished"}` + "\n"
	evSkipped = `{"event": "skipped", "index": 2, "reason": "the notebook time limit (1s) was reached", "notebook_timeout": true}` + "\n"
)

func TestExecuteEvents(t *testing.T) {
	for _, tc := range []struct {
		name    string
		events  string
		code    int
		wantErr string // "" for none
		ran     []bool
		skipped string // cell 2's Skipped
	}{
		{"all cells", evStarted + evCell1 + evCell2 + evFinish, 0, "", []bool{true, true}, ""},
		{"notebook timeout", evStarted + evCell1 + evSkipped + evFinish, 0, "notebook time limit", []bool{true, false}, "the notebook time limit (1s) was reached"},
		{"fatal", `{"event": "fatal", "message": "no Jupyter kernel named 'x'"}` + "\n", 1, "no Jupyter kernel named 'x'", []bool{false, false}, "not reached"},
		{"driver crash", evStarted + evCell1, 1, "driver log line", []bool{true, false}, "not reached"},
		{"stopped on a cell timeout", evStarted + evCell1 + `{"event": "skipped", "index": 2, "reason": "cell 1 did not stop"}` + "\n" +
			`{"event": "stopped", "reason": "cell 1 did not stop"}` + "\n" + evFinish, 0, "stopped early: cell 1 did not stop", []bool{true, false}, "cell 1 did not stop"},
		{"garbage line", evStarted + "Traceback (most recent call last):\n" + evCell1 + evCell2 + evFinish, 0, "unreadable line", []bool{true, true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			res, err := Execute(context.Background(), testNotebook(t), Options{
				Python: fakePython(t, tc.events, tc.code),
				Kernel: "k",
				OnEvent: func(ev Event) {
					if (ev.Event == CellDone || ev.Event == CellStart) && ev.Cell == nil {
						t.Errorf("%s event without its cell", ev.Event)
					}
					seen = append(seen, ev.Event)
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.wantErr == "" && res.Err != nil:
				t.Errorf("Err = %v", res.Err)
			case tc.wantErr != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tc.wantErr)):
				t.Errorf("Err = %v, want it to contain %q", res.Err, tc.wantErr)
			}
			if len(res.Cells) != 2 {
				t.Fatalf("%d cell runs, want 2", len(res.Cells))
			}
			for i, run := range res.Cells {
				if run.Ran != tc.ran[i] {
					t.Errorf("cell run %d: Ran %v, want %v", i, run.Ran, tc.ran[i])
				}
			}
			if res.Cells[1].Skipped != tc.skipped {
				t.Errorf("cell 2 Skipped %q, want %q", res.Cells[1].Skipped, tc.skipped)
			}
			c := res.Notebook.Cells[1]
			if tc.ran[0] {
				if c.TextOutput() != "1\n" || c.ExecutionCount == nil || *c.ExecutionCount != 7 || res.Cells[0].Seconds != 0.5 {
					t.Errorf("cell 1 after the run: output %q count %v seconds %v", c.TextOutput(), c.ExecutionCount, res.Cells[0].Seconds)
				}
			} else if len(c.Outputs) != 0 || c.ExecutionCount != nil {
				t.Errorf("cell 1 kept stale outputs: %+v", c.Outputs)
			}
			if len(seen) == 0 && tc.events != "" {
				t.Errorf("no events seen")
			}
		})
	}
}

// The kernel's language_info of the started event lands in the notebook's
// metadata (none when the driver could not get it).
func TestExecuteLanguageInfo(t *testing.T) {
	for _, tc := range []struct {
		name, started, want string
	}{
		{"reported", `{"event": "started", "kernel": "k", "language_info": {"name": "go", "version": "go1.26.8"}}` + "\n", `{"name": "go", "version": "go1.26.8"}`},
		{"null", `{"event": "started", "kernel": "k", "language_info": null}` + "\n", ""},
		{"absent", evStarted, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Execute(context.Background(), testNotebook(t), Options{
				Python: fakePython(t, tc.started+evCell1+evCell2+evFinish, 0), Kernel: "k"})
			if err != nil {
				t.Fatal(err)
			}
			if got := string(res.Notebook.Metadata["language_info"]); got != tc.want {
				t.Errorf("metadata.language_info = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExecuteUnreadableNotebook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.ipynb")
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Execute(context.Background(), path, Options{Python: "/bin/false"}); err == nil {
		t.Error("Execute accepted a broken notebook")
	}
}

func TestTailBuffer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"under the limit", []string{"ab", "c"}, "abc"},
		{"keeps the tail", []string{"abcd", "efgh"}, "defgh"},
		{"one big write", []string{"0123456789"}, "56789"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &tailBuffer{max: 5}
			for _, w := range tc.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := b.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestExecuteWrapEnv: the driver runs under the Wrap prefix with Env, and
// the truncation and timeout flags of its events reach the CellRuns.
func TestExecuteWrapEnv(t *testing.T) {
	events := evStarted + evCell1 +
		`{"event": "cell_done", "index": 2, "seconds": 3, "outputs": [], "timed_out": true, "output_truncated": true, "output_incomplete": true}` + "\n" + evFinish
	dir := t.TempDir()
	marker := filepath.Join(dir, "wrapped")
	wrap := []string{"sh", "-c", `touch "$MARK" && exec "$@"`, "sh"}
	res, err := Execute(context.Background(), testNotebook(t), Options{
		Python: fakePython(t, events, 0), Kernel: "k", Wrap: wrap,
		Env: []string{"MARK=" + marker, "PATH=" + os.Getenv("PATH")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the driver did not run under the wrapper with the environment: %v", err)
	}
	if c := res.Cells[1]; !c.TimedOut || !c.OutputTruncated || !c.OutputIncomplete || !c.Ran {
		t.Errorf("cell 2: %+v, want ran, timed out, truncated, incomplete", c)
	}
}

// TestDriverSecretFile runs the driver's secret helpers with Debian's
// Python: the file is made new (never written through a link the kernel's
// user planted), with mode 0400, and removed.
func TestDriverSecretFile(t *testing.T) {
	if _, err := os.Stat(DefaultPython); err != nil {
		t.Skip("no " + DefaultPython)
	}
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, path, victim string)
	}{
		{"fresh", func(t *testing.T, path, victim string) {}},
		{"stale file", func(t *testing.T, path, victim string) {
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"planted link", func(t *testing.T, path, victim string) {
			if err := os.Symlink(victim, path); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, victim := filepath.Join(dir, "secret"), filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.prepare(t, path, victim)
			script := strings.Replace(driverScript, `if __name__ == "__main__":`, "if False:", 1) + "\nimport stat\nplace_secret(sys.argv[1], 'cell s3cret', None, None)\n" +
				"st = os.lstat(sys.argv[1])\nprint(oct(stat.S_IMODE(st.st_mode)), stat.S_ISREG(st.st_mode), open(sys.argv[1]).read())\n" +
				"remove_secret(sys.argv[1])\nprint(os.path.lexists(sys.argv[1]))\n"
			out, err := exec.Command(DefaultPython, "-c", script, path).CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got, want := string(out), "0o400 True cell s3cret\nFalse\n"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			if b, _ := os.ReadFile(victim); string(b) != "keep" {
				t.Errorf("the file a link pointed to was written: %q", b)
			}
		})
	}
}
