package fntest

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// UniformSeed seeds the uniform samples of OracleSpec.Uniform: a Function
// that draws its own noise draws the same samples as PyTorch is given when
// its generator has this seed.
const UniformSeed = 4242

// OracleSpec is one computation to compare with PyTorch.
type OracleSpec struct {
	Name string // the case name (the dtype is appended)
	Op   string // the op of the Python script
	// Shapes are the shapes of the seeded randn inputs, which need a
	// gradient; Scale, when not 0, multiplies them.
	Shapes [][]int
	Scale  float64
	// Mask, when set, is the shape of a Bool mask input appended to the
	// inputs (random, its last two dimensions' diagonal always true).
	Mask []int
	// Uniform, when set, is the shape of uniform samples (from UniformSeed)
	// appended as a non-differentiable input (a noise source).
	Uniform []int
	Params  map[string]any // passed to the script
	Run     func(in ...*agx.Tensor) *agx.Tensor
}

// oracleCase is one PyTorch comparison: the inputs (seeded), which of them
// need a gradient, and the agx computation to compare.
type oracleCase struct {
	Name     string          `json:"name"`
	Op       string          `json:"op"`
	Inputs   []oracle.Tensor `json:"inputs"`
	Grad     []bool          `json:"grad"`
	Params   map[string]any  `json:"params,omitempty"`
	Upstream oracle.Tensor   `json:"upstream"`

	in  []*tensor.Tensor
	run func(in ...*agx.Tensor) *agx.Tensor
}

// RunOracle compares the specs with PyTorch (forward and gradients for a
// seeded upstream gradient), in every dtype of DTypes, with one run of the
// Python script for all cases. It skips where oracle.Skip does.
func RunOracle(t *testing.T, script string, specs []OracleSpec) {
	t.Helper()
	oracle.Skip(t)
	seed := uint64(100)
	var cases []*oracleCase
	for _, s := range specs {
		for _, dt := range DTypes {
			cases = append(cases, newOracleCase(s, dt, &seed))
		}
	}
	for _, c := range cases {
		setUpstream(t, c, &seed)
	}
	var out map[string]oracleResult
	if err := oracle.RunFile(script, cases, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			want, ok := out[c.Name]
			if !ok {
				t.Fatal("no result from PyTorch")
			}
			checkOracleCase(t, c, want)
		})
	}
}

// oracleResult is PyTorch's answer to one oracleCase: the forward result
// and the gradients of the inputs that need one.
type oracleResult struct {
	Out   oracle.Tensor   `json:"out"`
	Grads []oracle.Tensor `json:"grads"`
}

// newOracleCase builds the case of spec s in dtype dt: its seeded randn
// inputs (each seed one past *seed, which it advances), then its uniform
// samples and its mask where s asks for them.
func newOracleCase(s OracleSpec, dt tensor.DType, seed *uint64) *oracleCase {
	c := &oracleCase{Name: s.Name + "/" + dt.String(), Op: s.Op, Params: s.Params, run: s.Run}
	for _, sh := range s.Shapes {
		*seed++
		x := tensor.NewGenerator(*seed).Randn(dt, sh...)
		if s.Scale != 0 {
			x = x.Mul(s.Scale)
		}
		c.add(x, true)
	}
	if s.Uniform != nil {
		c.add(tensor.NewGenerator(UniformSeed).Rand(dt, s.Uniform...), false)
	}
	if s.Mask != nil {
		// Random, with the diagonal always allowed so that no row is fully masked
		// (PyTorch gives NaN there).
		*seed++
		m := tensor.NewGenerator(*seed).Rand(tensor.Float64, s.Mask...).Gt(0.4).
			LogicalOr(tensor.Eye(tensor.Float64, s.Mask[len(s.Mask)-1]).Gt(0))
		c.add(m, false)
	}
	return c
}

// add appends the input x to the case, with whether it needs a gradient.
func (c *oracleCase) add(x *tensor.Tensor, grad bool) {
	c.in = append(c.in, x)
	c.Inputs = append(c.Inputs, oracle.Encode(x))
	c.Grad = append(c.Grad, grad)
}

// setUpstream runs the agx computation of c once for the shape of its
// output and gives c a seeded randn upstream gradient of that shape (the
// seed one past *seed, which it advances).
func setUpstream(t *testing.T, c *oracleCase, seed *uint64) {
	t.Helper()
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
	*seed++
	c.Upstream = oracle.Encode(tensor.NewGenerator(*seed).Randn(c.in[0].DType(), shape...))
}

// checkOracleCase runs the agx computation of c forward and backward (the
// upstream gradient c.Upstream) and compares its output and input
// gradients with PyTorch's, within 1e-10 relative (1e-12 absolute), or
// 1e-5 in float32.
func checkOracleCase(t *testing.T, c *oracleCase, want oracleResult) {
	t.Helper()
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
	CloseData(t, "forward", y.Data(), want.Out.Decode().To(y.DType()), rtol, atol)
	for i, x := range ins {
		if !c.Grad[i] {
			continue
		}
		g := x.Grad().Data()
		w := want.Grads[i].Decode().To(g.DType())
		CloseData(t, fmt.Sprintf("grad %d", i), g, w, rtol, atol)
	}
}
