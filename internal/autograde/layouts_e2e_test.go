package autograde

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goagx/agx/internal/gradebook"
	"github.com/goagx/agx/internal/jupyter"
	"github.com/goagx/agx/internal/nbgrader"
	"github.com/goagx/agx/internal/nbtest"
	"github.com/goagx/agx/internal/sandbox"
	"github.com/goagx/agx/internal/testenv"
)

// layout is where an instructor's HOME (GoNB's install directory, the Go
// module and build caches) lies, and where TMPDIR points.
type layout struct {
	name string
	// home makes the directory that becomes HOME; tmpdir, when set, makes TMPDIR.
	home   func(t *testing.T) string
	tmpdir func(t *testing.T) string
}

// closedDir makes a directory of mode 0700 under parent, removed after the test.
func closedDir(t *testing.T, parent string) string {
	t.Helper()
	d, err := os.MkdirTemp(parent, "agx-layout-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// otherFS mounts a new tmpfs (another file system) and returns it.
func otherFS(t *testing.T) string {
	t.Helper()
	d := closedDir(t, "/mnt")
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "mode=0700,size=4g", "agx-layout", d).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", d).Run() })
	return d
}

var layouts = []layout{
	{name: "tmp-0700", home: func(t *testing.T) string { return filepath.Join(closedDir(t, "/tmp"), "home") }},
	{name: "root", home: func(t *testing.T) string { return closedDir(t, "/root") }},
	{name: "other-fs", home: func(t *testing.T) string { return filepath.Join(otherFS(t), "home") }},
	{name: "home-0700-tmpdir-elsewhere", home: func(t *testing.T) string { return closedDir(t, "/home") },
		tmpdir: func(t *testing.T) string {
			d := closedDir(t, "/var/tmp")
			os.Chmod(d, 0o1777)
			return d
		}},
}

// copyTree copies src to dst with cp -a, hard links where both are on one
// file system (the caches are large).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if exec.Command("cp", "-al", src, dst).Run() == nil {
		return
	}
	os.RemoveAll(dst)
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s %s: %v: %s", src, dst, err, out)
	}
}

// copyCache copies the build cache src to dst as copyTree does, except that a
// cache that would fill more than half of the space left on dst's file system
// (a developer's cache of many gigabytes, copied into the 4 GiB tmpfs) is not
// copied: dst starts empty, as a new instructor's cache does, and copyCache
// returns false.
func copyCache(t *testing.T, src, dst string) (copied bool) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if exec.Command("cp", "-al", src, dst).Run() == nil {
		return true
	}
	os.RemoveAll(dst)
	// Disk usage, not apparent size: on the tmpfs each small file takes a page.
	out, err := exec.Command("du", "-s", "--block-size=1", src).Output()
	if err != nil {
		t.Fatalf("du -s %s: %v", src, err)
	}
	var size int64
	if _, err := fmt.Sscan(string(out), &size); err != nil {
		t.Fatalf("du -s %s: %q: %v", src, out, err)
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(dst), &fs); err != nil {
		t.Fatal(err)
	}
	if free := int64(fs.Bavail) * fs.Bsize; size > free/2 {
		t.Logf("the build cache (%d MiB) is not copied into %d MiB of free space: the kernels start with a cold one", size>>20, free>>20)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		return false
	}
	copyTree(t, src, dst)
	return true
}

