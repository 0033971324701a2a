package autograde

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/nbtest"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/sandbox"
)

// cellOutput returns the text of the outputs of the executed notebook's cell
// whose source starts with prefix.
func cellOutput(t *testing.T, dir, student, prefix string) string {
	t.Helper()
	nb, err := notebook.Read(filepath.Join(dir, gradebook.ExecutedDir, student+".ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range nb.Cells {
		if strings.HasPrefix(c.Source, prefix) {
			var b strings.Builder
			for _, o := range c.Outputs {
				b.WriteString(o.Text)
			}
			return b.String()
		}
	}
	t.Fatalf("%s: no cell %q", student, prefix)
	return ""
}

// processWithArgs reports whether a process runs with exactly these arguments.
func processWithArgs(args ...string) bool {
	want := []byte(strings.Join(args, "\x00") + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range dirs {
		if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, want) {
			return true
		}
	}
	return false
}

// TestPrivateTmpAndStoppedRun grades, one at a time in one slot, a
// submission that leaves files in /tmp, /var/tmp and /dev/shm, one that
// looks for them, and one whose background program holds the cell's stdout
// and ignores the interrupt.
// The files are seen only by the submission that wrote them and are gone
// afterwards; the hung run stops at the time limits, is flagged
// run_incomplete, and its background program is killed.
func TestPrivateTmpAndStoppedRun(t *testing.T) {
	needKernel(t)
	const source = "testdata/double.ipynb"
	src := nbtest.ReadNB(t, source)
	in, dir := t.TempDir(), t.TempDir()
	name := fmt.Sprintf("agx-leak-%s", nbgrader.NewNonce()[:12])
	var files []string
	for _, d := range sandbox.PrivateTmpDirs {
		files = append(files, filepath.Join(d, name))
	}
	list := fmt.Sprintf("%q", files)
	list = "[]string{" + strings.ReplaceAll(strings.Trim(list, "[]"), `" "`, `", "`) + "}"
	writer := nbtest.Solved(t, src)
	nbtest.InsertAfter(t, writer, "double-code", "%%\n// check: read back\nfor _, f := range "+list+" {\n\tb, err := os.ReadFile(f)\n\tfmt.Printf(\"read back %s: %q %v\\n\", f, b, err)\n}")
	nbtest.InsertAfter(t, writer, "double-code", "%%\n// write\nfor _, f := range "+list+" {\n\tfmt.Println(f, os.WriteFile(f, []byte(\"left behind\"), 0o644))\n}")
	reader := nbtest.Solved(t, src)
	nbtest.InsertAfter(t, reader, "double-code", "%%\n// check: look\nfor _, f := range "+list+" {\n\tb, err := os.ReadFile(f)\n\tfmt.Printf(\"found %s: %q %v\\n\", f, b, err)\n}")
	background := nbtest.Solved(t, src)
	nbtest.InsertAfter(t, background, "double-code", "%%\n// background\ncmd := exec.Command(\"sh\", \"-c\", \"trap '' INT TERM; exec sleep 4242\")\ncmd.Stdout = os.Stdout\nfmt.Println(\"start:\", cmd.Start())")
	subs := []Submission{writeNB(t, in, "writer", writer), writeNB(t, in, "reader", reader), writeNB(t, in, "background", background)}

	opt := testOptions(source, dir)
	opt.Jobs = 1
	opt.CellTimeout = 20 * time.Second
	opt.Log = testWriter{t}
	start := time.Now()
	sum, err := Grade(context.Background(), opt, subs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("graded in %v; isolation %q", time.Since(start), sum.Isolation)
	by := map[string]*gradebook.Entry{}
	for _, e := range sum.Entries {
		by[e.Student] = e
	}

	// The hung run: stopped, flagged, its program killed.
	if e := by["background"]; e == nil {
		t.Error("background: no entry")
	} else {
		var kinds []string
		for _, f := range e.Flags {
			kinds = append(kinds, f.Kind)
		}
		if !slices.Contains(kinds, gradebook.FlagIncomplete) || e.Run.Error == "" {
			t.Errorf("background: flags %v, run error %q; want run_incomplete and the reason", kinds, e.Run.Error)
		}
		if e.Run.Seconds > 4*opt.CellTimeout.Seconds()+30 {
			t.Errorf("background: the run took %.0fs", e.Run.Seconds)
		}
	}
	if processWithArgs("sleep", "4242") {
		t.Error("the background program still runs after grading")
	}

	if os.Geteuid() != 0 || !slices.ContainsFunc(sum.Isolation, func(s string) bool { return strings.HasPrefix(s, "private /tmp") }) {
		t.Skipf("no private temporary directories here (%q)", sum.Isolation)
	}
	out := cellOutput(t, dir, "writer", "%%\n// check")
	for _, f := range files {
		if !strings.Contains(out, fmt.Sprintf("read back %s: \"left behind\" <nil>", f)) {
			t.Errorf("writer: %s was not kept between its cells:\n%s", f, out)
		}
		if _, err := os.Stat(f); err == nil {
			os.Remove(f)
			t.Errorf("%s is left on the machine", f)
		}
	}
	if out := cellOutput(t, dir, "reader", "%%\n// check"); strings.Contains(out, "left behind") || strings.Count(out, "no such file") != len(files) {
		t.Errorf("reader: another submission's files are visible:\n%s", out)
	}
}
