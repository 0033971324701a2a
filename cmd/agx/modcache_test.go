package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAutogradeNoModules: with an empty module cache and no way to fetch
// modules (GOPROXY=off), agx autograde stops before grading anyone with one
// error that names a missing module and the fix, and writes no grades.
func TestAutogradeNoModules(t *testing.T) {
	needJupyter(t)
	flags, err := exec.Command("go", "env", "GOFLAGS").Output()
	if err != nil {
		t.Fatalf("go env GOFLAGS: %v", err)
	}
	cache, err := os.MkdirTemp("", "agx-modcache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(cache) }) // nothing can be downloaded into it
	t.Setenv("GOMODCACHE", cache)
	t.Setenv("GOFLAGS", strings.TrimSpace(strings.TrimSpace(string(flags))+" -modcacherw"))
	t.Setenv("GOPROXY", "off")

	source := exerciseSource(t)
	class := writeClass(t, source, 2)
	book := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := agxMain(context.Background(), []string{"autograde", "--kernel", testKernel(), "--source", source, "-o", book, "-j", "1", class}, &stdout, &stderr)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	msg := stderr.String()
	for _, want := range []string{
		"agx autograde: the Go module cache " + cache + " cannot serve the kernel",
		"it lacks the module providing package ",
		"GOPROXY=off",
		"Nobody was graded",
		"make deps",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if n := strings.Count(msg, "agx autograde:"); n != 1 {
		t.Errorf("%d errors on stderr, want one", n)
	}
	if strings.Contains(stdout.String(), "student") {
		t.Errorf("a gradebook was printed:\n%s", stdout.String())
	}
	for _, pattern := range []string{"*.json", "*.csv", "executed/*.ipynb"} {
		if m, _ := filepath.Glob(filepath.Join(book, pattern)); len(m) > 0 {
			t.Errorf("the gradebook has %v; want no grades written", m)
		}
	}
}
