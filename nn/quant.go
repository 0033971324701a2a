package nn

import (
	"fmt"
	"math"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/tensor"
)

// Quantisation schemes (the source's example C22, in the shape of PyTorch's
// eager-mode quantisation):
//
//   - weights: per-tensor symmetric int8, scale = max|W|/127, q = round(W/scale)
//     in [-127, 127], stored as []int8 (one byte per weight);
//   - activations: per-tensor affine uint8, from an observed range [min, max]
//     widened to contain 0: scale = (max-min)/255, zero point = round(-min/scale),
//     q = clamp(round(x/scale) + zero point, 0, 255);
//   - products: int32 accumulation of (qx - zx)·qw, rescaled by sx·sw, plus the
//     float bias.
//
// Dynamic quantisation (QuantizeDynamic) quantises the weights once and each
// input batch with its own range. Static quantisation (PrepareStatic, a
// calibration pass, Convert) fixes the input and output ranges from observers
// and also quantises every Linear's output. Quantisation-aware training
// (PrepareQAT, training, Convert) trains through functions.FakeQuantize, whose
// straight-through gradient lets the weights adapt to the rounding.

// QParams are the scale and zero point of an affine uint8 quantisation.
type QParams struct {
	Scale     float64
	ZeroPoint int
}

// qparams returns the uint8 affine parameters for the range [lo, hi].
func qparams(lo, hi float64) QParams {
	lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	s := (hi - lo) / 255
	if s < 1e-12 {
		s = 1e-12
	}
	zp := int(math.RoundToEven(-lo / s))
	return QParams{s, min(max(zp, 0), 255)}
}

// quantize returns q - zero point for v (an int in [-zp, 255-zp]).
func (p QParams) quantize(v float64) int32 {
	q := math.RoundToEven(v/p.Scale) + float64(p.ZeroPoint)
	return int32(min(max(q, 0), 255)) - int32(p.ZeroPoint)
}

// Observer records the range of the values that flow through it (PyTorch's
// MinMaxObserver; with Averaging > 0 a moving average of the batch extremes,
// as MovingAverageMinMaxObserver). As a module it is the identity.
type Observer struct {
	mode
	Min, Max  float64
	Seen      bool
	Averaging float64
}

// Observe records t's range.
func (o *Observer) Observe(t *tensor.Tensor) {
	lo, hi := t.Amin().Item(), t.Amax().Item()
	switch {
	case !o.Seen:
		o.Min, o.Max, o.Seen = lo, hi, true
	case o.Averaging > 0:
		o.Min += o.Averaging * (lo - o.Min)
		o.Max += o.Averaging * (hi - o.Max)
	default:
		o.Min, o.Max = math.Min(o.Min, lo), math.Max(o.Max, hi)
	}
}

// QParams returns the uint8 parameters for the observed range.
func (o *Observer) QParams() QParams { return qparams(o.Min, o.Max) }

// Forward records x's range and returns x.
func (o *Observer) Forward(x *agx.Tensor) *agx.Tensor { o.Observe(x.Data()); return x }

// Parameters returns nil.
func (o *Observer) Parameters() []Param { return nil }

// ObservedLinear is a Linear layer prepared for static quantisation (observers
// on its input and output) or for quantisation-aware training (QAT: input,
// weight and output pass through FakeQuantize in the forward).
type ObservedLinear struct {
	Linear  *Linear
	In, Out *Observer
	QAT     bool
}

// Forward runs the layer and records its input and output ranges (in QAT
// only in training mode; in eval mode the ranges are frozen).
func (l *ObservedLinear) Forward(x *agx.Tensor) *agx.Tensor {
	if !l.QAT {
		l.In.Observe(x.Data())
		y := l.Linear.Forward(x)
		l.Out.Observe(y.Data())
		return y
	}
	train := l.Linear.Training()
	if train {
		l.In.Observe(x.Data())
	}
	p := l.In.QParams()
	xq := functions.FakeQuantize(x, p.Scale, float64(p.ZeroPoint), 0, 255)
	sw := weightScale(l.Linear.Weight.Data())
	wq := functions.FakeQuantize(l.Linear.Weight, sw, 0, -127, 127)
	y := xq.MatMul(wq.T())
	if l.Linear.Bias != nil {
		y = y.Add(l.Linear.Bias)
	}
	if train {
		l.Out.Observe(y.Data())
	}
	p = l.Out.QParams()
	return functions.FakeQuantize(y, p.Scale, float64(p.ZeroPoint), 0, 255)
}

// Parameters are the Linear layer's.
func (l *ObservedLinear) Parameters() []Param { return l.Linear.Parameters() }

// Train sets the mode.
func (l *ObservedLinear) Train(on bool) { l.Linear.Train(on) }

// Training reports the mode.
func (l *ObservedLinear) Training() bool { return l.Linear.Training() }

func weightScale(w *tensor.Tensor) float64 {
	s := w.Abs().Amax().Item() / 127
	if s < 1e-12 {
		s = 1e-12
	}
	return s
}

// QuantLinear is a Linear layer with int8 weights: the result of
// QuantizeDynamic (Static false: each input is quantised with its own range,
// the output is float) or of Convert (Static true: fixed input and output
// quantisation). It runs without autograd.
type QuantLinear struct {
	mode
	In, Out   int
	Weight    []int8 // [Out, In], row-major
	WScale    float64
	Bias      *tensor.Tensor // nil without bias
	Static    bool
	InQ, OutQ QParams // Static only
}

