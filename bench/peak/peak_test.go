package peak

import (
	"testing"
	"time"
)

// TestMeasure checks that every probe runs and reports a plausible peak:
// above 1 GFLOP/s (a loop of vector FMAs on any core that has them) and
// below 10⁴ (no single core comes close).
func TestMeasure(t *testing.T) {
	res := Measure(5*time.Millisecond, 2)
	if len(res) != len(probes()) {
		t.Fatalf("Measure returned %d results for %d probes", len(res), len(probes()))
	}
	for _, r := range res {
		if r.GFLOPS < 1 || r.GFLOPS > 1e4 {
			t.Errorf("%d-bit float%d: %.1f GFLOP/s, outside [1, 10⁴]", r.Width, r.Bits, r.GFLOPS)
		}
	}
}
