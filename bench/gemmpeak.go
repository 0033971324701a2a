package bench

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/goagx/agx/bench/peak"
	"github.com/goagx/agx/tensor"
)

// GEMMPeak is one row of the GEMM-against-peak report: the installed BLAS
// (agx's GEMM by default) on a square n×n product at one thread, against
// the FMA peak of one core (package peak) for each vector width.
type GEMMPeak struct {
	DType  string  `json:"dtype"`
	N      int     `json:"n"`
	GFLOPS float64 `json:"gflops"` // median over the rounds
	// Fraction maps a vector width in bits (256, 512) to the median over the
	// rounds of GFLOPS over that width's peak measured in the same round.
	Fraction map[int]float64 `json:"fraction"`
}

// PeakOptions configures MeasureGEMMPeak.
type PeakOptions struct {
	Sizes    []int         // matrix sizes (default 256, 512, 1024, 2048)
	Rounds   int           // alternating peak/GEMM rounds per row (default 5)
	Sample   time.Duration // target duration of one GEMM sample (default 100ms)
	Progress io.Writer     // progress lines (nil: none)
}

// MeasureGEMMPeak measures one core's FMA peak (package peak) and the
// installed BLAS's float32 and float64 C = A·B at one thread (GOMAXPROCS 1
// for the duration), C preallocated, so that only the GEMM is timed. Both
// are timed in the thread's CPU time (peak.Clock), which other processes
// on the machine disturb much less than wall time. Each round takes a
// short peak sample, then a GEMM sample, so that what load remains (cache
// contention, clock changes) hits both alike; a row's fraction is the median of the
// rounds' fractions. It returns the highest peak seen per width and type.
func MeasureGEMMPeak(o PeakOptions) ([]peak.Result, []GEMMPeak) {
	if len(o.Sizes) == 0 {
		o.Sizes = []int{256, 512, 1024, 2048}
	}
	if o.Rounds <= 0 {
		o.Rounds = 5
	}
	if o.Sample <= 0 {
		o.Sample = 100 * time.Millisecond
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var best []peak.Result
	var rows []GEMMPeak
	for _, bits := range []int{32, 64} {
		for _, n := range o.Sizes {
			gemm := gemmFunc(bits, n)
			gemm() // packing buffers, first touch of C
			row := GEMMPeak{DType: fmt.Sprintf("float%d", bits), N: n, Fraction: map[int]float64{}}
			var gf []float64
			frac := map[int][]float64{}
			for range o.Rounds {
				ps := peak.Measure(20*time.Millisecond, 1)
				g := gemmSample(gemm, 2*float64(n)*float64(n)*float64(n), o.Sample)
				gf = append(gf, g)
				for _, p := range ps {
					best = keepBest(best, p)
					if p.Bits == bits {
						frac[p.Width] = append(frac[p.Width], g/p.GFLOPS)
					}
				}
			}
			row.GFLOPS = median(gf)
			for w, fs := range frac {
				row.Fraction[w] = median(fs)
			}
			rows = append(rows, row)
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "%s %d: %.1f GFLOP/s\n", row.DType, n, row.GFLOPS)
			}
		}
	}
	return best, rows
}

// gemmFunc returns one call of the installed Sgemm (bits 32) or Dgemm on
// n×n operands of small integers.
func gemmFunc(bits, n int) func() {
	if bits == 32 {
		a, b, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
		for i := range a {
			a[i], b[i] = float32(i%7-3), float32(i%5-2)
		}
		impl := blas32.Implementation()
		return func() { impl.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n) }
	}
	a, b, c := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	for i := range a {
		a[i], b[i] = float64(i%7-3), float64(i%5-2)
	}
	impl := blas64.Implementation()
	return func() { impl.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n) }
}

// gemmSample calls f until d of the thread's CPU time (peak.Clock) has
// passed, at least once, and returns GFLOP/s over that CPU time.
func gemmSample(f func(), flops float64, d time.Duration) float64 {
	t := peak.Clock()
	calls := 0
	for calls == 0 || peak.Clock()-t < d {
		f()
		calls++
	}
	return flops * float64(calls) / (peak.Clock() - t).Seconds() / 1e9
}

func keepBest(rs []peak.Result, r peak.Result) []peak.Result {
	for i, x := range rs {
		if x.Width == r.Width && x.Bits == r.Bits {
			rs[i].GFLOPS = max(x.GFLOPS, r.GFLOPS)
			return rs
		}
	}
	return append(rs, r)
}

// WriteGEMMPeak prints the peaks and the GEMM rows of MeasureGEMMPeak.
func WriteGEMMPeak(w io.Writer, peaks []peak.Result, rows []GEMMPeak) error {
	fmt.Fprintf(w, "BLAS: %s\n", tensor.BLAS())
	if len(peaks) == 0 {
		fmt.Fprintln(w, "no FMA peak probe for this CPU")
	}
	var widths []int
	for _, p := range peaks {
		fmt.Fprintf(w, "one core's FMA peak, %d-bit vectors, float%d: %.1f GFLOP/s\n", p.Width, p.Bits, p.GFLOPS)
		if !slices.Contains(widths, p.Width) {
			widths = append(widths, p.Width)
		}
	}
	fmt.Fprintln(w)
	head := "GEMM, ONE THREAD\tN\tGFLOP/S"
	for _, wd := range widths {
		head += fmt.Sprintf("\tOF %d-BIT PEAK", wd)
	}
	tw := newTable(w, head)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%.1f", r.DType, r.N, r.GFLOPS)
		for _, wd := range widths {
			fmt.Fprintf(tw, "\t%.0f%%", 100*r.Fraction[wd])
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
