package bench

import (
	"reflect"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	r := func(name string, agx, torch float64) Result {
		res := Result{Name: name, Agx: agx, Torch: torch, GCPerOp: agx / 10}
		if torch > 0 {
			res.Ratio = agx / torch
		}
		return res
	}
	for _, c := range []struct {
		name string
		runs [][]Result
		want []Summary
	}{
		{"one run", [][]Result{{r("a", 1, 4)}},
			[]Summary{{Name: "a", Runs: 1, Agx: 1, GC: 0.1, Torch: 4, Ratio: 0.25, RatioMin: 0.25, RatioMax: 0.25, TorchRuns: 1}}},
		{"odd count: the middle run", [][]Result{{r("a", 1, 2)}, {r("a", 3, 2)}, {r("a", 2, 8)}},
			[]Summary{{Name: "a", Runs: 3, Agx: 2, GC: 0.2, Torch: 2, Ratio: 0.5, RatioMin: 0.25, RatioMax: 1.5, TorchRuns: 3}}},
		{"even count: the mean of the middle two", [][]Result{{r("a", 1, 4)}, {r("a", 3, 4)}},
			[]Summary{{Name: "a", Runs: 2, Agx: 2, GC: 0.2, Torch: 4, Ratio: 0.5, RatioMin: 0.25, RatioMax: 0.75, TorchRuns: 2}}},
		{"agx only", [][]Result{{r("a", 1, 0)}, {r("a", 3, 0)}},
			[]Summary{{Name: "a", Runs: 2, Agx: 2, GC: 0.2}}},
		{"PyTorch in some runs only", [][]Result{{r("a", 1, 2)}, {r("a", 3, 0)}, {r("a", 2, 0)}},
			[]Summary{{Name: "a", Runs: 3, Agx: 2, GC: 0.2, Torch: 2, Ratio: 0.5, RatioMin: 0.5, RatioMax: 0.5, TorchRuns: 1}}},
		{"workloads in first-seen order, in some runs only",
			[][]Result{{r("b", 1, 0)}, {r("a", 2, 0), r("b", 3, 0)}},
			[]Summary{{Name: "b", Runs: 2, Agx: 2, GC: 0.2}, {Name: "a", Runs: 1, Agx: 2, GC: 0.2}}},
		{"no runs", nil, []Summary{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Summarize(c.runs); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Summarize =\n%+v\nwant\n%+v", got, c.want)
			}
		})
	}
}

func TestWriteSummary(t *testing.T) {
	var b strings.Builder
	err := WriteSummary(&b, []Summary{
		{Name: "elementwise_chain", Runs: 3, Agx: 4e-3, GC: 1e-3, Torch: 6e-3, Ratio: 0.67, RatioMin: 0.5, RatioMax: 0.9, TorchRuns: 3},
		{Name: "tiny_ops_overhead", PerOp: true, Runs: 3, Agx: 4.5e-7, Torch: 3e-6, Ratio: 0.15, RatioMin: 0.1, RatioMax: 0.2, TorchRuns: 2},
		{Name: "agx_only", Runs: 2, Agx: 1e-3},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := [][]string{
		{"WORKLOAD", "RUNS", "AGX", "(MEDIAN)", "PYTORCH", "(MEDIAN)", "RATIO", "(MEDIAN)", "RATIO", "(MIN-MAX)", "AGX", "GC", "CPU", "(MEDIAN)"},
		{"elementwise_chain", "3", "4.00", "ms", "6.00", "ms", "0.67", "0.50-0.90", "1.00", "ms"},
		{"tiny_ops_overhead", "3", "450", "ns/op", "3.00", "µs/op", "0.15", "0.10-0.20", "(2", "runs)", "-/op"},
		{"agx_only", "2", "1.00", "ms", "-", "-", "-", "-"},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(lines), b.String())
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); !reflect.DeepEqual(got, w) {
			t.Errorf("line %d = %q, want %q", i, got, w)
		}
	}
}
