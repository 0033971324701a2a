package functions

import (
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// TestOracleC compares the B/C Functions with PyTorch (forward and gradients),
// in float64 and float32, with one Python run for all cases.
func TestOracleC(t *testing.T) {
	fntest.RunOracle(t, "testdata/oracle/c_functions.py", []fntest.OracleSpec{
		// Scale 4 reaches both sides of the clip.
		{Name: "clipped_relu", Op: "clipped_relu", Shapes: [][]int{{4, 8}}, Scale: 4, Params: map[string]any{"clip": 6.0},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return ClippedReLU(in[0], 6) }},
		{Name: "soft_threshold", Op: "soft_threshold", Shapes: [][]int{{4, 8}}, Params: map[string]any{"t": 0.5},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return SoftThreshold(in[0], 0.5) }},
		{Name: "fused_add_relu", Op: "fused_add_relu", Shapes: [][]int{{4, 8}, {8}},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return FusedAddReLU(in[0], in[1]) }},
		{Name: "template_square", Op: "square", Shapes: [][]int{{3, 5}},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return TemplateSquare(in[0]) }},
		{Name: "double_backward_square", Op: "square", Shapes: [][]int{{3, 5}},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return DoubleBackwardSquare(in[0]) }},
		{Name: "once_square", Op: "square", Shapes: [][]int{{3, 5}},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return OnceSquare(in[0]) }},
		{Name: "scaled_sigmoid_out", Op: "scaled_sigmoid", Shapes: [][]int{{4, 6}}, Params: map[string]any{"scale": 2.5},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return ScaledSigmoidOut(in[0], 2.5) }},
		{Name: "save_patterns/relu", Op: "save_patterns", Shapes: [][]int{{4, 6}, {6}}, Params: map[string]any{"alpha": 1.5, "relu": true},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return SavePatterns(in[0], in[1], 1.5, true) }},
		{Name: "save_patterns/linear", Op: "save_patterns", Shapes: [][]int{{4, 6}, {4, 6}}, Params: map[string]any{"alpha": -0.5, "relu": false},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return SavePatterns(in[0], in[1], -0.5, false) }},
		{Name: "weighted_sum", Op: "weighted_sum", Shapes: [][]int{{5}, {5}}, Params: map[string]any{"w1": 0.3, "w2": 0.7},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return WeightedSum(in[0], in[1], 0.3, 0.7) }},
		{Name: "sign_ste", Op: "sign_ste", Shapes: [][]int{{4, 6}},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return SignSTE(in[0]) }},
		{Name: "sign_clipped_ste", Op: "sign_clipped_ste", Shapes: [][]int{{4, 6}},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return SignClippedSTE(in[0]) }},
		{Name: "product_needs_grad", Op: "product", Shapes: [][]int{{3, 4}, {3, 4}},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return ProductNeedsGrad(in[0], in[1]) }},
		// The Gumbel noise: agx draws the same uniform samples as PyTorch is given.
		{Name: "gumbel_softmax/soft", Op: "gumbel_softmax", Shapes: [][]int{{4, 5}}, Uniform: []int{4, 5}, Params: map[string]any{"tau": 0.7, "hard": false},
			Run: func(in ...*agx.Tensor) *agx.Tensor {
				return GumbelSoftmax(in[0], 0.7, false, tensor.NewGenerator(fntest.UniformSeed))
			}},
		{Name: "gumbel_softmax/hard", Op: "gumbel_softmax", Shapes: [][]int{{4, 5}}, Uniform: []int{4, 5}, Params: map[string]any{"tau": 0.7, "hard": true},
			Run: func(in ...*agx.Tensor) *agx.Tensor {
				return GumbelSoftmax(in[0], 0.7, true, tensor.NewGenerator(fntest.UniformSeed))
			}},
	})
}
