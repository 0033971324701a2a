package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

var tanh64Specials = []float64{
	0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff0000000000001),
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, 1e-300, 1e-9, -1e-9, 0x1p-28,
	0.17328679513998632, 0.34657359027997264, 0.625, 1, -1, 5, 19, 19.1, 20, 21, -40, 1e300, math.MaxFloat64,
}

// tanh64Inputs are the specials, random values over scales 1e-8 to 100, and
// every float64 near the points where k = round(2|x|·log2 e) steps.
func tanh64Inputs(n int) []float64 {
	rng := rand.New(rand.NewPCG(7, 8))
	in := append([]float64{}, tanh64Specials...)
	for i := 0; i < n; i++ {
		scale := math.Pow(10, float64(rng.IntN(11)-8))
		in = append(in, (2*rng.Float64()-1)*scale)
	}
	for k := 1; k <= 60; k++ {
		x := (float64(k) - 0.5) * math.Ln2 / 2
		for j := 0; j < 50; j++ {
			in = append(in, x, -x)
			x = math.Nextafter(x, 0)
		}
	}
	return in
}

// TestTanh64MatchesMath checks Tanh64 against math.Tanh: within 2 ulp over
// tanh64Inputs (the worst is logged), the same signed zeros, NaNs back
// unchanged, ±1 at ±Inf.
func TestTanh64MatchesMath(t *testing.T) {
	n := 2000000
	if testing.Short() || raceEnabled {
		n = 100000
	}
	var worst int64
	var worstX float64
	var hist [4]int
	for _, x := range tanh64Inputs(n) {
		got, want := Tanh64(x), math.Tanh(x)
		d := ulp64(got, want)
		if d > worst {
			worst, worstX = d, x
		}
		hist[min(d, 3)]++
		if got == 0 && math.Signbit(got) != math.Signbit(want) {
			t.Errorf("Tanh64(%g) = %g, want %g", x, got, want)
		}
		if x != x && math.Float64bits(got) != math.Float64bits(x) {
			t.Errorf("Tanh64(%#x) = %#x, want the NaN back", math.Float64bits(x), math.Float64bits(got))
		}
	}
	if worst > 2 {
		t.Errorf("tanh: %d ulp from math.Tanh at x = %v", worst, worstX)
	}
	t.Logf("tanh: at most %d ulp from math.Tanh (0, 1, 2, more ulp: %v)", worst, hist)
}

// TestTanh64SliceMatchesScalar checks that Tanh64s, on every instruction
// set, every length to 40, in place or not, returns Tanh64's bits and
// writes nothing past len(src).
func TestTanh64SliceMatchesScalar(t *testing.T) {
	in := tanh64Inputs(20000)
	withLevels(t, func(t *testing.T) {
		dst := make([]float64, len(in)+1)
		dst[len(in)] = 42
		Tanh64s(dst, in)
		for i, x := range in {
			if want := Tanh64(x); math.Float64bits(dst[i]) != math.Float64bits(want) {
				t.Fatalf("tanh(%v) = %v, scalar %v", x, dst[i], want)
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
			Tanh64s(buf, src)
			inPlace := append([]float64{}, src...)
			Tanh64s(inPlace, inPlace)
			for i, x := range src {
				if want := Tanh64(x); math.Float64bits(buf[i]) != math.Float64bits(want) || math.Float64bits(inPlace[i]) != math.Float64bits(want) {
					t.Fatalf("n=%d: tanh(%v) = %v (in place %v), scalar %v", n, x, buf[i], inPlace[i], want)
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

func FuzzTanh64(f *testing.F) {
	for _, x := range tanh64Specials {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		got := Tanh64(x)
		if d := ulp64(got, math.Tanh(x)); d > 2 {
			t.Fatalf("Tanh64(%v) = %v is %d ulp from math.Tanh", x, got, d)
		}
		src := []float64{x, x, x, x, x, x, x, x, x, x, x}
		dst := make([]float64, len(src))
		Tanh64s(dst, src)
		for _, y := range dst {
			if math.Float64bits(y) != math.Float64bits(got) {
				t.Fatalf("Tanh64s(%v) = %v, Tanh64 %v", x, y, got)
			}
		}
	})
}

func BenchmarkTanh64(b *testing.B) { benchFloat64(b, "tanh", math.Tanh, Tanh64s) }
