package agx_test

import (
	"testing"

	"github.com/goagx/agx/agx"
)

// A scalar (0-d) output must get 0-d one-hot and random output gradients:
// building them with FromSlice/Randn and no shape gave [1] and made GradCheck
// and GradGradCheck fail on every scalar-valued function.
func TestGradCheckScalarOutput(t *testing.T) {
	x := agx.FromSlice([]float64{0.3, -1.2, 2}).SetRequiresGrad(true)
	sumSquares := func(x *agx.Tensor) *agx.Tensor { return x.Mul(x).Sum() }
	for _, tc := range []struct {
		name  string
		check func(any, []*agx.Tensor, ...agx.GradCheckOption) error
		opts  []agx.GradCheckOption
	}{
		{"GradCheck", agx.GradCheck, nil},
		{"GradCheck/fast", agx.GradCheck, []agx.GradCheckOption{agx.FastMode()}},
		{"GradGradCheck", agx.GradGradCheck, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.check(sumSquares, []*agx.Tensor{x}, tc.opts...); err != nil {
				t.Fatal(err)
			}
		})
	}
}
