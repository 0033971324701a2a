package solutions

import (
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
)

// TestOracleC compares the reference solutions with PyTorch (forward and gradients),
// in float64 and float32, with one Python run for all cases.
func TestOracleC(t *testing.T) {
	fntest.RunOracle(t, "../testdata/oracle/c_functions.py", []fntest.OracleSpec{
		{Name: "gelu", Op: "gelu", Shapes: [][]int{{8, 16}}, Run: func(in ...*agx.Tensor) *agx.Tensor { return GELU(in[0]) }},
		{Name: "gelu_tanh", Op: "gelu_tanh", Shapes: [][]int{{8, 16}}, Run: func(in ...*agx.Tensor) *agx.Tensor { return GELUTanh(in[0]) }},
		{Name: "silu", Op: "silu", Shapes: [][]int{{8, 16}}, Run: func(in ...*agx.Tensor) *agx.Tensor { return SiLU(in[0]) }},
		{Name: "batch_norm/2d", Op: "batch_norm", Shapes: [][]int{{16, 8}}, Params: map[string]any{"eps": 1e-5},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return BatchNorm(in[0], 1e-5) }},
		{Name: "batch_norm/3d", Op: "batch_norm", Shapes: [][]int{{6, 3, 4}}, Params: map[string]any{"eps": 1e-3},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return BatchNorm(in[0], 1e-3) }},
		{Name: "attention", Op: "attention", Shapes: [][]int{{2, 3, 5, 4}, {2, 3, 6, 4}, {2, 3, 6, 3}},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return ScaledDotProductAttention(in[0], in[1], in[2], nil) }},
		{Name: "attention/mask", Op: "attention", Shapes: [][]int{{2, 3, 5, 4}, {2, 3, 5, 4}, {2, 3, 5, 3}}, Mask: []int{2, 1, 5, 5},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return ScaledDotProductAttention(in[0], in[1], in[2], in[3]) }},
		{Name: "linear", Op: "linear", Shapes: [][]int{{5, 4}, {3, 4}, {3}},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return MyLinear(in[0], in[1], in[2]) }},
		{Name: "soft_rank", Op: "soft_rank", Shapes: [][]int{{3, 7}}, Params: map[string]any{"tau": 0.5},
			Run: func(in ...*agx.Tensor) *agx.Tensor { return SoftRank(in[0], 0.5) }},
	})
}
