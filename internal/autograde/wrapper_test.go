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

// TestGoWrapperScratchModule runs the kernel's go wrapper, while grading, in
// a scratch module an earlier cell has written into: only what GoNB writes
// (main.go, main_test.go) is left, and go.mod is made anew as at kernel
// start, so that neither a .syso (which turns off the compiler's check for
// body-less functions), assembly, C or other files, nor a go.mod no go
// command can use (go 1.99, a missing requirement) reach the build.
func TestGoWrapperScratchModule(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	wrapper, err := filepath.Abs("../../docker/scripts/kernel-bin/go")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	root := filepath.Join(tmp, "agx")
	scratch := filepath.Join(tmp, "gonb_x1")
	for _, d := range []string{root, scratch, filepath.Join(scratch, "sub"), filepath.Join(scratch, "vendor")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The stand-in for the real go: `mod init` and `mod edit` write go.mod
	// as the real one would (roughly); any other command lists the directory.
	fake := filepath.Join(tmp, "realgo")
	script := `#!/bin/sh
case "$1 $2" in
"mod init") echo "module $3" >go.mod; echo "go 1.0" >>go.mod ;;
"mod edit") shift 2; echo "edit $*" >>go.mod ;;
*) echo "ARGS: $*"; ls -A ;;
esac
`
	files := map[string]string{
		filepath.Join(root, "go.mod"):           "module example.com/agx\n",
		filepath.Join(scratch, "main.go"):       "package main\n",
		filepath.Join(scratch, "main_test.go"):  "package main\n",
		filepath.Join(scratch, "go.mod"):        "module gonb_x1\n\ngo 1.99\n\nrequire example.com/missing v1.0.0\n\nreplace example.com/agx => ../evil\n",
		filepath.Join(scratch, "go.sum"):        "example.com/agx v0.0.0 h1:bad=\n",
		filepath.Join(scratch, "gonb_x1"):       "old program",
		filepath.Join(scratch, "evil.syso"):     "\x7fELF",
		filepath.Join(scratch, "evil_amd64.s"):  "TEXT ·f(SB),0,$0\n",
		filepath.Join(scratch, "evil.S"):        "",
		filepath.Join(scratch, "evil.cc"):       "",
		filepath.Join(scratch, "evil.c"):        "",
		filepath.Join(scratch, "evil.h"):        "",
		filepath.Join(scratch, "evil.go"):       "package main\n",
		filepath.Join(scratch, "x_test.go"):     "package main\n",
		filepath.Join(scratch, "go.work"):       "go 1.22\n",
		filepath.Join(scratch, ".hidden"):       "",
		filepath.Join(scratch, "sub", "sub.go"): "package sub\n",
		fake:                                    script,
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(wrapper, "build", "-o", filepath.Join(scratch, "gonb_x1"))
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "AGX_GO="+fake, "AGX_ROOT="+root, "GONB_TMP_DIR="+scratch,
		"AGX_GRADE_SECRET="+filepath.Join(tmp, "secret"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wrapper: %v", err)
	}
	if want := "ARGS: build -o " + filepath.Join(scratch, "gonb_x1") + "\ngo.mod\nmain.go\nmain_test.go\n"; string(out) != want {
		t.Errorf("go build while grading saw\n%s\nwant\n%s", out, want)
	}
	mod, err := os.ReadFile(filepath.Join(scratch, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "module gonb_x1\ngo 1.0\nedit -require=example.com/agx@v0.0.0 -replace=example.com/agx=" + root + "\n"; string(mod) != want {
		t.Errorf("go.mod while grading:\n%s\nwant\n%s", mod, want)
	}
}