// moveKernel installs a copy of the test kernel's HOME parts (GoNB's
// directory, the module and build caches) under home and a kernelspec for
// it, and points the grader's environment there. It returns the
// kernelspec's name, and whether the build cache came with the rest
// (copyCache).
func moveKernel(t *testing.T, home string) (name string, warm bool) {
	t.Helper()
	ctx := context.Background()
	spec, err := sandbox.ReadKernelSpec(ctx, jupyter.DefaultPython, testKernel())
	if err != nil {
		t.Fatal(err)
	}
	goBin := spec.Env["AGX_GO"]
	if goBin == "" {
		goBin = "go"
	}
	goEnv, err := sandbox.ReadGoEnv(ctx, goBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	modcache, gocache := filepath.Join(home, "go", "pkg", "mod"), filepath.Join(home, ".cache", "go-build")
	copyTree(t, goEnv["GOMODCACHE"], modcache)
	warm = copyCache(t, goEnv["GOCACHE"], gocache)
	if bin := spec.Env["AGX_BIN"]; bin != "" {
		spec.Env["AGX_BIN"] = filepath.Join(home, ".local", "share", "agx", "bin")
		copyTree(t, bin, spec.Env["AGX_BIN"])
	}
	// What only the instructor may read.
	if err := os.WriteFile(filepath.Join(home, "instructor-secret.txt"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	jp := t.TempDir()
	name = "agx-layout-" + filepath.Base(t.Name())
	kdir := filepath.Join(jp, "kernels", name)
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		t.Fatal(err)
	}
	spec.DisplayName = "layout " + filepath.Base(t.Name())
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kdir, "kernel.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JUPYTER_PATH", jp)
	t.Setenv("HOME", home)
	t.Setenv("GOMODCACHE", modcache)
	t.Setenv("GOCACHE", gocache)
	return name, warm
}

// TestIsolationLayouts grades, as root in strict mode, a small class with
// attacks in each layout of the instructor's HOME: in a directory closed to
// other users under /tmp (as mktemp -d makes it), under /root at mode 0700,
// on another file system, and under /home at mode 0700 with TMPDIR elsewhere
// (the default TMPDIR is the other layouts'). In each:
// the honest submission gets full marks, the wrong one none; the attacker
// cannot read the instructor's files; what it writes to /tmp, /var/tmp,
// /dev/shm, HOME and TMPDIR is gone afterwards; and no process it started
// is left.
func TestIsolationLayouts(t *testing.T) {
	needKernel(t)
	if os.Geteuid() != 0 {
		testenv.Missing(t, "needs root: the layouts are made in /home, /root and a new tmpfs, and grading is strict")
	}
	const source = "testdata/double.ipynb"
	src := nbtest.ReadNB(t, source)
	absSource, _ := filepath.Abs(source)
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			home := l.home(t)
			kernel, warm := moveKernel(t, home)
			if l.tmpdir != nil {
				t.Setenv("TMPDIR", l.tmpdir(t))
			}
			mark := "agx-layout-" + nbgrader.NewNonce()[:12]
			targets := []string{"/tmp", "/var/tmp", "/dev/shm", home, os.TempDir()}
			attack := fmt.Sprintf("%%%%\n// attack\nfor _, d := range []string{\"/tmp\", \"/var/tmp\", \"/dev/shm\", os.Getenv(\"HOME\"), os.Getenv(\"TMPDIR\"), %q} {\n"+
				"\tfmt.Println(\"write\", d, os.WriteFile(filepath.Join(d, %q), []byte(\"x\"), 0o644))\n}\n"+
				"for _, f := range []string{%q, %q} {\n\tb, err := os.ReadFile(f)\n\tfmt.Printf(\"read %%s: %%d bytes\\n\", f, len(b))\n\t_ = err\n}\n",
				home, mark, filepath.Join(home, "instructor-secret.txt"), absSource)
			attacker := nbtest.Solved(t, src)
			nbtest.InsertAfter(t, attacker, "double-code", attack)
			nbtest.InsertAfter(t, attacker, "double-code", detachedLoop)
			wrong := nbtest.Solved(t, src)
			nbtest.CellByID(t, wrong, "double-code").Source = "func Double(x float64) float64 { return x }"
			in, book := t.TempDir(), t.TempDir()
			subs := []Submission{writeNB(t, in, "honest", nbtest.Solved(t, src)), writeNB(t, in, "wrong", wrong), writeNB(t, in, "attacker", attacker)}
			reapOrphans(t)

			opt := testOptions(source, book)
			opt.Kernel = kernel
			opt.Jobs = 2
			opt.CellTimeout = 2 * time.Minute // the first cell builds agx in a copied cache
			if !warm {
				// Each kernel builds the standard library too, in a layer of its own.
				opt.CellTimeout, opt.Timeout = 5*time.Minute, 15*time.Minute
			}
			opt.Isolation = IsolationStrict
			opt.Log = testWriter{t}
			start := time.Now()
			sum, err := Grade(context.Background(), opt, subs)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("graded in %v", time.Since(start))
			for _, e := range sum.Entries {
				if e.Run.IsolationMode != IsolationStrict {
					t.Errorf("%s: isolation mode %q", e.Student, e.Run.IsolationMode)
				}
				want := float64(doubleAutoPoints)
				if e.Student == "wrong" {
					want = 0
				}
				if e.Status != gradebook.Graded || e.Score != want {
					t.Errorf("%s: %s %g/%g; want graded, %g points", e.Student, e.Status, e.Score, e.MaxScore, want)
				}
			}
			out := cellOutput(t, book, "attacker", "%%\n// attack")
			if !strings.Contains(out, "write /tmp <nil>") {
				t.Errorf("the attacker could not write its private /tmp:\n%s", out)
			}
			if strings.Contains(out, "secret.txt: 6 bytes") || !strings.Contains(out, "double.ipynb: 0 bytes") {
				t.Errorf("the attacker read the instructor's files:\n%s", out)
			}
			for _, d := range targets {
				if _, err := os.Lstat(filepath.Join(d, mark)); err == nil {
					t.Errorf("%s: the attacker's file is left after the run", filepath.Join(d, mark))
				}
			}
			if left := leftovers(); len(left) > 0 {
				t.Errorf("processes started for the submissions are still running: %v", left)
			}
		})
	}
}
