package bench

import (
	"strings"
	"testing"
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
