package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/goagx/agx/bench"
)

// TestBenchMemCheckpoint runs `agx bench -mem` on the checkpointing
// comparison alone, with a small deep MLP, and checks that it reports both
// variants, with less memory held by the checkpointed one.
func TestBenchMemCheckpoint(t *testing.T) {
	old := checkpointModel
	t.Cleanup(func() { checkpointModel = old })
	checkpointModel = bench.DeepMLP{Depth: 12, Width: 128, Batch: 256, Segment: 4}
	var stdout, stderr strings.Builder
	if err := benchCommand(t.Context(), []string{"-mem", "2", "-run", "^checkpoint_deep_mlp$"}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	out := stdout.String()
	if strings.Contains(out, "ALLOC/STEP") {
		t.Errorf("-run selected only the comparison, yet the workload table was printed:\n%s", out)
	}
	peak := func(variant string) float64 {
		m := regexp.MustCompile(`(?m)^` + variant + `\s+([0-9.]+) (MiB|KiB)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %s row in:\n%s", variant, out)
		}
		v := 0.0
		for _, c := range m[1] {
			if c == '.' {
				break
			}
			v = v*10 + float64(c-'0')
		}
		if m[2] == "MiB" {
			v *= 1024
		}
		return v
	}
	plain, ck := peak("plain"), peak("checkpoint")
	// 12 layers keep 12 activations of 128 KiB; 3 segments keep 3 inputs
	// plus one segment's 4 recomputed activations.
	if plain < 1024 || ck*1.5 > plain {
		t.Errorf("peak held: plain %.0f KiB, checkpoint %.0f KiB; want checkpoint well under plain\n%s", plain, ck, out)
	}
	if !regexp.MustCompile(`checkpoint saves \d+% of the peak memory and takes [0-9.]+× the time per step`).MatchString(out) {
		t.Errorf("no summary line:\n%s", out)
	}
	t.Log("\n" + out)
}
