package solutions

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

// TestOracleC compares the reference solutions with PyTorch (forward and gradients),
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
		{"gelu", spec{"gelu", [][]int{{8, 16}}, nil, nil, nil, func(in ...*agx.Tensor) *agx.Tensor { return GELU(in[0]) }}},
		{"gelu_tanh", spec{"gelu_tanh", [][]int{{8, 16}}, nil, nil, nil, func(in ...*agx.Tensor) *agx.Tensor { return GELUTanh(in[0]) }}},
		{"silu", spec{"silu", [][]int{{8, 16}}, nil, nil, nil, func(in ...*agx.Tensor) *agx.Tensor { return SiLU(in[0]) }}},
		{"batch_norm/2d", spec{"batch_norm", [][]int{{16, 8}}, nil, nil, map[string]any{"eps": 1e-5},
			func(in ...*agx.Tensor) *agx.Tensor { return BatchNorm(in[0], 1e-5) }}},
		{"batch_norm/3d", spec{"batch_norm", [][]int{{6, 3, 4}}, nil, nil, map[string]any{"eps": 1e-3},
			func(in ...*agx.Tensor) *agx.Tensor { return BatchNorm(in[0], 1e-3) }}},
		{"attention", spec{"attention", [][]int{{2, 3, 5, 4}, {2, 3, 6, 4}, {2, 3, 6, 3}}, nil, nil, nil,
			func(in ...*agx.Tensor) *agx.Tensor { return ScaledDotProductAttention(in[0], in[1], in[2], nil) }}},
		{"attention/mask", spec{"attention", [][]int{{2, 3, 5, 4}, {2, 3, 5, 4}, {2, 3, 5, 3}}, []int{2, 1, 5, 5}, nil, nil,
			func(in ...*agx.Tensor) *agx.Tensor { return ScaledDotProductAttention(in[0], in[1], in[2], in[3]) }}},
		{"linear", spec{"linear", [][]int{{5, 4}, {3, 4}, {3}}, nil, nil, nil,
			func(in ...*agx.Tensor) *agx.Tensor { return MyLinear(in[0], in[1], in[2]) }}},
		{"soft_rank", spec{"soft_rank", [][]int{{3, 7}}, nil, nil, map[string]any{"tau": 0.5},
			func(in ...*agx.Tensor) *agx.Tensor { return SoftRank(in[0], 0.5) }}},
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
	if err := oracle.RunFile("../testdata/oracle/c_functions.py", cases, &out); err != nil {
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
