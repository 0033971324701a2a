package vmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestTrig32Constants checks that pio2b32 is π/2 - pio2a rounded to
// float64, as trig32.go's reduction assumes.
func TestTrig32Constants(t *testing.T) {
	rest := new(big.Float).SetPrec(300).Sub(halfPi, new(big.Float).SetPrec(300).SetFloat64(pio2a))
	if want, _ := rest.Float64(); pio2b32 != want {
		t.Errorf("pio2b32 = %v, π/2 - pio2a rounds to %v", pio2b32, want)
	}
}

// TestTrig32NearMultiplesOfHalfPi checks Sin32 and Cos32 where the
// reduction loses the most, against refSinCos (300-bit reduction) rounded
// to float32: the float32 values nearest to k·π/2 and their neighbours,
// for every k up to 4096 and for random k up to 2^20·2/π, and in each
// binade from 1 to 2^20 the float32 closest to a multiple of π/2 (found by
// a search over every float32). At most 1 ulp, and the worst is logged.
func TestTrig32NearMultiplesOfHalfPi(t *testing.T) {
	var ks []float64
	for k := 1; k <= 4096; k++ {
		ks = append(ks, float64(k))
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		ks = append(ks, float64(rng.IntN(667544)+1))
	}
	var in []float32
	for _, x := range []float32{1.5707964, 3.1415927, 4.712389, 9.424778, 18.849556, 37.699112, 75.398224,
		252.89821, 505.79642, 1011.59283, 2023.1857, 2238.3848, 4476.7695, 8953.539, 17907.078,
		52516.434, 105032.87, 210065.73, 267058.94, 534117.9} {
		in = append(in, x, -x)
	}
	for _, k := range ks {
		x := float32(k * math.Pi / 2)
		for j := 0; j < 3; j++ {
			in = append(in, x, -x)
			x = math.Nextafter32(x, 0)
		}
	}
	for _, c := range []struct {
		name string
		f    func(float32) float32
		q0   int64
	}{{"sin", Sin32, 0}, {"cos", Cos32, 1}} {
		var worst int64
		var worstX float32
		for _, x := range in {
			want := float32(refSinCos(float64(x), c.q0))
			if d := ulpDiff(c.f(x), want); d > worst {
				worst, worstX = d, x
			}
		}
		if worst > 1 {
			t.Errorf("%s(%v) is %d ulp from the reference", c.name, worstX, worst)
		}
		t.Logf("%s: at most %d ulp over %d inputs near multiples of π/2", c.name, worst, len(in))
	}
}
