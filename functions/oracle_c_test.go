package functions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// bcOracleCase is one PyTorch comparison: the inputs (seeded), which of them
// need a gradient, and the agx computation to compare.
type bcOracleCase struct {
	Name     string          `json:"name"`
	Op       string          `json:"op"`
	Inputs   []oracle.Tensor `json:"inputs"`
	Grad     []bool          `json:"grad"`
	Params   map[string]any  `json:"params,omitempty"`
	Upstream oracle.Tensor   `json:"upstream"`

	in  []*tensor.Tensor
	run func(in ...*agx.Tensor) *agx.Tensor
}

// gumbelSeed seeds the Gumbel noise of the oracle cases on both sides.
const gumbelSeed = 4242

// TestOracleC compares the B/C Functions with PyTorch (forward and gradients),
// in float64 and float32, with one Python run for all cases.
func TestOracleC(t *testing.T) {
	oracle.Skip(t)
	type spec struct {
		op     string
		shapes [][]int
		mask   []int // shape of a Bool mask input appended to the inputs
		// shape of uniform samples appended as a non-differentiable input
		// (the Gumbel noise source: agx draws the same samples from gumbelSeed)
		uniform []int
		params  map[string]any
		run     func(in ...*agx.Tensor) *agx.Tensor
	}
	specs := []struct {
		name string
		spec
	}{
		{"clipped_relu", spec{"clipped_relu", [][]int{{4, 8}}, nil, nil, map[string]any{"clip": 6.0},
			func(in ...*agx.Tensor) *agx.Tensor { return ClippedReLU(in[0], 6) }}},
		{"soft_threshold", spec{"soft_threshold", [][]int{{4, 8}}, nil, nil, map[string]any{"t": 0.5},
			func(in ...*agx.Tensor) *agx.Tensor { return SoftThreshold(in[0], 0.5) }}},
		{"fused_add_relu", spec{"fused_add_relu", [][]int{{4, 8}, {8}}, nil, nil, nil,
			func(in ...*agx.Tensor) *agx.Tensor { return FusedAddReLU(in[0], in[1]) }}},
		{"template_square", spec{"square", [][]int{{3, 5}}, nil, nil, nil,
			func(in ...*agx.Tensor) *agx.Tensor { return TemplateSquare(in[0]) }}},
		{"double_backward_square", spec{"square", [][]int{{3, 5}}, nil, nil, nil,
			func(in ...*agx.Tensor) *agx.Tensor { return DoubleBackwardSquare(in[0]) }}},
		{"once_square", spec{"square", [][]int{{3, 5}}, nil, nil, nil,
			func(in ...*agx.Tensor) *agx.Tensor { return OnceSquare(in[0]) }}},
		{"scaled_sigmoid_out", spec{"scaled_sigmoid", [][]int{{4, 6}}, nil, nil, map[string]any{"scale": 2.5},
			func(in ...*agx.Tensor) *agx.Tensor { return ScaledSigmoidOut(in[0], 2.5) }}},
		{"save_patterns/relu", spec{"save_patterns", [][]int{{4, 6}, {6}}, nil, nil, map[string]any{"alpha": 1.5, "relu": true},
			func(in ...*agx.Tensor) *agx.Tensor { return SavePatterns(in[0], in[1], 1.5, true) }}},
		{"save_patterns/linear", spec{"save_patterns", [][]int{{4, 6}, {4, 6}}, nil, nil, map[string]any{"alpha": -0.5, "relu": false},
			func(in ...*agx.Tensor) *agx.Tensor { return SavePatterns(in[0], in[1], -0.5, false) }}},
		{"weighted_sum", spec{"weighted_sum", [][]int{{5}, {5}}, nil, nil, map[string]any{"w1": 0.3, "w2": 0.7},
			func(in ...*agx.Tensor) *agx.Tensor { return WeightedSum(in[0], in[1], 0.3, 0.7) }}},
		{"sign_ste", spec{"sign_ste", [][]int{{4, 6}}, nil, nil, nil,
			func(in ...*agx.Tensor) *agx.Tensor { return SignSTE(in[0]) }}},
		{"sign_clipped_ste", spec{"sign_clipped_ste", [][]int{{4, 6}}, nil, nil, nil,
			func(in ...*agx.Tensor) *agx.Tensor { return SignClippedSTE(in[0]) }}},
		{"product_needs_grad", spec{"product", [][]int{{3, 4}, {3, 4}}, nil, nil, nil,
			func(in ...*agx.Tensor) *agx.Tensor { return ProductNeedsGrad(in[0], in[1]) }}},
		{"gumbel_softmax/soft", spec{"gumbel_softmax", [][]int{{4, 5}}, nil, []int{4, 5}, map[string]any{"tau": 0.7, "hard": false},
			func(in ...*agx.Tensor) *agx.Tensor {
				return GumbelSoftmax(in[0], 0.7, false, tensor.NewGenerator(gumbelSeed))
			}}},
		{"gumbel_softmax/hard", spec{"gumbel_softmax", [][]int{{4, 5}}, nil, []int{4, 5}, map[string]any{"tau": 0.7, "hard": true},
			func(in ...*agx.Tensor) *agx.Tensor {
				return GumbelSoftmax(in[0], 0.7, true, tensor.NewGenerator(gumbelSeed))
			}}},
	}
	var cases []*bcOracleCase
	seed := uint64(100)
	for _, s := range specs {
		for _, dt := range bcDTypes {
			c := &bcOracleCase{Name: s.name + "/" + dt.String(), Op: s.op, Params: s.params, run: s.run}
			for _, sh := range s.shapes {
				seed++
				x := tensor.NewGenerator(seed).Randn(dt, sh...)
				if s.op == "clipped_relu" {
					x = x.Mul(4) // reach both sides of the clip
				}
				c.in = append(c.in, x)
				c.Inputs = append(c.Inputs, oracle.Encode(x))
				c.Grad = append(c.Grad, true)
			}
			if s.uniform != nil {
				u := tensor.NewGenerator(gumbelSeed).Rand(dt, s.uniform...)
				c.in = append(c.in, u)
				c.Inputs = append(c.Inputs, oracle.Encode(u))
				c.Grad = append(c.Grad, false)
			}
			if s.mask != nil {
				// Random, with the diagonal always allowed so that no row is fully masked
				// (PyTorch gives NaN there).
				seed++
				m := tensor.NewGenerator(seed).Rand(tensor.Float64, s.mask...).Gt(0.4).
					LogicalOr(tensor.Eye(tensor.Float64, s.mask[len(s.mask)-1]).Gt(0))
				c.in = append(c.in, m)
				c.Inputs = append(c.Inputs, oracle.Encode(m))
				c.Grad = append(c.Grad, false)
			}
			cases = append(cases, c)
		}
	}
	for _, c := range cases {
		var shape []int
		if err := agx.Try(func() {
			ins := make([]*agx.Tensor, len(c.in))
			for i, x := range c.in {
				ins[i] = agx.New(x)
			}
			shape = c.run(ins...).Shape()
		}); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		seed++
		c.Upstream = oracle.Encode(tensor.NewGenerator(seed).Randn(c.in[0].DType(), shape...))
	}
	var out map[string]struct {
		Out   oracle.Tensor   `json:"out"`
		Grads []oracle.Tensor `json:"grads"`
	}
	if err := oracle.RunFile("testdata/oracle/c_functions.py", cases, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			want, ok := out[c.Name]
			if !ok {
				t.Fatal("no result from PyTorch")
			}
			rtol, atol := 1e-10, 1e-12
			if c.in[0].DType() == tensor.Float32 {
				rtol, atol = 1e-5, 1e-5
			}
			ins := make([]*agx.Tensor, len(c.in))
			for i, x := range c.in {
				ins[i] = agx.New(x.Clone()).SetRequiresGrad(c.Grad[i])
			}
			y := c.run(ins...)
			y.Mul(agx.New(c.Upstream.Decode().To(y.DType()))).Sum().Backward()
			bcClose(t, "forward", y.Data(), want.Out.Decode().To(y.DType()), rtol, atol)
			for i, x := range ins {
				if !c.Grad[i] {
					continue
				}
				g := x.Grad().Data()
				w := want.Grads[i].Decode().To(g.DType())
				bcClose(t, fmt.Sprintf("grad %d", i), g, w, rtol, atol)
			}
		})
	}
}