func quantizeLinear(l *Linear) *QuantLinear {
	w := l.Weight.Data()
	s := weightScale(w)
	vals := w.Float64s()
	q := &QuantLinear{In: l.In, Out: l.Out, Weight: make([]int8, len(vals)), WScale: s}
	for i, v := range vals {
		q.Weight[i] = int8(min(max(math.RoundToEven(v/s), -127), 127))
	}
	if l.Bias != nil {
		q.Bias = l.Bias.Data().Clone()
	}
	return q
}

// Forward quantises x, multiplies with int32 accumulation and rescales.
func (q *QuantLinear) Forward(x *agx.Tensor) *agx.Tensor {
	if x.Dim() == 0 || x.Size(-1) != q.In {
		tensor.Panicf("nn.QuantLinear", tensor.ErrShape, "input shape %v does not fit QuantLinear(%d, %d)", x.Shape(), q.In, q.Out)
	}
	xs := x.Data().Float64s()
	p := q.InQ
	if !q.Static {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range xs {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		p = qparams(lo, hi)
	}
	qx := make([]int32, len(xs))
	for i, v := range xs {
		qx[i] = p.quantize(v)
	}
	var bias []float64
	if q.Bias != nil {
		bias = q.Bias.Float64s()
	}
	rows := len(xs) / q.In
	out := make([]float64, rows*q.Out)
	scale := p.Scale * q.WScale
	for r := range rows {
		xr := qx[r*q.In : (r+1)*q.In]
		for o := range q.Out {
			wr := q.Weight[o*q.In : (o+1)*q.In]
			var acc int32
			for k, v := range xr {
				acc += v * int32(wr[k])
			}
			y := float64(acc) * scale
			if bias != nil {
				y += bias[o]
			}
			if q.Static {
				y = float64(q.OutQ.quantize(y)) * q.OutQ.Scale
			}
			out[r*q.Out+o] = y
		}
	}
	shape := append(x.Shape()[:x.Dim()-1], q.Out)
	return agx.New(tensor.FromSlice(out, len(out)).Reshape(shape...).To(x.DType()))
}

// Parameters returns nil: the int8 weights are not trainable.
func (q *QuantLinear) Parameters() []Param { return nil }

// Bytes is the storage: one byte per weight, the float bias, the weight scale
// as a float32, and for static layers two scales and two zero points (4 bytes
// each).
func (q *QuantLinear) Bytes() int {
	n := len(q.Weight) + 4
	if q.Bias != nil {
		n += q.Bias.Numel() * q.Bias.DType().Size()
	}
	if q.Static {
		n += 16
	}
	return n
}

// String describes the layer like PyTorch's quantised Linear.
func (q *QuantLinear) String() string {
	kind := "DynamicQuantizedLinear"
	if q.Static {
		kind = "QuantizedLinear"
	}
	return fmt.Sprintf("%s(in_features=%d, out_features=%d, weight_scale=%.4g)", kind, q.In, q.Out, q.WScale)
}

func cloneLinear(l *Linear) *Linear {
	c := &Linear{In: l.In, Out: l.Out, Weight: agx.New(l.Weight.Data().Clone()).SetRequiresGrad(true)}
	if l.Bias != nil {
		c.Bias = agx.New(l.Bias.Data().Clone()).SetRequiresGrad(true)
	}
	c.Train(l.Training())
	return c
}

// mapLinear returns a new Sequential with every Linear replaced by f(layer);
// other layers are shared.
func mapLinear(m *Sequential, f func(*Linear) Module) *Sequential {
	out := &Sequential{}
	for _, l := range m.Layers {
		if lin, ok := l.(*Linear); ok {
			out.Layers = append(out.Layers, f(lin))
		} else {
			out.Layers = append(out.Layers, l)
		}
	}
	return out
}

// QuantizeDynamic returns a copy of m with every Linear layer replaced by a
// dynamically quantised QuantLinear (PyTorch's quantize_dynamic with
// {nn.Linear} and qint8).
func QuantizeDynamic(m *Sequential) *Sequential {
	return mapLinear(m, func(l *Linear) Module { return quantizeLinear(l) })
}

// PrepareStatic returns a copy of m whose Linear layers record their input and
// output ranges; run calibration data through it, then Convert.
func PrepareStatic(m *Sequential) *Sequential {
	return mapLinear(m, func(l *Linear) Module {
		return &ObservedLinear{Linear: cloneLinear(l), In: &Observer{}, Out: &Observer{}}
	})
}

// PrepareQAT returns a copy of m for quantisation-aware training: its Linear
// layers fake-quantise input, weights and output (ranges tracked by moving
// average observers, constant 0.01, while training). Train it, then Convert.
func PrepareQAT(m *Sequential) *Sequential {
	return mapLinear(m, func(l *Linear) Module {
		return &ObservedLinear{Linear: cloneLinear(l), In: &Observer{Averaging: 0.01}, Out: &Observer{Averaging: 0.01}, QAT: true}
	})
}

// Convert turns a model prepared with PrepareStatic (after calibration) or
// PrepareQAT (after training) into a statically quantised one. It fails when
// an observer has seen no data.
func Convert(m *Sequential) (*Sequential, error) {
	out := &Sequential{}
	for i, l := range m.Layers {
		ol, ok := l.(*ObservedLinear)
		if !ok {
			out.Layers = append(out.Layers, l)
			continue
		}
		if !ol.In.Seen || !ol.Out.Seen {
			return nil, fmt.Errorf("nn.Convert: layer %d has observed no data; run calibration batches through the prepared model first: %w", i, tensor.ErrArg)
		}
		q := quantizeLinear(ol.Linear)
		q.Static, q.InQ, q.OutQ = true, ol.In.QParams(), ol.Out.QParams()
		q.Train(false)
		out.Layers = append(out.Layers, q)
	}
	return out, nil
}
