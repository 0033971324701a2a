package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

var erf64Specials = []float64{
	0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff0000000000001),
	math.Float64frombits(0xfff8000000000123),
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, -0x1p-1022, 0x0.fffffffffffffp-1022,
	1e-300, 1e-20, 1e-9, -1e-9, 0x1p-28, 0.5, 0.84375, -0.84375,
	math.Nextafter(1, 0), 1, math.Nextafter(1, 2), -1, 1.25, 2, 2.857, 3, 4, 5, 5.8, 5.9, 5.95,
	math.Nextafter(6, 0), 6, math.Nextafter(6, 7), -6, 7, 27, 1e300, math.MaxFloat64, -math.MaxFloat64,
}

// erf64Inputs are the specials, random values over scales 1e-8 to 10, a
// dense sweep of [0, 7], and every float64 near the cut-overs at 1 and 6.
func erf64Inputs(n int) []float64 {
	rng := rand.New(rand.NewPCG(9, 10))
	in := append([]float64{}, erf64Specials...)
	for i := 0; i < n; i++ {
		scale := math.Pow(10, float64(rng.IntN(10)-8))
		in = append(in, (2*rng.Float64()-1)*scale)
	}
	for i := 0; i < n; i++ {
		in = append(in, 7*float64(i)/float64(n))
	}
	for _, c := range []float64{erf64Split, erf64Hi} {
		up, down := c, c
		for j := 0; j < 1000; j++ {
			in = append(in, up, -down)
			up, down = math.Nextafter(up, 10), math.Nextafter(down, 0)
		}
	}
	return in
}

// TestErf64MatchesMath checks Erf64 against math.Erf: within 2 ulp over
// erf64Inputs (the worst is logged, with a histogram), subnormals
// included, the same signed zeros, NaNs back unchanged, ±1 at ±Inf.
func TestErf64MatchesMath(t *testing.T) {
	n := 2000000
	if testing.Short() || raceEnabled {
		n = 100000
	}
	var worst int64
	var worstX float64
	var hist [4]int
	for _, x := range erf64Inputs(n) {
		got, want := Erf64(x), math.Erf(x)
		d := ulp64(got, want)
		if d > worst {
			worst, worstX = d, x
		}
		hist[min(d, 3)]++
		if got == 0 && math.Signbit(got) != math.Signbit(want) {
			t.Errorf("Erf64(%g) = %g, want %g", x, got, want)
		}
		if x != x && math.Float64bits(got) != math.Float64bits(x) {
			t.Errorf("Erf64(%#x) = %#x, want the NaN back", math.Float64bits(x), math.Float64bits(got))
		}
	}
	for _, x := range []float64{math.Inf(1), math.Inf(-1)} {
		if got := Erf64(x); got != math.Copysign(1, x) {
			t.Errorf("Erf64(%v) = %v", x, got)
		}
	}
	if worst > 2 {
		t.Errorf("erf: %d ulp from math.Erf at x = %v", worst, worstX)
	}
	t.Logf("erf: at most %d ulp from math.Erf (0, 1, 2, more ulp: %v)", worst, hist)
}

// TestErf64SliceMatchesScalar checks that Erf64s, on every instruction set,
// every length to 40, in place or not, returns Erf64's bits and writes
// nothing past len(src).
func TestErf64SliceMatchesScalar(t *testing.T) {
	in := erf64Inputs(20000)
	withLevels(t, func(t *testing.T) {
		dst := make([]float64, len(in)+1)
		dst[len(in)] = 42
		Erf64s(dst, in)
		for i, x := range in {
			if want := Erf64(x); math.Float64bits(dst[i]) != math.Float64bits(want) {
				t.Fatalf("erf(%v) = %v, scalar %v", x, dst[i], want)
			}
		}
		if dst[len(in)] != 42 {
			t.Fatal("wrote past the end")
		}
		for n := 0; n <= 40; n++ {
			src := in[len(in)-n-3 : len(in)-3]
			buf := make([]float64, n+4)
			for i := range buf {
				buf[i] = 42
			}
			Erf64s(buf, src)
			inPlace := append([]float64{}, src...)
			Erf64s(inPlace, inPlace)
			for i, x := range src {
				if want := Erf64(x); math.Float64bits(buf[i]) != math.Float64bits(want) || math.Float64bits(inPlace[i]) != math.Float64bits(want) {
					t.Fatalf("n=%d: erf(%v) = %v (in place %v), scalar %v", n, x, buf[i], inPlace[i], want)
				}
			}
			for i := n; i < len(buf); i++ {
				if buf[i] != 42 {
					t.Fatalf("n=%d: wrote past the end", n)
				}
			}
		}
	})
}

func FuzzErf64(f *testing.F) {
	for _, x := range erf64Specials {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		got := Erf64(x)
		if d := ulp64(got, math.Erf(x)); d > 2 {
			t.Fatalf("Erf64(%v) = %v is %d ulp from math.Erf", x, got, d)
		}
		src := []float64{x, x, x, x, x, x, x, x, x, x, x}
		dst := make([]float64, len(src))
		Erf64s(dst, src)
		for _, y := range dst {
			if math.Float64bits(y) != math.Float64bits(got) {
				t.Fatalf("Erf64s(%v) = %v, Erf64 %v", x, y, got)
			}
		}
	})
}

func BenchmarkErf64(b *testing.B) { benchFloat64(b, "erf", math.Erf, Erf64s) }
