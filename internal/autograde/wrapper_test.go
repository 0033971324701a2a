package autograde

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoWrapperWhileGrading runs the kernel's go wrapper with a stand-in for
// the real go that prints what it got: while grading, build flags GoNB does
// not pass itself (%goflags) are dropped, from the arguments and GOFLAGS,
// and no go env file or build-time program of the student's is used.
func TestGoWrapperWhileGrading(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	wrapper, err := filepath.Abs("../../docker/scripts/kernel-bin/go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "realgo")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"ARGS: $*\"\necho \"GOFLAGS=$GOFLAGS GOENV=$GOENV CC=${CC-unset} GOCACHEPROG=${GOCACHEPROG-unset} CGO_LDFLAGS=${CGO_LDFLAGS-unset}\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(grading bool, args ...string) string {
		cmd := exec.Command(wrapper, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "AGX_GO="+fake, "GOFLAGS=-tags=openblas -toolexec=/tmp/tx -overlay=/tmp/o.json",
			"CC=/tmp/evil-cc", "GOCACHEPROG=/tmp/evil", "CGO_LDFLAGS=-fplugin=/tmp/x", "GOENV=/tmp/env")
		if grading {
			cmd.Env = append(cmd.Env, "AGX_GRADE_SECRET="+filepath.Join(dir, "secret"))
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return string(out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"build", "-o", "/b/prog", "-toolexec=/tmp/tx", "-ldflags", "-X x=y", "-overlay=/tmp/o.json", "-gcflags=all=-N"}, "ARGS: build -o /b/prog\n"},
		{[]string{"test", "-c", "-o", "/b/prog", "-exec", "/tmp/x", "-asmflags=x", "-modfile=/tmp/go.mod"}, "ARGS: test -c -o /b/prog\n"},
		{[]string{"get", "-t", "-toolexec", "/tmp/tx"}, "ARGS: get -t\n"},
		{[]string{"list", "-e", "-json"}, "ARGS: list -e -json\n"},
	} {
		out := run(true, tc.args...)
		if !strings.HasPrefix(out, tc.want) {
			t.Errorf("go %v while grading ran %q, want %q", tc.args, out, tc.want)
		}
		if want := "GOFLAGS=-tags=openblas GOENV=off CC=unset GOCACHEPROG=unset CGO_LDFLAGS=unset\n"; !strings.HasSuffix(out, want) {
			t.Errorf("go %v while grading had the environment %q, want %q", tc.args, out, want)
		}
	}
	// Outside grading the wrapper changes nothing.
	if out := run(false, "build", "-o", "x", "-toolexec=y"); !strings.HasPrefix(out, "ARGS: build -o x -toolexec=y\n") || !strings.Contains(out, "GOENV=/tmp/env") {
		t.Errorf("outside grading: %q", out)
	}
}
