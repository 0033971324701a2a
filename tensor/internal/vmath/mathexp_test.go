package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMathExpKernels checks that the mathExp kernels return math.Exp's
// bits at every instruction level the CPU has, where math.Exp runs the
// routine they replicate: over exp64Inputs, every float64 within 30 of the
// edges of each k (the subnormal and overflow edges among them), and
// random bit patterns.
func TestMathExpKernels(t *testing.T) {
	if !mathExpKernels {
		t.Skip("math.Exp runs other code on this platform (not amd64, or no AVX and FMA); MathExps calls it")
	}
	n := 2000000
	if testing.Short() || raceEnabled {
		n = 100000
	}
	in := exp64Inputs(n)
	rng := rand.New(rand.NewPCG(13, 14))
	for range n {
		in = append(in, math.Float64frombits(rng.Uint64()))
	}
	for k := -1100; k <= 1030; k++ {
		x := (float64(k) + 0.5) * math.Ln2
		y := x
		for range 30 {
			x, y = math.Nextafter(x, math.Inf(1)), math.Nextafter(y, math.Inf(-1))
			in = append(in, x, y)
		}
	}
	got := make([]float64, len(in))
	withLevels(t, func(t *testing.T) {
		MathExps(got, in)
		for i, x := range in {
			if want := math.Exp(x); math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("MathExps(%v) = %v (%#x), math.Exp %v (%#x)", x, got[i], math.Float64bits(got[i]), want, math.Float64bits(want))
			}
		}
	})
}

// TestMathExps checks MathExps against math.Exp, bit for bit, at every
// instruction level, at every length to 40, in place and not.
func TestMathExps(t *testing.T) {
	in := exp64Inputs(20000)
	withLevels(t, func(t *testing.T) {
		for _, inPlace := range []bool{false, true} {
			for n := 0; n <= 40; n++ {
				src := append([]float64{}, in[len(in)-n-3:]...)
				src = append(src[:n:n], 7)
				dst := make([]float64, n+1)
				dst[n] = 42
				if inPlace {
					dst = src
				}
				MathExps(dst[:n], src[:n])
				for i, x := range in[len(in)-n-3 : len(in)-3] {
					if got, want := dst[i], math.Exp(x); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("in place %v, n = %d: MathExps(%v) = %v, math.Exp %v", inPlace, n, x, got, want)
					}
				}
				if !inPlace && dst[n] != 42 {
					t.Fatalf("n = %d: MathExps wrote past the end", n)
				}
			}
		}
		dst := make([]float64, len(in))
		MathExps(dst, in)
		for i, x := range in {
			if math.Float64bits(dst[i]) != math.Float64bits(math.Exp(x)) {
				t.Fatalf("MathExps(%v) = %v, math.Exp %v", x, dst[i], math.Exp(x))
			}
		}
	})
}

func BenchmarkMathExps(b *testing.B) { benchFloat64(b, "exp", math.Exp, MathExps) }
