package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/goagx/agx/bench/peak"
)

// TestMeasureGEMMPeak runs the peak report on small products and checks its
// shape: one row per type and size, a fraction for every measured width
// that agrees with the row's GFLOP/s and the peak, and a table that shows them.
func TestMeasureGEMMPeak(t *testing.T) {
	sizes := []int{16, 48}
	peaks, rows := MeasureGEMMPeak(PeakOptions{Sizes: sizes, Rounds: 1, Sample: time.Millisecond})
	if len(peaks) != len(peak.Measure(time.Millisecond, 1)) {
		t.Fatalf("%d peaks, want one per probe", len(peaks))
	}
	if len(rows) != 2*len(sizes) {
		t.Fatalf("%d rows, want %d", len(rows), 2*len(sizes))
	}
	for i, r := range rows {
		wantType := []string{"float32", "float64"}[i/len(sizes)]
		if r.DType != wantType || r.N != sizes[i%len(sizes)] {
			t.Errorf("row %d is %s %d, want %s %d", i, r.DType, r.N, wantType, sizes[i%len(sizes)])
		}
		if r.GFLOPS <= 0 {
			t.Errorf("%s %d: %v GFLOP/s", r.DType, r.N, r.GFLOPS)
		}
		for _, p := range peaks {
			if p.Bits != 32 && r.DType == "float32" || p.Bits != 64 && r.DType == "float64" {
				continue
			}
			// One round: the fraction is this round's GFLOP/s over this
			// round's peak, at most the best peak.
			if f, ok := r.Fraction[p.Width]; !ok || f <= 0 || f < r.GFLOPS/p.GFLOPS*0.999 {
				t.Errorf("%s %d: fraction of the %d-bit peak %v (GFLOP/s %v, best peak %v)", r.DType, r.N, p.Width, f, r.GFLOPS, p.GFLOPS)
			}
		}
	}
	var out strings.Builder
	if err := WriteGEMMPeak(&out, peaks, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"BLAS: ", "GEMM, ONE THREAD", "float64  "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}
