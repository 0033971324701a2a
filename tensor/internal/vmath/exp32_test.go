package vmath

import (
	"math"
	"testing"
)

// TestExpScaleDense checks, on every instruction set, every float32 where
// exp's and sigmoid's product by 2^k rounds (into the subnormals, to the
// smallest ones and zero, and to +Inf): the slice kernels must return the
// scalar Go kernels' bits there, whichever instructions scale.
func TestExpScaleDense(t *testing.T) {
	// ranges are [lo, hi] of float32 magnitudes, with their sign.
	ranges := []struct {
		lo, hi float32
		neg    bool
	}{
		{86, 105, true}, // e^x from normal to subnormal to 0; sigmoid's tiny values
		{88, 90, false}, // e^x from finite to +Inf
	}
	withLevels(t, func(t *testing.T) {
		for _, k := range kernels {
			if k.name != "exp" && k.name != "sigmoid" {
				continue
			}
			t.Run(k.name, func(t *testing.T) {
				for _, r := range ranges {
					var src []float32
					for u := math.Float32bits(r.lo); u <= math.Float32bits(r.hi); u++ {
						x := math.Float32frombits(u)
						if r.neg {
							x = -x
						}
						src = append(src, x)
					}
					// Chunks of 63 = 32 + 16 + 15 run every input range through
					// the two-step loop, the one-step loop and the tail.
					dst := make([]float32, len(src))
					for i := 0; i < len(src); i += 63 {
						j := min(i+63, len(src))
						k.slice(dst[i:j], src[i:j])
					}
					for i, x := range src {
						if want := k.scalar(x); math.Float32bits(dst[i]) != math.Float32bits(want) {
							t.Fatalf("%s(%g = %#08x) = %g (%#08x), Go kernel gives %g (%#08x)",
								k.name, x, math.Float32bits(x), dst[i], math.Float32bits(dst[i]), want, math.Float32bits(want))
						}
					}
				}
			})
		}
	})
}
