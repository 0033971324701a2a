package bench

import (
	"strings"
	"testing"

	"github.com/goagx/agx/internal/oracle"
)

// The idioms group: at least the ops it was made for, and every workload
// runs on both sides.
func TestIdiomWorkloads(t *testing.T) {
	var ws []Workload
	for _, w := range All() {
		if strings.HasPrefix(w.Name, "idiom_") {
			ws = append(ws, w)
		}
	}
	if len(ws) < 10 {
		t.Fatalf("%d idiom_ workloads", len(ws))
	}
	runWorkloads(t, ws)
	t.Run("torch", func(t *testing.T) { runTorchWorkloads(t, ws) })
}

// runWorkloads sets up and runs each of ws twice, each a step of one op
// with a description. (Here rather than in course_test.go, which students
// do not get: this file is in their copy.)
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
