package vmath

import (
	"math"
	"testing"
)

// kernel64 is a float64 kernel under test against Go's math: its scalar
// function and slice loop, the math function it must match within maxULP,
// and the inputs to try (inputs(n) draws n random values besides the
// specials).
type kernel64 struct {
	name     string
	scalar   func(float64) float64
	slice    func(dst, src []float64)
	ref      func(float64) float64
	maxULP   int64
	specials []float64
	inputs   func(n int) []float64
}

// checkMatchesMath checks k's scalar function against k.ref over k.inputs:
// within maxULP (the worst is logged, with a histogram), the same signed
// zeros, NaNs back unchanged.
func checkMatchesMath(t *testing.T, k kernel64) {
	n := 2000000
	if testing.Short() || raceEnabled {
		n = 100000
	}
	var worst int64
	var worstX float64
	var hist [4]int
	for _, x := range k.inputs(n) {
		got, want := k.scalar(x), k.ref(x)
		d := ulp64(got, want)
		if d > worst {
			worst, worstX = d, x
		}
		hist[min(d, 3)]++
		if got == 0 && math.Signbit(got) != math.Signbit(want) {
			t.Errorf("%s(%g) = %g, want %g", k.name, x, got, want)
		}
		if x != x && math.Float64bits(got) != math.Float64bits(x) {
			t.Errorf("%s(%#x) = %#x, want the NaN back", k.name, math.Float64bits(x), math.Float64bits(got))
		}
	}
	if worst > k.maxULP {
		t.Errorf("%s: %d ulp from math at x = %v", k.name, worst, worstX)
	}
	t.Logf("%s: at most %d ulp from math (0, 1, 2, more ulp: %v)", k.name, worst, hist)
}

// checkSliceMatchesScalar checks that k's slice loop, on every instruction
// set and every length to 40 at unaligned starts, in place or not, returns
// the scalar function's bits and writes nothing past len(src).
func checkSliceMatchesScalar(t *testing.T, k kernel64) {
	in := k.inputs(20000)
	withLevels(t, func(t *testing.T) {
		dst := make([]float64, len(in)+1)
		dst[len(in)] = 42
		k.slice(dst, in)
		for i, x := range in {
			if want := k.scalar(x); math.Float64bits(dst[i]) != math.Float64bits(want) {
				t.Fatalf("%s(%v) = %v, scalar %v", k.name, x, dst[i], want)
			}
		}
		if dst[len(in)] != 42 {
			t.Fatalf("%s wrote past the end", k.name)
		}
		// in place, the specials (out of range among them) included
		inPlace := append([]float64{}, in...)
		k.slice(inPlace, inPlace)
		for i, x := range in {
			if math.Float64bits(inPlace[i]) != math.Float64bits(dst[i]) {
				t.Fatalf("%s(%v) in place = %v, want %v", k.name, x, inPlace[i], dst[i])
			}
		}
		for n := 0; n <= 40; n++ {
			for off := 0; off < 3; off++ {
				checkShortSlice(t, k, in[len(in)-n-off-7:len(in)-off-7])
			}
		}
	})
}

// checkShortSlice checks k's slice loop on src, into a buffer with room
// past its end and in place, against the scalar function.
func checkShortSlice(t *testing.T, k kernel64, src []float64) {
	n := len(src)
	buf := make([]float64, n+4)
	for i := range buf {
		buf[i] = 42
	}
	k.slice(buf, src)
	inPlace := append([]float64{}, src...)
	k.slice(inPlace, inPlace)
	for i, x := range src {
		if want := k.scalar(x); math.Float64bits(buf[i]) != math.Float64bits(want) || math.Float64bits(inPlace[i]) != math.Float64bits(want) {
			t.Fatalf("n=%d: %s(%v) = %v (in place %v), scalar %v", n, k.name, x, buf[i], inPlace[i], want)
		}
	}
	for i := n; i < len(buf); i++ {
		if buf[i] != 42 {
			t.Fatalf("n=%d: %s wrote past the end", n, k.name)
		}
	}
}

// fuzzKernel64 fuzzes k from its specials: the scalar function within
// maxULP of k.ref, the slice loop equal to it.
func fuzzKernel64(f *testing.F, k kernel64) {
	for _, x := range k.specials {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		got := k.scalar(x)
		if d := ulp64(got, k.ref(x)); d > k.maxULP {
			t.Fatalf("%s(%v) = %v is %d ulp from math", k.name, x, got, d)
		}
		src := []float64{x, x, x, x, x, x, x, x, x, x, x}
		dst := make([]float64, len(src))
		k.slice(dst, src)
		for _, y := range dst {
			if math.Float64bits(y) != math.Float64bits(got) {
				t.Fatalf("%s slice(%v) = %v, scalar %v", k.name, x, y, got)
			}
		}
	})
}
