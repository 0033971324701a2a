package autograde

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbtest"
	"github.com/goagx/agx/internal/testenv"
)

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// reapOrphans makes the test process the reaper of every orphan below it
// for the rest of the test: a process that a graded submission leaves
// running, however it detached itself, stays below the test process, where
// leftovers finds it.
func reapOrphans(t *testing.T) {
	t.Helper()
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0); e != 0 {
		t.Fatalf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	t.Cleanup(func() {
		for _, pid := range leftovers() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0, 0, 0, 0)
	})
}

// leftovers returns the live processes below the test process (zombies are
// reaped), found by their parent links in /proc: by process, not by name.
func leftovers() []int {
	for {
		var ws syscall.WaitStatus
		if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
			break
		}
	}
	children := map[int][]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		ppid, _ := strconv.Atoi(f[1])
		if f[0] != "Z" {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	todo := []int{os.Getpid()}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		out = append(out, children[p]...)
		todo = append(todo, children[p]...)
	}
	return out
}

// detachedLoop is a cell that starts a program in a session of its own,
// which outlives the cell and would outlive the run if nothing killed it.
const detachedLoop = "%%\n// detach\ncmd := exec.Command(\"sh\", \"-c\", \"trap '' INT TERM HUP; while :; do sleep 1; done\")\n" +
	"cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}\nfmt.Println(\"start:\", cmd.Start())"

// doubleAutoPoints is what a correct answer to testdata/double.ipynb gets
// automatically (its explanation cell is graded by hand).
const doubleAutoPoints = 2

// TestFailClosed grades, as root, where one measure cannot be set up: the
// temporary directory lies in a directory that the slot users may not
// enter, so the kernel could not run as one. By default nobody is graded
// and the error names the measure, why and the fix; with
// --isolation=best-effort the class is graded and every entry, grades.csv
// and the feedback say what was missing. In both no process started for a
// submission is left afterwards.
func TestFailClosed(t *testing.T) {
	needKernel(t)
	if os.Geteuid() != 0 {
		testenv.Missing(t, "needs root: the slot users are made only when grading as root")
	}
	const source = "testdata/double.ipynb"
	src := nbtest.ReadNB(t, source)
	in := t.TempDir()
	closed := t.TempDir()
	if err := os.Chmod(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(closed, "tmp")
	if err := os.Mkdir(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	detached := nbtest.Solved(t, src)
	nbtest.InsertAfter(t, detached, "double-code", detachedLoop)
	subs := []Submission{writeNB(t, in, "solved", nbtest.Solved(t, src)), writeNB(t, in, "detached", detached)}
	reapOrphans(t)

	t.Setenv("TMPDIR", tmp)
	book := filepath.Join(in, "book")
	opt := testOptions(source, book)
	opt.Jobs = 1
	opt.Isolation = IsolationStrict
	_, err := Grade(context.Background(), opt, subs)
	var iso *IsolationError
	if !errors.As(err, &iso) {
		t.Fatalf("strict: Grade returned %v; want an *IsolationError", err)
	}
	for _, w := range []string{"nobody was graded", "not as a slot user", "temporary directory", "fix:", "--isolation=best-effort"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("strict: the error lacks %q:\n%v", w, err)
		}
	}
	if ents, _ := gradebook.ReadEntries(book); len(ents) != 0 {
		t.Errorf("strict: %d gradebook entries written; want none", len(ents))
	}

	opt.Isolation = IsolationBestEffort
	opt.Log = testWriter{t}
	start := time.Now()
	sum, err := Grade(context.Background(), opt, subs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("best-effort: graded in %v", time.Since(start))
	csv, _ := os.ReadFile(filepath.Join(book, gradebook.ClassFile))
	for _, e := range sum.Entries {
		if e.Status != gradebook.Graded || e.Score != doubleAutoPoints {
			t.Errorf("%s: %s %g/%g; want graded, %d points", e.Student, e.Status, e.Score, e.MaxScore, doubleAutoPoints)
		}
		if e.Run.IsolationMode != IsolationBestEffort || !strings.Contains(e.Run.Weakened(), "temporary directory") {
			t.Errorf("%s: isolation mode %q, %q; want best-effort naming what was missing", e.Student, e.Run.IsolationMode, e.Run.Weakened())
		}
		if !strings.Contains(gradebook.FeedbackHTML(e), "weaker isolation") {
			t.Errorf("%s: the feedback does not say the isolation was weaker", e.Student)
		}
	}
	if n := strings.Count(string(csv), "weakened isolation (--isolation=best-effort)"); n != len(subs) {
		t.Errorf("%s says %d times that the isolation was weakened; want %d:\n%s", gradebook.ClassFile, n, len(subs), csv)
	}
	if left := leftovers(); len(left) > 0 {
		t.Errorf("processes started for the submissions are still running: %v", left)
	}
}
