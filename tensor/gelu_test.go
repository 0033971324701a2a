package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGELUFusedMatchesComposed checks that the fused GELU of a contiguous
// float tensor gives the bits of the ops it is made of, at lengths around
// its block and past the parallel split, specials included, and that a
// strided tensor (which composes) agrees.
func TestGELUFusedMatchesComposed(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, dt := range []DType{Float32, Float64} {
		for _, n := range []int{1, 15, 16, geluBlock - 1, geluBlock, geluBlock + 5, 3*geluBlock + 17, parallelMin + 3} {
			t.Run(fmt.Sprintf("%v/n=%d", dt, n), func(t *testing.T) {
				v := make([]float64, n)
				for i := range v {
					v[i] = r.NormFloat64() * 4
				}
				sp := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 40, -40, 1e-30}
				for i := 0; i < len(sp) && i < n; i++ {
					v[(i*7919)%n] = sp[i]
				}
				x := FromSlice(v).To(dt)
				got := x.GELU().Float64s()
				want := x.Mul(x.Mul(1 / math.Sqrt2).Erf().Add(1).Mul(0.5)).Float64s()
				strided := Stack(1, x, x).Select(1, 0).GELU().Float64s()
				for i := range want {
					if !sameValue(got[i], want[i]) || !sameValue(strided[i], want[i]) {
						t.Fatalf("x=%v: fused %v, strided %v, composed %v", v[i], got[i], strided[i], want[i])
					}
				}
			})
		}
	}
}

// TestCPUKernelsKeepTheInputsBackend checks that the fused CPU kernels
// (GELU, batch norm) put their results on their input's backend, not on
// the default one, which a program may have switched (as to a GPU).
func TestCPUKernelsKeepTheInputsBackend(t *testing.T) {
	x := FromSlice(make([]float32, 4*3*5), 4, 3, 5)
	g := FromSlice(make([]float32, 4*3*5), 4, 3, 5)
	prev := SetDefault(otherCPU{})
	defer SetDefault(prev)
	y, mean, invstd := BatchNormForward(x, nil, nil, 1e-5)
	dx, _, _ := BatchNormBackward(g, x, nil, mean, invstd, true)
	for name, r := range map[string]*Tensor{"GELU": x.GELU(), "BatchNormForward": y, "BatchNormBackward": dx} {
		if r.Backend().Name() != "cpu" {
			t.Errorf("%s: result on backend %q, want the input's (cpu)", name, r.Backend().Name())
		}
	}
}
