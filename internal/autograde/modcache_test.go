package autograde

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/nbtest"
)

// coldModCache points the go command (of this process and the kernels it
// starts) at a new, empty module cache, readable by the kernel's users and
// removed after the test (-modcacherw makes it removable).
func coldModCache(t *testing.T) string {
	t.Helper()
	flags, err := exec.Command("go", "env", "GOFLAGS").Output()
	if err != nil {
		t.Fatalf("go env GOFLAGS: %v", err)
	}
	dir, err := os.MkdirTemp("", "agx-modcache-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOMODCACHE", dir)
	t.Setenv("GOFLAGS", strings.TrimSpace(strings.TrimSpace(string(flags))+" -modcacherw"))
	t.Cleanup(func() {
		clean := exec.Command("go", "clean", "-modcache")
		clean.Env = append(os.Environ(), "GOMODCACHE="+dir) // this cache, whatever the order of the cleanups
		if out, err := clean.CombinedOutput(); err != nil {
			t.Errorf("go clean -modcache: %v\n%s", err, out)
		}
		os.RemoveAll(dir)
	})
	return dir
}

// TestColdModuleCache grades the instructor's solution with an empty module
// cache: the grader fetches what the kernel's scratch module needs before it
// enters the sandbox (which has no network), so the solution gets full
// marks. Without that step every cell fails in GoNB's `go get`.
func TestColdModuleCache(t *testing.T) {
	needKernel(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("skipping: no unshare, so the kernel would have the network anyway")
	}
	cache := coldModCache(t)
	const source = "../nbgrader/testdata/gelu.ipynb"
	dir := t.TempDir()
	subs := []Submission{writeNB(t, t.TempDir(), "instructor", nbtest.ReadNB(t, source))}
	opt := testOptions(source, dir)
	opt.Jobs = 1
	// The modules are at new paths, so the build cache does not hit for
	// them: the first cell compiles agx's dependencies from scratch, which
	// takes minutes on a small, busy machine.
	opt.CellTimeout, opt.Timeout = 5*time.Minute, 15*time.Minute
	opt.Log = testWriter{t}
	sum, err := Grade(context.Background(), opt, subs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Entries) != 1 {
		t.Fatalf("%d entries, want 1", len(sum.Entries))
	}
	checkEntry(t, sum.Entries[0], want{score: 4, cells: map[string]string{"gelu-forward": gradebook.StatusPassed, "quiz-smooth": gradebook.StatusPassed}, noFlag: true, toEnd: true})
	if ents, _ := os.ReadDir(cache); len(ents) == 0 {
		t.Errorf("the module cache %s is still empty: the test did not use it", cache)
	}
}
