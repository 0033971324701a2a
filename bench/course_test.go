package bench

import (
	"strings"
	"testing"

	"github.com/goagx/agx/internal/oracle"
)

// courseNames are the workloads of the course group (`agx bench -run course`).
func courseNames(t *testing.T) []Workload {
	var ws []Workload
	for _, w := range All() {
		if strings.HasPrefix(w.Name, "course_") {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		t.Fatal("no course_ workloads")
	}
	return ws
}

// Every workload of the course group sets up and runs, twice (the second
// call runs on the gradients the first left).
func TestCourseWorkloadsRun(t *testing.T) { runWorkloads(t, courseNames(t)) }

// The PyTorch side of every course workload runs.
func TestCourseTorchWorkloadsRun(t *testing.T) { runTorchWorkloads(t, courseNames(t)) }

// runWorkloads sets up and runs each of ws twice, each a step of one op
// with a description.
func runWorkloads(t *testing.T, ws []Workload) {
	for _, w := range ws {
		t.Run(w.Name, func(t *testing.T) {
			if w.Ops != 1 || w.Desc == "" {
				t.Errorf("Ops %d, Desc %q", w.Ops, w.Desc)
			}
			run := w.Setup()
			run()
			run()
		})
	}
}

// runTorchWorkloads runs the PyTorch side of each of ws twice.
func runTorchWorkloads(t *testing.T, ws []Workload) {
	oracle.Skip(t)
	p, err := startTorch(t.Context(), oracle.Python)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for _, w := range ws {
		t.Run(w.Name, func(t *testing.T) {
			if _, err := p.time(w.Name, 2); err != nil {
				t.Fatal(err)
			}
		})
	}
}
