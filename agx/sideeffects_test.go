package agx_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// The package doc says that agx works the same with the side effects of
// importing tensor turned off by the program: gonum's own BLAS, no heap
// floor and no recycling. A backward pass through products large enough
// for their gradients to be recycled gives the same gradients either way,
// and with recycling off no buffer is kept.
func TestBackwardWithImportSideEffectsOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		dt   agx.DType
		tol  float64
	}{
		{"f32", agx.Float32, 1e-4},
		{"f64", agx.Float64, 1e-12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			agx.ManualSeed(7)
			x := agx.Randn(tc.dt, 64, 128)
			w1 := agx.Randn(tc.dt, 128, 96).SetRequiresGrad(true)
			w2 := agx.Randn(tc.dt, 96, 64).SetRequiresGrad(true)
			grads := func() [][]float64 {
				w1.ZeroGrad()
				w2.ZeroGrad()
				x.MatMul(w1).Relu().MatMul(w2).Tanh().Sum().Backward()
				return [][]float64{w1.Grad().Float64s(), w2.Grad().Float64s()}
			}
			want := grads()

			prev32, prev64 := blas32.Implementation(), blas64.Implementation()
			tensor.UseFastGEMM(false)
			floor := tensor.SetHeapFloorMiB(0)
			recycling := tensor.SetRecycling(false)
			t.Cleanup(func() {
				blas32.Use(prev32)
				blas64.Use(prev64)
				tensor.SetHeapFloorMiB(floor)
				tensor.SetRecycling(recycling)
			})

			got := grads()
			if tensor.RecycledBytes() != 0 {
				t.Errorf("recycling off: %d bytes of recycled buffers kept", tensor.RecycledBytes())
			}
			// The two GEMMs sum in different orders: compare each gradient
			// against its largest element.
			for i := range want {
				scale := 0.0
				for _, v := range want[i] {
					scale = max(scale, math.Abs(v))
				}
				for j := range want[i] {
					if d := math.Abs(got[i][j] - want[i][j]); d > tc.tol*scale {
						t.Fatalf("gradient %d, element %d: %g with the side effects off, %g with them on", i, j, got[i][j], want[i][j])
					}
				}
			}
		})
	}
}
