package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A grading container's mount table as Docker makes it for agx autograde
// --docker (shortened), and the same table with one measure taken away.
const dockerMounts = `539 470 0:52 / / ro,relatime master:254 - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w
540 539 0:55 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
541 539 0:56 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755
545 541 0:54 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k
546 539 0:57 / /tmp rw,nosuid,nodev,relatime - tmpfs tmpfs rw,size=4194304k,mode=1777
547 539 0:58 / /var/tmp rw,nosuid,nodev,relatime - tmpfs tmpfs rw,size=262144k,mode=1777
548 539 8:1 /var/lib/docker/volumes/x/_data /home/jovyan rw,relatime master:1 - ext4 /dev/sda1 rw
`

func TestCheckContainer(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"notebooks/exercises", "bench"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hidden := []string{"notebooks/exercises/", "bench/solution.go", "functions/solutions/"}
	write := func(rel, content string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bench/solution.go", IgnoredGoStub)
	full := containerEnv{mountinfo: dockerMounts, interfaces: []string{"lo"}, pidsMax: "2304", memoryMax: "4294967296"}
	tests := []struct {
		name    string
		env     func(e *containerEnv)
		net     bool
		setup   func()
		missing string // "" when nothing may be missing
	}{
		{"every measure", nil, true, nil, ""},
		{"writable root", func(e *containerEnv) { e.mountinfo = strings.Replace(e.mountinfo, "/ / ro,", "/ / rw,", 1) }, true, nil, "root file system is writable"},
		{"/tmp of the image", func(e *containerEnv) { e.mountinfo = strings.Replace(e.mountinfo, " /tmp ", " /tmpx ", 1) }, true, nil, "/tmp is not a tmpfs"},
		{"a network", func(e *containerEnv) { e.interfaces = []string{"eth0", "lo"} }, true, nil, "besides loopback: eth0"},
		{"a network, --net host", func(e *containerEnv) { e.interfaces = []string{"eth0", "lo"} }, false, nil, ""},
		{"no pids limit", func(e *containerEnv) { e.pidsMax = "max" }, true, nil, "no process limit"},
		{"no memory limit", func(e *containerEnv) { e.memoryMax = "max" }, true, nil, "no memory limit"},
		{"an instructor notebook shows", nil, true, func() { write("notebooks/exercises/gelu.ipynb", "{}") }, "notebooks/exercises holds 1 entries"},
		{"an instructor Go file shows", nil, true, func() { write("bench/solution.go", "package bench\n") }, "bench/solution.go has content"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(filepath.Join(root, "notebooks/exercises/gelu.ipynb"))
			write("bench/solution.go", IgnoredGoStub)
			env := full
			if tc.env != nil {
				tc.env(&env)
			}
			if tc.setup != nil {
				tc.setup()
			}
			measures, missing, fixes := checkContainer(env, tc.net, root, hidden)
			if len(fixes) != len(missing) {
				t.Fatalf("%d fixes for %d missing measures", len(fixes), len(missing))
			}
			got := strings.Join(missing, "\n")
			if tc.missing == "" {
				if got != "" {
					t.Fatalf("missing: %s", got)
				}
				if len(measures) < 5 {
					t.Errorf("measures: %q", measures)
				}
				return
			}
			if len(missing) != 1 || !strings.Contains(got, tc.missing) {
				t.Errorf("missing = %q, want one naming %q", missing, tc.missing)
			}
		})
	}
}

func TestParseMountInfo(t *testing.T) {
	ms := parseMountInfo(dockerMounts + `600 539 0:60 / /with\040space rw - tmpfs tmpfs rw
bad line
601 539 0:61 / /tagged rw shared:1 master:2 - tmpfs tmpfs rw
`)
	for _, tc := range []struct{ point, fstype, opt string }{
		{"/", "overlay", "ro"}, {"/tmp", "tmpfs", "rw"}, {"/with space", "tmpfs", "rw"}, {"/tagged", "tmpfs", "rw"}, {"/home/jovyan", "ext4", "relatime"},
	} {
		m := lastMount(ms, tc.point)
		if m == nil || m.fstype != tc.fstype || !slices.Contains(m.opts, tc.opt) {
			t.Errorf("%s: got %+v, want %s with %s", tc.point, m, tc.fstype, tc.opt)
		}
	}
	if m := lastMount(ms, "bad"); m != nil {
		t.Errorf("a malformed line was read: %+v", m)
	}
}

func TestInstructorOnly(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "docker"), 0o755)
	os.WriteFile(filepath.Join(root, "docker", "instructor-only"), []byte("# comment\n\nnotebooks/exercises/\n  bench/x.go  \n"), 0o644)
	got, err := InstructorOnly(root)
	if err != nil || strings.Join(got, ",") != "notebooks/exercises/,bench/x.go" {
		t.Errorf("InstructorOnly = %q, %v", got, err)
	}
	if _, err := InstructorOnly(t.TempDir()); err == nil {
		t.Error("no error for a checkout without the list")
	}
}
