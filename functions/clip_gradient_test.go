package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestClipGradient(t *testing.T) {
	for _, tc := range []struct {
		name     string
		x        []float64
		clip     float64
		loss     func(y *agx.Tensor) *agx.Tensor
		wantGrad []float64
	}{
		// example D8: d(Σy²)/dx = 2x = [2 4 6], clipped to 0.5
		{"D8", []float64{1, 2, 3}, 0.5, func(y *agx.Tensor) *agx.Tensor { return y.Pow(2).Sum() }, []float64{0.5, 0.5, 0.5}},
		{"negative", []float64{1, -0.1, 3}, 0.5, func(y *agx.Tensor) *agx.Tensor { return y.Pow(2).Sum() }, []float64{0.5, -0.2, 0.5}},
		{"inside", []float64{0.1, -0.2}, 1, func(y *agx.Tensor) *agx.Tensor { return y.Pow(2).Sum() }, []float64{0.2, -0.4}},
		{"zero-clip", []float64{1, 2}, 0, func(y *agx.Tensor) *agx.Tensor { return y.Sum() }, []float64{0, 0}},
	} {
		for _, dt := range fntest.DTypes {
			t.Run(tc.name+"/"+dt.String(), func(t *testing.T) {
				x := fntest.Vec(dt, tc.x).SetRequiresGrad(true)
				y := functions.ClipGradient(x, tc.clip)
				fntest.Values(t, "forward is the identity", y, tc.x, fntest.Tol(dt))
				tc.loss(y).Backward()
				fntest.Values(t, "gradient", x.Grad(), tc.wantGrad, fntest.Tol(dt))
			})
		}
	}
}

// Forward returns a copy: writing to the output leaves x alone.
func TestClipGradientCopies(t *testing.T) {
	x := agx.FromSlice([]float64{1, 2})
	y := functions.ClipGradient(x, 1)
	y.Data().Fill(7)
	fntest.Values(t, "x", x, []float64{1, 2}, 0)
}

func TestClipGradientMisuse(t *testing.T) {
	fntest.PanicsWith(t, func() { functions.ClipGradient(agx.FromSlice([]float64{1}), -1) }, "clip value must be ≥ 0")
}

func ExampleClipGradient() {
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	y := functions.ClipGradient(x, 0.5)
	y.Pow(2).Sum().Backward() // the unclipped gradient would be 2x = [2, 4, 6]
	fmt.Println(x.Grad())
	// Output:
	// tensor([0.5000, 0.5000, 0.5000], dtype=float64)
}
