package nn

import (
	"fmt"
	"math"
	"strconv"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Param is a named trainable tensor of a module. Names follow PyTorch's
// state_dict keys: "weight", "bias", and "0.weight" for the first layer of a
// Sequential.
type Param struct {
	Name   string
	Tensor *agx.Tensor
}

// Module is a layer or a model: a forward computation on one tensor, its
// parameters, and a train/eval switch (used by observers and fake
// quantisation; the plain layers behave the same in both modes).
type Module interface {
	Forward(x *agx.Tensor) *agx.Tensor
	Parameters() []Param
	Train(on bool)
	Training() bool
}

// mode implements Train/Training for modules without children.
type mode struct{ eval bool }

// Train switches training mode on or off (PyTorch's train()/eval()).
func (m *mode) Train(on bool) { m.eval = !on }

// Training reports whether the module is in training mode (the default).
func (m *mode) Training() bool { return !m.eval }

// config holds the options of layer constructors.
type config struct {
	gen   *tensor.Generator
	dtype tensor.DType
	bias  bool
}

// Option configures a layer constructor.
type Option func(*config)

// WithGenerator draws the initial parameters from g instead of the default
// generator (seeded with agx.ManualSeed).
func WithGenerator(g *tensor.Generator) Option { return func(c *config) { c.gen = g } }

// WithDType sets the parameters' dtype (Float32 by default, like PyTorch).
func WithDType(dt tensor.DType) Option { return func(c *config) { c.dtype = dt } }

// NoBias leaves out the bias (PyTorch's bias=False).
func NoBias() Option { return func(c *config) { c.bias = false } }

func options(opts []Option) config {
	c := config{gen: tensor.DefaultGenerator(), dtype: tensor.Float32, bias: true}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Linear is y = x·Wᵀ + b with W [Out, In] and b [Out]; x is [..., In].
type Linear struct {
	mode
	In, Out int
	Weight  *agx.Tensor
	Bias    *agx.Tensor // nil without bias
}

// NewLinear makes a Linear layer initialised as PyTorch does: kaiming_uniform
// with a = √5 for the weight, which is U(-1/√In, 1/√In), and the same uniform
// bound for the bias. It panics when In or Out is not positive.
func NewLinear(in, out int, opts ...Option) *Linear {
	if in <= 0 || out <= 0 {
		tensor.Panicf("nn.Linear", tensor.ErrArg, "in and out features must be positive, got %d and %d", in, out)
	}
	c := options(opts)
	bound := 1 / math.Sqrt(float64(in))
	l := &Linear{In: in, Out: out}
	l.Weight = agx.New(c.gen.Uniform(c.dtype, -bound, bound, out, in)).SetRequiresGrad(true)
	if c.bias {
		l.Bias = agx.New(c.gen.Uniform(c.dtype, -bound, bound, out)).SetRequiresGrad(true)
	}
	return l
}

// Forward returns x·Wᵀ + b (a MatMul, a Transpose and an Add in the graph).
func (l *Linear) Forward(x *agx.Tensor) *agx.Tensor {
	if x.Dim() == 0 || x.Size(-1) != l.In {
		tensor.PanicHint("nn.Linear", tensor.ErrShape, fmt.Sprintf("the last dim of the input must be %d", l.In),
			"input shape %v does not fit Linear(%d, %d)", x.Shape(), l.In, l.Out)
	}
	y := x.MatMul(l.Weight.T())
	if l.Bias != nil {
		y = y.Add(l.Bias)
	}
	return y
}

// Parameters returns weight and bias.
func (l *Linear) Parameters() []Param {
	ps := []Param{{"weight", l.Weight}}
	if l.Bias != nil {
		ps = append(ps, Param{"bias", l.Bias})
	}
	return ps
}

// String prints like PyTorch: Linear(in_features=10, out_features=5, bias=True).
func (l *Linear) String() string {
	b := "True"
	if l.Bias == nil {
		b = "False"
	}
	return fmt.Sprintf("Linear(in_features=%d, out_features=%d, bias=%s)", l.In, l.Out, b)
}

// Activation is a parameter-free element-wise module.
type Activation struct {
	mode
	name string
	f    func(*agx.Tensor) *agx.Tensor
}

// Forward applies the activation.
func (a *Activation) Forward(x *agx.Tensor) *agx.Tensor { return a.f(x) }

// Parameters returns nil: activations have none.
func (a *Activation) Parameters() []Param { return nil }

// String is the module's name with "()", like PyTorch's ReLU().
func (a *Activation) String() string { return a.name + "()" }

// ReLU returns the max(x, 0) module.
func ReLU() *Activation { return &Activation{name: "ReLU", f: (*agx.Tensor).Relu} }

// Sigmoid returns the 1/(1+e^-x) module.
func Sigmoid() *Activation { return &Activation{name: "Sigmoid", f: (*agx.Tensor).Sigmoid} }

// Tanh returns the tanh module.
func Tanh() *Activation { return &Activation{name: "Tanh", f: (*agx.Tensor).Tanh} }

// Softmax returns the softmax-along-dim module.
func Softmax(dim int) *Activation {
	return &Activation{name: "Softmax", f: func(x *agx.Tensor) *agx.Tensor { return x.Softmax(dim) }}
}

// Func makes a parameter-free module from any function of one tensor, which is
// how a custom Function slots into a model:
//
//	nn.Func("SmoothL1", func(x *agx.Tensor) *agx.Tensor { return functions.SmoothL1(x, 1) })
func Func(name string, f func(*agx.Tensor) *agx.Tensor) *Activation {
	return &Activation{name: name, f: f}
}

// Sequential chains modules: the output of each is the input of the next.
// Parameters are named "<index>.<name>" as in PyTorch.
type Sequential struct {
	Layers []Module
}

// NewSequential makes a Sequential of the layers.
func NewSequential(layers ...Module) *Sequential { return &Sequential{Layers: layers} }

// Forward runs the layers in order.
func (s *Sequential) Forward(x *agx.Tensor) *agx.Tensor {
	for _, l := range s.Layers {
		x = l.Forward(x)
	}
	return x
}

// Parameters returns the layers' parameters, prefixed with the layer index.
func (s *Sequential) Parameters() []Param {
	var ps []Param
	for i, l := range s.Layers {
		for _, p := range l.Parameters() {
			ps = append(ps, Param{strconv.Itoa(i) + "." + p.Name, p.Tensor})
		}
	}
	return ps
}

// Train sets the mode of every layer.
func (s *Sequential) Train(on bool) {
	for _, l := range s.Layers {
		l.Train(on)
	}
}

// Training reports whether the first layer is in training mode (true when empty).
func (s *Sequential) Training() bool {
	for _, l := range s.Layers {
		return l.Training()
	}
	return true
}

// String lists the layers like PyTorch's repr.
func (s *Sequential) String() string {
	out := "Sequential(\n"
	for i, l := range s.Layers {
		out += fmt.Sprintf("  (%d): %v\n", i, l)
	}
	return out + ")"
}

// ZeroGrad clears the gradients of all parameters (set to nil, as PyTorch's
// zero_grad(set_to_none=True)).
func ZeroGrad(m Module) {
	for _, p := range m.Parameters() {
		p.Tensor.ZeroGrad()
	}
}

// ParamBytes is the storage of m's parameters in bytes (elements × element
// size), the "model size" the quantisation examples compare. Modules holding
// quantised weights implement Sizer to report their own storage.
func ParamBytes(m Module) int {
	if s, ok := m.(Sizer); ok {
		return s.Bytes()
	}
	if s, ok := m.(*Sequential); ok {
		n := 0
		for _, l := range s.Layers {
			n += ParamBytes(l)
		}
		return n
	}
	n := 0
	for _, p := range m.Parameters() {
		n += p.Tensor.Numel() * p.Tensor.DType().Size()
	}
	return n
}

// Sizer is implemented by modules that store more than (or other than) their
// float parameters, such as int8 weights with their scales.
type Sizer interface{ Bytes() int }
