package autograde

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbtest"
)

// chattyDouble is a correct Double that prints ~2.5 MB on every call, so a
// test cell's result comes after a flood of output.
const chattyDouble = "func Double(x float64) float64 {\n" +
	"\tline := strings.Repeat(\"chatter \", 12)\n" +
	"\tfor i := 0; i < 25000; i++ {\n\t\tfmt.Println(i, line)\n\t}\n" +
	"\treturn 2 * x\n}\n"

// cpuLoad starts n busy-looping processes and returns a function that stops
// them (by pid).
func cpuLoad(t *testing.T, n int) (stop func()) {
	t.Helper()
	var procs []*os.Process
	for range n {
		cmd := exec.Command("/bin/sh", "-c", "while :; do :; done")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd.Process)
	}
	return func() {
		for _, p := range procs {
			p.Kill()
			p.Wait()
		}
	}
}

// stableGradebook returns the gradebook's entries with the timings zeroed,
// re-encoded, and the class table: what must not depend on the machine's load.
func stableGradebook(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := gradebook.ReadEntries(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		e.Run.Seconds = 0
		for _, c := range e.Cells {
			c.Seconds = 0
		}
		b, err := json.MarshalIndent(e, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		out[e.Student+".json"] = b
	}
	b, err := os.ReadFile(filepath.Join(dir, gradebook.ClassFile))
	if err != nil {
		t.Fatal(err)
	}
	out[gradebook.ClassFile] = b
	return out
}

// TestDeterministicUnderLoad grades a small class (a correct submission, a
// correct one that prints a lot, a blank one) on an idle machine and then
// twice with busy loops on every core: the three gradebooks are the same,
// byte for byte, timings aside, and every entry is graded with the expected
// score.
func TestDeterministicUnderLoad(t *testing.T) {
	needKernel(t)
	const source = "testdata/double.ipynb"
	src := nbtest.ReadNB(t, source)
	in := t.TempDir()
	chatty := nbtest.Solved(t, src)
	nbtest.CellByID(t, chatty, "double-code").Source = chattyDouble
	nbtest.InsertAfter(t, chatty, "double-code", "%%\nfmt.Println(Double(1))")
	subs := []Submission{
		writeNB(t, in, "honest", nbtest.Solved(t, src)),
		writeNB(t, in, "chatty", chatty),
		writeNB(t, in, "blank", nbtest.Release(t, src)),
	}
	scores := map[string]float64{"honest": 2, "chatty": 2, "blank": 0}

	var books []map[string][]byte
	for _, loaded := range []bool{false, true, true} {
		dir := t.TempDir()
		opt := testOptions(source, dir)
		opt.Jobs = len(subs)
		opt.CellTimeout = 2 * time.Minute
		opt.Log = testWriter{t}
		stop := func() {}
		if loaded {
			stop = cpuLoad(t, 2*runtime.NumCPU())
		}
		start := time.Now()
		sum, err := Grade(context.Background(), opt, subs)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("loaded=%v: graded in %v", loaded, time.Since(start))
		for _, e := range sum.Entries {
			if e.Status != gradebook.Graded || e.Score != scores[e.Student] {
				var cells []string
				for _, c := range e.Cells {
					cells = append(cells, c.GradeID+" "+c.Status)
				}
				t.Errorf("loaded=%v: %s: %s %v/%v (%s) %q", loaded, e.Student, e.Status, e.Score, e.MaxScore, e.UngradableReason, cells)
			}
		}
		books = append(books, stableGradebook(t, dir))
	}
	for run, book := range books[1:] {
		for name, idle := range books[0] {
			if loaded := book[name]; !bytes.Equal(idle, loaded) {
				t.Errorf("%s differs in loaded run %d:\nidle:\n%s\nloaded:\n%s", name, run+1, idle, loaded)
			}
		}
		if len(books[0]) != len(book) {
			t.Errorf("the idle gradebook has %d files, loaded run %d has %d", len(books[0]), run+1, len(book))
		}
	}
}
