package autograde

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestContainerArgs checks the settings of every grading container: the
// measures the grader in it checks, and nothing that would weaken them.
func TestContainerArgs(t *testing.T) {
	d := &dockerGrader{stub: "/run/x/ignored.go"}
	hidden := []string{"/opt/agx/notebooks/exercises/", "/opt/agx/bench/course_workloads.go", "/opt/agx/internal/x/testdata/a.ipynb"}
	for _, tc := range []struct {
		name string
		opt  Options
		want []string // consecutive pairs or single flags that must appear
		not  []string
	}{
		{"defaults", Options{Limits: Limits{Procs: 2048, Network: NetAuto}},
			[]string{"--rm", "--read-only", "--network none", "--cap-drop ALL", "--pids-limit 2304", "--memory 4294967296", "--memory-swap 4294967296",
				"--security-opt no-new-privileges", "--user 0", "--pull never",
				"--mount type=tmpfs,dst=/opt/agx/notebooks/exercises,tmpfs-size=1m,tmpfs-mode=0755",
				"--mount type=bind,src=/run/x/ignored.go,dst=/opt/agx/bench/course_workloads.go,readonly",
				"--mount type=bind,src=/dev/null,dst=/opt/agx/internal/x/testdata/a.ipynb,readonly"},
			[]string{"--privileged", "SYS_ADMIN", "--network host", "-v"}},
		{"no process limit given", Options{ContainerMemory: 1 << 30, Limits: Limits{Network: NetNone}},
			[]string{"--pids-limit 4096", "--memory 1073741824", "--network none"}, nil},
		{"--net host", Options{Limits: Limits{Network: NetHost}}, []string{"--read-only"}, []string{"--network none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := d.runArgs(tc.opt, hidden)
			line := " " + strings.Join(args, " ") + " "
			for _, w := range tc.want {
				if !strings.Contains(line, " "+w+" ") {
					t.Errorf("no %q in %s", w, line)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(args, n) || strings.Contains(line, " "+n+" ") {
					t.Errorf("%q in %s", n, line)
				}
			}
			// Only the capabilities that changing user needs.
			for i, a := range args {
				if a == "--cap-add" && !slices.Contains([]string{"SETUID", "SETGID", "CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL"}, args[i+1]) {
					t.Errorf("capability %s added", args[i+1])
				}
			}
		})
	}
}

// TestContainerCheckRefusesOutsideContainers runs the grading container's
// check on this machine, which is no grading container: it must refuse,
// naming what is missing, and grade nobody.
func TestContainerCheckRefusesOutsideContainers(t *testing.T) {
	needKernel(t)
	r, err := serveContainer(context.Background(), containerRequest{Check: true, Kernel: testKernel(), Limits: Limits{Procs: 100, Network: NetAuto}}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if r.Refused == "" || !strings.Contains(r.Refused, "grading refused") || !strings.Contains(r.Refused, "read-only") {
		t.Fatalf("the check did not refuse on a machine that is no grading container: %+v", r)
	}
	// A grading request is refused the same way, with no entry.
	src, err := os.ReadFile("../nbgrader/testdata/gelu.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	r, err = serveContainer(context.Background(), containerRequest{SourceName: "gelu.ipynb", Source: src, Student: "alice", Submission: src,
		Kernel: testKernel(), CellTimeout: 1e9, Timeout: 1e10, Limits: Limits{Procs: 100, Network: NetAuto}}, os.Stderr)
	if err != nil || r.Refused == "" || r.Entry != nil {
		t.Fatalf("grading outside a container: %+v, %v", r, err)
	}
}

// TestContainerRequestNames refuses requests whose names would leave the
// container's private directory.
func TestContainerRequestNames(t *testing.T) {
	for _, req := range []containerRequest{
		{SourceName: "gelu.ipynb"},
		{SourceName: "../gelu.ipynb", Student: "alice"},
		{SourceName: "gelu.ipynb", Student: "../alice"},
		{SourceName: "", Student: "alice"},
	} {
		if _, err := serveContainer(context.Background(), req, os.Stderr); err == nil {
			t.Errorf("request %+v accepted", req)
		}
	}
}
