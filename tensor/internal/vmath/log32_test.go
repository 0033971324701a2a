package vmath

import (
	"math"
	"testing"
)

// TestLog32Dense checks Log32 against float32(math.Log) on every float32
// of the ranges where its error matters most: [1/2, 2], where the result
// is small and f = m - 1 carries it (relative accuracy near 1), and every
// subnormal, which is scaled by 2^23 first. At most 1 ulp; the worst is
// logged. (TestScalarMatchesMath sweeps the whole range.)
func TestLog32Dense(t *testing.T) {
	ranges := [][2]float32{{0.5, 2}, {math.SmallestNonzeroFloat32, 0x1p-126}}
	if testing.Short() || raceEnabled {
		ranges = [][2]float32{{0.99, 1.01}, {math.SmallestNonzeroFloat32, 0x1p-140}}
	}
	for _, r := range ranges {
		var worst int64
		var worstX float32
		for u := math.Float32bits(r[0]); u <= math.Float32bits(r[1]); u++ {
			x := math.Float32frombits(u)
			if d := ulpDiff(Log32(x), float32(math.Log(float64(x)))); d > worst {
				worst, worstX = d, x
			}
		}
		if worst > 1 {
			t.Errorf("[%g, %g]: Log32(%g) is %d ulp from float32(math.Log)", r[0], r[1], worstX, worst)
		}
		t.Logf("[%g, %g]: at most %d ulp", r[0], r[1], worst)
	}
}
