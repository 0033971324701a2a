package nn

import (
	"math"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Optimizer updates parameters from their accumulated gradients.
type Optimizer interface {
	Step()
	ZeroGrad()
}

// SGD is stochastic gradient descent with PyTorch's update rule:
//
//	d = g + WeightDecay·p
//	buf = d (first step), else Momentum·buf + (1-Dampening)·d
//	d = d + Momentum·buf (Nesterov) or buf
//	p = p - LR·d
//
// Parameters without a gradient are skipped.
type SGD struct {
	Params                               []Param
	LR, Momentum, Dampening, WeightDecay float64
	Nesterov                             bool
	buf                                  map[*agx.Tensor]*tensor.Tensor
}

// NewSGD makes an SGD optimiser with learning rate lr (no momentum or decay;
// set the fields for them).
func NewSGD(params []Param, lr float64) *SGD { return &SGD{Params: params, LR: lr} }

// Step applies one update to every parameter that has a gradient.
func (o *SGD) Step() {
	if o.buf == nil {
		o.buf = map[*agx.Tensor]*tensor.Tensor{}
	}
	for _, p := range o.Params {
		withGrad(p.Tensor, o.step)
	}
}

func (o *SGD) step(p *agx.Tensor, d *tensor.Tensor) {
	// d is the borrowed gradient until a new tensor replaces it: only the
	// parameter and the momentum buffer, which the optimizer owns, are
	// updated in place.
	x := p.Data()
	if o.WeightDecay != 0 {
		d = x.Mul(o.WeightDecay).AddInPlace(d)
	}
	if o.Momentum != 0 {
		b, ok := o.buf[p]
		if !ok {
			b = d.Clone()
			o.buf[p] = b
		} else {
			b.ScaleAddInPlace(o.Momentum, 1-o.Dampening, d)
		}
		if o.Nesterov {
			d = b.Mul(o.Momentum).AddInPlace(d)
		} else {
			d = b
		}
	}
	x.AddScaledInPlace(-o.LR, d)
	p.BumpVersion()
}

// ZeroGrad clears the parameters' gradients.
func (o *SGD) ZeroGrad() { zeroGrads(o.Params) }

// withGrad calls step with p's gradient in p's dtype, when p has one. The
// gradient is borrowed (agx.Tensor.BorrowGrad), so the optimizers' step
// functions compute new tensors from it and keep none that shares its
// memory: the gradient stays the engine's, which may then add the next
// pass into it in place and recycle it on ZeroGrad.
func withGrad(p *agx.Tensor, step func(p *agx.Tensor, g *tensor.Tensor)) {
	p.BorrowGrad(func(g *agx.Tensor) {
		if g != nil {
			step(p, g.Data().To(p.DType()))
		}
	})
}

func zeroGrads(ps []Param) {
	for _, p := range ps {
		p.Tensor.ZeroGrad()
	}
}

// Adam is PyTorch's Adam (not AdamW: weight decay is added to the gradient):
//
//	g = g + WeightDecay·p
//	m = β1·m + (1-β1)·g,  v = β2·v + (1-β2)·g²
//	p = p - LR/(1-β1^t) · m / (√v/√(1-β2^t) + Eps)
//
// With AMSGrad, the running maximum of v replaces v in the denominator.
type Adam struct {
	Params           []Param
	LR, Beta1, Beta2 float64
	Eps, WeightDecay float64
	AMSGrad          bool
	state            map[*agx.Tensor]*adamState
}

type adamState struct {
	step       int
	m, v, vmax *tensor.Tensor
}

// NewAdam makes an Adam optimiser with PyTorch's defaults: lr 1e-3, betas
// (0.9, 0.999), eps 1e-8, no weight decay.
func NewAdam(params []Param) *Adam {
	return &Adam{Params: params, LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
}

// Step applies one update to every parameter that has a gradient.
func (o *Adam) Step() {
	if o.state == nil {
		o.state = map[*agx.Tensor]*adamState{}
	}
	for _, p := range o.Params {
		withGrad(p.Tensor, o.step)
	}
}

func (o *Adam) step(p *agx.Tensor, d *tensor.Tensor) {
	// As in SGD.step, d is never written; the moments and the parameter are
	// the optimizer's own and are updated in place.
	x := p.Data()
	if o.WeightDecay != 0 {
		d = x.Mul(o.WeightDecay).AddInPlace(d)
		defer tensor.Recycle(d) // a temporary now, not the gradient
	}
	s := o.state[p]
	if s == nil {
		s = &adamState{m: tensor.ZerosLike(x), v: tensor.ZerosLike(x)}
		if o.AMSGrad {
			s.vmax = tensor.ZerosLike(x)
		}
		o.state[p] = s
	}
	s.step++
	s.m.ScaleAddInPlace(o.Beta1, 1-o.Beta1, d)
	// The temporaries (d², the denominator) go back to the tensor
	// package's free buffers at once, so the next parameter's (and the
	// next step's) are written into memory that is still in cache.
	dd := d.Mul(d)
	s.v.ScaleAddInPlace(o.Beta2, 1-o.Beta2, dd)
	tensor.Recycle(dd)
	bc1 := 1 - math.Pow(o.Beta1, float64(s.step))
	bc2 := 1 - math.Pow(o.Beta2, float64(s.step))
	v := s.v
	if o.AMSGrad {
		tensor.BinaryTo(s.vmax, tensor.OpMaximum, s.vmax, s.v)
		v = s.vmax
	}
	denom := v.Sqrt().DivInPlace(math.Sqrt(bc2)).AddInPlace(o.Eps)
	x.AddScaledInPlace(-o.LR/bc1, tensor.BinaryTo(denom, tensor.OpDiv, s.m, denom))
	tensor.Recycle(denom)
	p.BumpVersion()
}

// ZeroGrad clears the parameters' gradients.
func (o *Adam) ZeroGrad() { zeroGrads(o.Params) }
