package bench

import (
	"fmt"
	"io"
	"slices"
)

// Several runs in fresh processes.
//
// On the project's VMs the memory a process gets decides how fast it streams
// through large tensors: the same program, on the same CPU, took 4.0 to 6.3
// ms for eight passes over a 4 MiB buffer from one process to the next, and
// kept its figure for the whole process (the "Eleventh round" of
// docs/performance.md before it became a user page: git show
// 8a650ed:docs/performance.md). agx and PyTorch each draw their memory once
// per run, so one run's ratio for a memory-bound workload (elementwise_chain)
// moves with that draw, whatever the number of rounds. `agx bench -repeat N`
// runs the harness N times, each time in a new agx process and a new PyTorch
// process, and Summarize gives the median and the range of every workload's
// figures over the runs.

// Summary is one workload's figures over several runs of the harness.
type Summary struct {
	Name  string `json:"name"`
	PerOp bool   `json:"per_op"`
	// Runs is how many runs timed the workload.
	Runs int `json:"runs"`
	// Agx and Torch are the medians over the runs of the runs' medians, in
	// seconds (Torch 0 where no run had PyTorch).
	Agx   float64 `json:"agx_seconds"`
	Torch float64 `json:"torch_seconds,omitempty"`
	// GC is the median over the runs of the collector's CPU time per call
	// (Result.GCPerOp).
	GC float64 `json:"gc_cpu_seconds"`
	// Ratio is the median of the runs' ratios, RatioMin and RatioMax their
	// range, and TorchRuns how many runs had a ratio.
	Ratio     float64 `json:"ratio,omitempty"`
	RatioMin  float64 `json:"ratio_min,omitempty"`
	RatioMax  float64 `json:"ratio_max,omitempty"`
	TorchRuns int     `json:"torch_runs,omitempty"`
}

// Summarize combines runs of the harness, workload by workload, in the
// order in which they first appear.
func Summarize(runs [][]Result) []Summary {
	var order []string
	by := map[string][]Result{}
	for _, run := range runs {
		for _, r := range run {
			if _, seen := by[r.Name]; !seen {
				order = append(order, r.Name)
			}
			by[r.Name] = append(by[r.Name], r)
		}
	}
	out := make([]Summary, 0, len(order))
	for _, name := range order {
		rs := by[name]
		s := Summary{Name: name, PerOp: rs[0].PerOp, Runs: len(rs)}
		var agx, torch, ratio, gc []float64
		for _, r := range rs {
			agx = append(agx, r.Agx)
			gc = append(gc, r.GCPerOp)
			if r.Torch > 0 {
				torch = append(torch, r.Torch)
			}
			if r.Ratio > 0 {
				ratio = append(ratio, r.Ratio)
			}
		}
		s.Agx, s.Torch, s.Ratio, s.GC = median(agx), median(torch), median(ratio), median(gc)
		if len(ratio) > 0 {
			s.RatioMin, s.RatioMax, s.TorchRuns = slices.Min(ratio), slices.Max(ratio), len(ratio)
		}
		out = append(out, s)
	}
	return out
}

// WriteSummary prints summaries as a table: the medians over the runs and
// the range of the ratio.
func WriteSummary(w io.Writer, ss []Summary) error {
	tw := newTable(w, "WORKLOAD\tRUNS\tAGX (MEDIAN)\tPYTORCH (MEDIAN)\tRATIO (MEDIAN)\tRATIO (MIN-MAX)\tAGX GC CPU (MEDIAN)")
	for _, s := range ss {
		unit, span := opUnit(s.PerOp), "-"
		if s.TorchRuns > 0 {
			span = fmt.Sprintf("%.2f-%.2f", s.RatioMin, s.RatioMax)
			if s.TorchRuns < s.Runs {
				span += fmt.Sprintf(" (%d runs)", s.TorchRuns)
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s%s\t%s%s\t%s\t%s\t%s%s\n", s.Name, s.Runs, fmtDur(s.Agx), unit, fmtDur(s.Torch), unit, fmtRatio(s.Ratio), span, fmtDur(s.GC), unit)
	}
	return tw.Flush()
}
