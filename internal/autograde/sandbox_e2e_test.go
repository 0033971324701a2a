package autograde

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/nbtest"
	"github.com/goagx/agx/internal/notebook"
	"github.com/goagx/agx/internal/sandbox"
	"github.com/goagx/agx/internal/testenv"
)

// forkBomb starts up to 500 sleep processes and reports how many started:
// bounded, so that a machine where the process limit fails is not hurt.
const forkBomb = "%%\n" +
	"started, failed := 0, 0\nvar firstErr error\nvar cmds []*exec.Cmd\n" +
	"for i := 0; i < 500; i++ {\n" +
	"\tc := exec.Command(\"sleep\", \"60\")\n" +
	"\tif err := c.Start(); err != nil {\n\t\tfailed++\n\t\tif firstErr == nil {\n\t\t\tfirstErr = err\n\t\t}\n\t\tcontinue\n\t}\n" +
	"\tcmds = append(cmds, c)\n\tstarted++\n}\n" +
	"for _, c := range cmds {\n\tc.Process.Kill()\n\tc.Wait()\n}\n" +
	"fmt.Printf(\"bomb: started %d failed %d first error: %v\\n\", started, failed, firstErr)\n"

// TestUnprivilegedKernel grades, with a low process limit, a submission
// with a fork bomb, one that reads a file only root may read and an honest
// one: the bomb is capped, the file stays unread (when grading runs as
// root, so that the kernel runs as a slot user), and the honest submission
// gets its points.
func TestUnprivilegedKernel(t *testing.T) {
	needKernel(t)
	const source = "testdata/double.ipynb"
	src := nbtest.ReadNB(t, source)
	in, dir := t.TempDir(), t.TempDir()

	// A root-only file in a directory everyone may enter.
	secretDir, err := os.MkdirTemp("", "agx-secret-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(secretDir)
	if err := os.Chmod(secretDir, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(secretDir, "secret.txt")
	if err := os.WriteFile(secret, []byte("the answers to every test"), 0o600); err != nil {
		t.Fatal(err)
	}

	bomb := nbtest.Solved(t, src)
	nbtest.InsertAfter(t, bomb, "double-code", forkBomb)
	reader := nbtest.Solved(t, src)
	nbtest.InsertAfter(t, reader, "double-code", fmt.Sprintf("%%%%\nb, err := os.ReadFile(%q)\nfmt.Printf(\"read: %%q %%v\\n\", b, err)\n", secret))
	subs := []Submission{writeNB(t, in, "honest", nbtest.Solved(t, src)), writeNB(t, in, "bomb", bomb), writeNB(t, in, "reader", reader)}

	opt := testOptions(source, dir)
	opt.Limits.Procs = 64
	opt.Log = testWriter{t}
	sum, err := Grade(context.Background(), opt, subs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("isolation: %q", sum.Isolation)
	root := os.Geteuid() == 0
	dropped := slices.ContainsFunc(sum.Isolation, func(s string) bool { return strings.HasPrefix(s, "the kernel runs as an unprivileged user") })
	if root && !dropped {
		t.Logf("the kernel ran as root (%q): the process limit and file checks are skipped", sum.Isolation)
	}
	output := func(t *testing.T, student, prefix string) string {
		t.Helper()
		nb, err := notebook.Read(filepath.Join(dir, gradebook.ExecutedDir, student+".ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range nb.Cells {
			for _, o := range c.Outputs {
				if strings.Contains(o.Text, prefix) {
					return o.Text
				}
			}
		}
		t.Fatalf("no output with %q", prefix)
		return ""
	}
	byStudent := map[string]*gradebook.Entry{}
	for _, e := range sum.Entries {
		byStudent[e.Student] = e
	}
	for _, tc := range []struct {
		student string
		check   func(t *testing.T)
	}{
		{"honest", func(t *testing.T) {}},
		{"bomb", func(t *testing.T) {
			out := output(t, "bomb", "bomb: ")
			t.Logf("%s", out)
			m := regexp.MustCompile(`started (\d+) failed (\d+)`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("unexpected output %q", out)
			}
			started, _ := strconv.Atoi(m[1])
			if (!root || dropped) && (started >= opt.Limits.Procs || !strings.Contains(out, "resource temporarily unavailable")) {
				t.Errorf("the process limit %d did not cap the bomb: %q", opt.Limits.Procs, out)
			}
		}},
		{"reader", func(t *testing.T) {
			out := output(t, "reader", "read: ")
			t.Logf("%s", out)
			// Denied, or (the file is under /tmp, which is private to each
			// submission) not there at all.
			if root && dropped && (strings.Contains(out, "answers") || !strings.Contains(out, "permission denied") && !strings.Contains(out, "no such file")) {
				t.Errorf("the kernel read a root-only file: %q", out)
			}
		}},
	} {
		t.Run(tc.student, func(t *testing.T) {
			e := byStudent[tc.student]
			if e == nil {
				t.Fatal("no entry")
			}
			checkEntry(t, e, want{score: 2, cells: map[string]string{"double-test": gradebook.StatusPassed}, toEnd: true})
			tc.check(t)
		})
	}
}

// TestSandboxGoOffline checks the Go settings of the wrapping kernelspec:
// without network the go command is told so (GOPROXY=off, GOSUMDB=off; see
// offlineGoEnv), and with the host's network it keeps its own.
func TestSandboxGoOffline(t *testing.T) {
	needKernel(t)
	for _, net := range []string{NetAuto, NetHost} {
		t.Run(net, func(t *testing.T) {
			sb, err := sandbox.New(context.Background(), jupyter.DefaultPython, testKernel(), Limits{Network: net}, 1, IsolationBestEffort)
			if err != nil {
				t.Fatal(err)
			}
			defer sb.Cleanup()
			b, err := os.ReadFile(filepath.Join(sb.Dir(), "kernels", sb.Kernel(), "kernel.json"))
			if err != nil {
				t.Fatal(err)
			}
			var spec sandbox.KernelSpec
			if err := json.Unmarshal(b, &spec); err != nil {
				t.Fatal(err)
			}
			isolated := slices.ContainsFunc(sb.Isolation(), func(s string) bool { return strings.HasPrefix(s, "no network") })
			switch {
			case net == NetHost && (spec.Env["GOPROXY"] == "off" || spec.Env["GOSUMDB"] == "off"):
				t.Errorf("with the host's network the kernel's go settings are changed: %v", spec.Env)
			case net == NetAuto && !isolated:
				testenv.Missing(t, "no network namespace here (unshare -n needs root or CAP_SYS_ADMIN, and iproute2): %q", sb.Isolation())
			case net == NetAuto && (spec.Env["GOPROXY"] != "off" || spec.Env["GOSUMDB"] != "off"):
				t.Errorf("without network the kernel's go command is not told so: GOPROXY=%q GOSUMDB=%q", spec.Env["GOPROXY"], spec.Env["GOSUMDB"])
			}
		})
	}
}
