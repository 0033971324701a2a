package bench

import (
	"strings"
	"testing"
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
