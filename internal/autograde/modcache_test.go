package autograde

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
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
		if out, err := exec.Command("go", "clean", "-modcache").CombinedOutput(); err != nil {
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
	subs := []Submission{writeNB(t, t.TempDir(), "instructor", readNB(t, source))}
	opt := testOptions(source, dir)
	opt.Jobs = 1
	opt.Log = testWriter{t}
	sum, err := Grade(context.Background(), opt, subs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Entries) != 1 {
		t.Fatalf("%d entries, want 1", len(sum.Entries))
	}
	checkEntry(t, sum.Entries[0], want{score: 4, cells: map[string]string{"gelu-forward": StatusPassed, "quiz-smooth": StatusPassed}, noFlag: true, toEnd: true})
	if ents, _ := os.ReadDir(cache); len(ents) == 0 {
		t.Errorf("the module cache %s is still empty: the test did not use it", cache)
	}
}

func TestMissingModule(t *testing.T) {
	for _, tc := range []struct {
		name, out, want string
	}{
		{"lookup disabled", "go get: exit status 1\ngo: github.com/ajstarks/svgo@v0.0.0-2021: requires\n\tgithub.com/ajstarks/deck/generate@v0.0.0-2021: module lookup disabled by GOPROXY=off",
			"github.com/ajstarks/deck/generate@v0.0.0-2021"},
		{"package", "go: downloading github.com/janpfeifer/gonb v0.11.4\ngo: gonb_y imports\n\tgithub.com/janpfeifer/gonb/gonbui: module lookup disabled by GOPROXY=off\ngo: gonb_y imports\n\tgonum.org/v1/plot: module lookup disabled by GOPROXY=off",
			"the module providing package github.com/janpfeifer/gonb/gonbui"},
		{"other error", "go: gonum.org/v1/plot@v0.16.0: missing go.sum entry", "gonum.org/v1/plot@v0.16.0"},
		{"no module named", "go: something odd\nmore", "a module (go: something odd)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := missingModule(tc.out); got != tc.want {
				t.Errorf("missingModule = %q, want %q", got, tc.want)
			}
		})
	}
}
