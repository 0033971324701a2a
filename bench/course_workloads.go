package bench

import (
	"math"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/solutions"
	"github.com/goagx/agx/nn"
	"github.com/goagx/agx/tensor"
)

// The course as a benchmark (issue #38 item 1): the code users meet in the
// notebooks, written the way the notebooks write it, each timed against the
// PyTorch code of the seed documents for the same computation
// (bench/torch_workloads.py, "the course"). Every name starts with
// "course_", so `agx bench -run course` runs the group.
//
// The exercise solutions (notebooks/exercises) and the lesson examples are
// copied here from the notebooks, names prefixed with "course"; the seed
// Functions that lessons 01-05 teach are called from package functions,
// their reference implementations. Element-wise steps run on a [256,512]
// float32 x with a random upstream gradient, forward and backward.
func init() { course = courseWorkloads() }

func courseWorkloads() []Workload {
	un := func(name, desc string, f func(x *agx.Tensor) *agx.Tensor) Workload {
		return Workload{Name: name, Desc: desc, Ops: 1, Setup: func() func() { return courseUnaryStep(f) }}
	}
	return []Workload{
		// Seed Functions (lessons 01-05), from package functions.
		un("course_square", "seed SquaredFunction (functions.Square), [256,512] f32, fwd+bwd", functions.Square),
		un("course_my_exp", "seed MyExp (functions.MyExp), [256,512] f32, fwd+bwd", functions.MyExp),
		{Name: "course_scaled_sigmoid", Desc: "seed ScaledSigmoid (functions.ScaledSigmoid) with a scalar learnable scale, [256,512] f32, fwd+bwd", Ops: 1, Setup: courseScaledSigmoid},
		un("course_straight_through_round", "seed StraightThroughRound (functions.StraightThroughRound), [256,512] f32, fwd+bwd", functions.StraightThroughRound),
		un("course_fake_quantize", "seed FakeQuantize (functions.FakeQuantize, scale 0.01, zero point 0, int8), [256,512] f32, fwd+bwd",
			func(x *agx.Tensor) *agx.Tensor { return functions.FakeQuantize(x, 0.01, 0, -128, 127) }),
		un("course_clip_gradient", "seed ClipGradient (functions.ClipGradient, 0.5), [256,512] f32, fwd+bwd",
			func(x *agx.Tensor) *agx.Tensor { return functions.ClipGradient(x, 0.5) }),
		un("course_differentiable_clamp", "seed DifferentiableClamp (functions.DifferentiableClamp, [-1,1]), [256,512] f32, fwd+bwd",
			func(x *agx.Tensor) *agx.Tensor { return functions.DifferentiableClamp(x, -1, 1) }),
		{Name: "course_my_linear", Desc: "seed MyLinearFunction (solutions.MyLinear), x[64,256]·W[128,256]ᵀ+b, f32, fwd+bwd", Ops: 1, Setup: courseMyLinear},
		{Name: "course_masked_linear", Desc: "seed MaskedLinear (functions.MaskedLinear), x[64,256], W[128,256], Bool mask, f32, fwd+bwd", Ops: 1, Setup: courseMaskedLinear},
		// Exercise solutions (notebooks/exercises), as the notebooks write them.
		un("course_my_sigmoid", "exercise sigmoid-linear: MySigmoid, 1/(1+e⁻ˣ) saving y, [256,512] f32, fwd+bwd",
			func(x *agx.Tensor) *agx.Tensor { return agx.Apply(courseMySigmoid{}, x) }),
		un("course_gelu", "exercise gelu: GELUFunction, x·Φ(x) with erf, [256,512] f32, fwd+bwd",
			func(x *agx.Tensor) *agx.Tensor { return agx.Apply(courseGELU{}, x) }),
		un("course_gelu_tanh", "exercise gelu (bonus): GELUTanh composed from ops, [256,512] f32, fwd+bwd", courseGELUTanh),
		un("course_silu", "exercise silu: SiLUFunction saving x and y, [256,512] f32, fwd+bwd",
			func(x *agx.Tensor) *agx.Tensor { return agx.Apply(courseSiLU{}, x) }),
		un("course_batchnorm_function", "exercise batchnorm: BatchNormFunction over dim 0, [256,512] f32, fwd+bwd",
			func(x *agx.Tensor) *agx.Tensor { return agx.Apply(courseBatchNorm{Eps: 1e-5}, x) }),
		un("course_batchnorm_composite", "batch norm composed as the course writes it: mean(0), ((x-mean)**2).mean(0), (x-mean)/sqrt(var+eps), [256,512] f32, fwd+bwd",
			func(x *agx.Tensor) *agx.Tensor {
				mean := x.Mean(0)
				variance := x.Sub(mean).Pow(2).Mean(0)
				return x.Sub(mean).Div(variance.Add(1e-5).Sqrt())
			}),
		{Name: "course_soft_rank", Desc: "exercise soft-rank: SoftRankFunction, τ 0.5, x[32,64] f32 (pairs [32,64,64]), fwd+bwd", Ops: 1, Setup: courseSoftRank},
		{Name: "course_logsumexp", Desc: "lesson 03 / exercise logsumexp-jvp: StableLogSumExp over the last dim, [256,512] f32, fwd+bwd", Ops: 1, Setup: courseLogSumExp},
		{Name: "course_attention", Desc: "exercise attention: AttentionFunction, no mask, B2 H4 S128 D64 f32, fwd+bwd",
			Flops: 6 * 2 * (2 * 4 * 128 * 128 * 64), Ops: 1, Setup: func() func() { return courseAttention(false, false) }},
		{Name: "course_attention_causal", Desc: "exercise attention: AttentionFunction with a causal Bool mask, B2 H4 S128 D64 f32, fwd+bwd",
			Flops: 6 * 2 * (2 * 4 * 128 * 128 * 64), Ops: 1, Setup: func() func() { return courseAttention(true, false) }},
		{Name: "course_attention_composite", Desc: "exercise attention: compositeAttention (built-in ops, autograd), B2 H4 S128 D64 f32, fwd+bwd",
			Flops: 6 * 2 * (2 * 4 * 128 * 128 * 64), Ops: 1, Setup: func() func() { return courseAttention(false, true) }},
		// Lesson 09: practical Functions and the D11 training loop.
		un("course_clipped_relu", "lesson 09 C11: ClippedReLU (cap 6), [256,512] f32, fwd+bwd",
			func(x *agx.Tensor) *agx.Tensor { return agx.Apply(courseClippedReLU{Cap: 6}, x) }),
		un("course_soft_threshold", "lesson 09 C12: SoftThreshold (T 1), [256,512] f32, fwd+bwd",
			func(x *agx.Tensor) *agx.Tensor { return agx.Apply(courseSoftThreshold{T: 1}, x) }),
		{Name: "course_smoothl1_train", Desc: "lesson 09 D11: 200 steps of SGD on a line with SmoothL1Loss (β 0.5), 20 f64 points, per loop", Ops: 1, Setup: courseSmoothL1Train},
		// Lesson 10: fusion (example A8), n = 100000 float64, x.Detach() each step.
		{Name: "course_tanhxsin_composed", Desc: "lesson 10 A8: tanh(x)·x + sin(x) composed, 1e5 f64, fwd + sum + bwd", Ops: 1, Setup: func() func() { return courseFusionStep(courseComposed) }},
		{Name: "course_tanhxsin_fused", Desc: "lesson 10 A8: TanhXSin Function of agx ops, 1e5 f64, fwd + sum + bwd", Ops: 1,
			Setup: func() func() {
				return courseFusionStep(func(x *agx.Tensor) *agx.Tensor { return agx.Apply(courseTanhXSin{}, x) })
			}},
		{Name: "course_tanhxsin_loop", Desc: "lesson 10 A8: TanhXSinLoop Function (one Go loop for the value and f', saved), 1e5 f64, fwd + sum + bwd; PyTorch side: the fused Function", Ops: 1,
			Setup: func() func() {
				return courseFusionStep(func(x *agx.Tensor) *agx.Tensor { return agx.Apply(courseTanhXSinLoop{}, x) })
			}},
		{Name: "course_fused_add_relu", Desc: "lesson 10 A8/C15: functions.FusedAddReLU, 1e5 f64, fwd + sum + bwd", Ops: 1, Setup: courseFusedAddReLU},
		// Lesson 11: the C20 training loop.
		{Name: "course_classifier_adam", Desc: "lesson 11 C20: one step of the classifier loop, MLP 32→128→4 on [512,32] f32, Adam lr 0.005, loss.Item and a held-out loss under NoGrad", Ops: 1, Setup: courseClassifierAdam},
	}
}

// courseUnaryStep times f(x) and its backward on a [256,512] float32 x
// with a random upstream gradient.
func courseUnaryStep(f func(x *agx.Tensor) *agx.Tensor) func() {
	g := tensor.NewGenerator(8)
	x := agx.New(g.Randn(tensor.Float32, 256, 512)).SetRequiresGrad(true)
	up := agx.New(g.Randn(tensor.Float32, 256, 512))
	return func() {
		x.ZeroGrad()
		f(x).Backward(agx.Gradient(up))
	}
}

func courseScaledSigmoid() func() {
	scale := agx.FromSlice([]float32{2}).Reshape().SetRequiresGrad(true)
	step := courseUnaryStep(func(x *agx.Tensor) *agx.Tensor { return functions.ScaledSigmoid(x, scale) })
	return func() {
		scale.ZeroGrad()
		step()
	}
}

func courseMyLinear() func() {
	g := tensor.NewGenerator(10)
	x := agx.New(g.Randn(tensor.Float32, 64, 256)).SetRequiresGrad(true)
	w := agx.New(g.Randn(tensor.Float32, 128, 256)).SetRequiresGrad(true)
	b := agx.New(g.Randn(tensor.Float32, 128)).SetRequiresGrad(true)
	up := agx.New(g.Randn(tensor.Float32, 64, 128))
	return func() {
		for _, t := range []*agx.Tensor{x, w, b} {
			t.ZeroGrad()
		}
		solutions.MyLinear(x, w, b).Backward(agx.Gradient(up))
	}
}

func courseMaskedLinear() func() {
	g := tensor.NewGenerator(11)
	x := agx.New(g.Randn(tensor.Float32, 64, 256)).SetRequiresGrad(true)
	w := agx.New(g.Randn(tensor.Float32, 128, 256)).SetRequiresGrad(true)
	mask := agx.New(g.Randn(tensor.Float32, 128, 256)).Gt(0)
	up := agx.New(g.Randn(tensor.Float32, 64, 128))
	return func() {
		x.ZeroGrad()
		w.ZeroGrad()
		functions.MaskedLinear(x, w, mask).Backward(agx.Gradient(up))
	}
}

// courseMySigmoid is exercise sigmoid-linear's MySigmoid.
type courseMySigmoid struct{}

func (courseMySigmoid) Name() string { return "MySigmoid" }

func (courseMySigmoid) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	y := in[0].Neg().Exp().Add(1).Pow(-1)
	ctx.SaveForBackward(y)
	return agx.Outputs(y)
}

func (courseMySigmoid) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	y := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(y).Mul(y.RSub(1)))
}

// courseNormalCDF and courseGELU are exercise gelu's normalCDF and GELUFunction.
func courseNormalCDF(x *agx.Tensor) *agx.Tensor {
	return x.Div(math.Sqrt2).Erf().Add(1).Mul(0.5)
}

type courseGELU struct{}

func (courseGELU) Name() string { return "GELUFunction" }

func (courseGELU) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(x.Mul(courseNormalCDF(x)))
}

func (courseGELU) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	pdf := x.Mul(x).Mul(-0.5).Exp().Mul(1 / math.Sqrt(2*math.Pi))
	return agx.Outputs(g[0].Mul(courseNormalCDF(x).Add(x.Mul(pdf))))
}

// courseGELUTanh is exercise gelu's GELUTanh.
func courseGELUTanh(x *agx.Tensor) *agx.Tensor {
	u := x.Add(x.Mul(x).Mul(x).Mul(0.044715)).Mul(math.Sqrt(2 / math.Pi))
	return x.Mul(u.Tanh().Add(1)).Mul(0.5)
}

// courseSiLU is exercise silu's SiLUFunction.
type courseSiLU struct{}

func (courseSiLU) Name() string { return "SiLUFunction" }

func (courseSiLU) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	y := x.Mul(x.Sigmoid())
	ctx.SaveForBackward(x, y)
	return agx.Outputs(y)
}

func (courseSiLU) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, y := s[0], s[1]
	return agx.Outputs(g[0].Mul(y.Add(x.Sigmoid().Mul(y.RSub(1)))))
}

// courseBatchNorm is exercise batchnorm's BatchNormFunction.
type courseBatchNorm struct{ Eps float64 }

func (courseBatchNorm) Name() string { return "BatchNormFunction" }

func (f courseBatchNorm) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	xc := x.Sub(x.MeanKeep(0))
	rstd := xc.Mul(xc).MeanKeep(0).Add(f.Eps).Rsqrt()
	y := xc.Mul(rstd)
	ctx.SaveForBackward(y, rstd)
	return agx.Outputs(y)
}

func (f courseBatchNorm) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	y, rstd, gy := s[0], s[1], g[0]
	n := float64(y.Size(0))
	dx := gy.Mul(n).Sub(gy.SumKeep(0)).Sub(y.Mul(gy.Mul(y).SumKeep(0)))
	return agx.Outputs(dx.Mul(rstd).Div(n))
}

// coursePairSigmoids and courseSoftRank are exercise soft-rank's
// pairSigmoids and SoftRankFunction.
func coursePairSigmoids(x *agx.Tensor, tau float64) *agx.Tensor {
	return x.Unsqueeze(-1).Sub(x.Unsqueeze(-2)).Div(tau).Sigmoid()
}

type courseSoftRankFn struct{ Temperature float64 }

func (courseSoftRankFn) Name() string { return "SoftRankFunction" }

func (f courseSoftRankFn) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(coursePairSigmoids(x, f.Temperature).Sum(-1).Add(0.5))
}

func (f courseSoftRankFn) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	s := coursePairSigmoids(x, f.Temperature)
	d := s.Mul(s.RSub(1)).Div(f.Temperature)
	own := g[0].Mul(d.Sum(-1))
	others := g[0].Unsqueeze(-1).Mul(d).Sum(-2)
	return agx.Outputs(own.Sub(others))
}

func courseSoftRank() func() {
	g := tensor.NewGenerator(12)
	x := agx.New(g.Randn(tensor.Float32, 32, 64)).SetRequiresGrad(true)
	up := agx.New(g.Randn(tensor.Float32, 32, 64))
	return func() {
		x.ZeroGrad()
		agx.Apply(courseSoftRankFn{Temperature: 0.5}, x).Backward(agx.Gradient(up))
	}
}

// courseStableLogSumExp is the StableLogSumExp of lesson 03 and exercise
// logsumexp-jvp.
type courseStableLogSumExp struct{}

func (courseStableLogSumExp) Name() string { return "StableLogSumExp" }

func (courseStableLogSumExp) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	d := x.Dim() - 1
	m := x.AmaxKeep(d)
	e := x.Sub(m).Exp()
	s := e.SumKeep(d)
	ctx.SaveForBackward(e.Div(s))
	return agx.Outputs(m.Add(s.Log()).Squeeze(d))
}

func (courseStableLogSumExp) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	softmax := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Unsqueeze(softmax.Dim() - 1).Mul(softmax))
}

func courseLogSumExp() func() {
	g := tensor.NewGenerator(13)
	x := agx.New(g.Randn(tensor.Float32, 256, 512)).SetRequiresGrad(true)
	up := agx.New(g.Randn(tensor.Float32, 256))
	return func() {
		x.ZeroGrad()
		agx.Apply(courseStableLogSumExp{}, x).Backward(agx.Gradient(up))
	}
}

// courseMaskedScore, courseAttentionWeights, courseCompositeAttention and
// courseAttentionFn are exercise attention's code.
const courseMaskedScore = -1e30

func courseAttentionWeights(q, k, mask *agx.Tensor, scale float64) *agx.Tensor {
	s := q.MatMul(k.MT()).Mul(scale)
	if mask == nil {
		return s.Softmax(-1)
	}
	off := mask.LogicalNot()
	return s.MaskedFill(off, courseMaskedScore).Softmax(-1).MaskedFill(off, 0)
}

func courseCompositeAttention(q, k, v, mask *agx.Tensor, scale float64) *agx.Tensor {
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(q.Size(-1)))
	}
	return courseAttentionWeights(q, k, mask, scale).MatMul(v)
}

type courseAttentionFn struct{ Scale float64 }

func (courseAttentionFn) Name() string { return "AttentionFunction" }

func (f courseAttentionFn) scale(q *agx.Tensor) float64 {
	if f.Scale != 0 {
		return f.Scale
	}
	return 1 / math.Sqrt(float64(q.Size(-1)))
}

func (f courseAttentionFn) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	q, k, v, mask := in[0], in[1], in[2], in[3]
	p := courseAttentionWeights(q, k, mask, f.scale(q))
	ctx.SaveForBackward(q, k, v, p)
	return agx.Outputs(p.MatMul(v))
}

func (f courseAttentionFn) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	q, k, v, p, gr := s[0], s[1], s[2], s[3], g[0]
	scale := f.scale(q)
	dv := p.MT().MatMul(gr)
	dp := gr.MatMul(v.MT())
	ds := p.Mul(dp.Sub(dp.Mul(p).SumKeep(-1)))
	dq := ds.MatMul(k).Mul(scale)
	dk := ds.MT().MatMul(q).Mul(scale)
	return []*agx.Tensor{dq, dk, dv, nil}
}

func courseAttention(causal, composite bool) func() {
	g := tensor.NewGenerator(7)
	q := agx.New(g.Randn(tensor.Float32, 2, 4, 128, 64)).SetRequiresGrad(true)
	k := agx.New(g.Randn(tensor.Float32, 2, 4, 128, 64)).SetRequiresGrad(true)
	v := agx.New(g.Randn(tensor.Float32, 2, 4, 128, 64)).SetRequiresGrad(true)
	up := agx.New(g.Randn(tensor.Float32, 2, 4, 128, 64))
	var mask *agx.Tensor
	if causal {
		i := agx.Arange(agx.Float64, 0, 128, 1)
		mask = i.Unsqueeze(-1).Ge(i.Unsqueeze(0))
	}
	return func() {
		q.ZeroGrad()
		k.ZeroGrad()
		v.ZeroGrad()
		var out *agx.Tensor
		if composite {
			out = courseCompositeAttention(q, k, v, mask, 0)
		} else {
			out = agx.Apply(courseAttentionFn{}, q, k, v, mask)
		}
		out.Backward(agx.Gradient(up))
	}
}

// courseClippedReLU and courseSoftThreshold are lesson 09's C11 and C12.
type courseClippedReLU struct{ Cap float64 }

func (courseClippedReLU) Name() string { return "ClippedReLU" }

func (c courseClippedReLU) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Clamp(0, c.Cap))
}

func (c courseClippedReLU) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	pass := x.Gt(0).LogicalAnd(x.Lt(c.Cap))
	return agx.Outputs(agx.Where(pass, g[0], 0.0))
}

type courseSoftThreshold struct{ T float64 }

func (courseSoftThreshold) Name() string { return "SoftThreshold" }

func (s courseSoftThreshold) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(x.Sign().Mul(x.Abs().Sub(s.T).ClampMin(0)))
}

func (s courseSoftThreshold) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(agx.Where(x.Abs().Gt(s.T), g[0], 0.0))
}

// courseSmoothL1 is lesson 09's SmoothL1Function (the mean smooth-L1 loss).
type courseSmoothL1 struct{ Beta float64 }

func (courseSmoothL1) Name() string { return "SmoothL1Function" }

func (f courseSmoothL1) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	d := in[0].Sub(in[1])
	ctx.SaveForBackward(d)
	ad := d.Abs()
	l := agx.Where(ad.Lt(f.Beta), d.Mul(d).Mul(0.5/f.Beta), ad.Sub(0.5*f.Beta))
	return agx.Outputs(l.Mean())
}

func (f courseSmoothL1) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	d := ctx.SavedTensors()[0]
	slope := agx.Where(d.Abs().Lt(f.Beta), d.Div(f.Beta), d.Sign())
	gp := slope.Mul(g[0]).Div(float64(d.Numel()))
	var gt *agx.Tensor
	if ctx.NeedsInputGrad(1) {
		gt = gp.Neg()
	}
	return agx.Outputs(gp, gt)
}

// courseSmoothL1Train is lesson 09's D11 training loop, less the plot.
func courseSmoothL1Train() func() {
	g := tensor.NewGenerator(1)
	x := agx.Linspace(agx.Float64, -2, 2, 20)
	ys := x.Mul(3).Sub(1).Add(agx.New(g.Randn(tensor.Float64, 20)).Mul(0.05)).Float64s()
	ys[15] += 15
	ys[4] -= 12
	target := agx.FromSlice(ys)
	return func() {
		w := agx.Zeros(agx.Float64).SetRequiresGrad(true)
		b := agx.Zeros(agx.Float64).SetRequiresGrad(true)
		const lr = 0.5
		var losses []float64
		for step := 0; step < 200; step++ {
			loss := agx.Apply(courseSmoothL1{Beta: 0.5}, x.Mul(w).Add(b), target)
			loss.Backward()
			losses = append(losses, loss.Item())
			agx.NoGrad(func() {
				w.SubInPlace(w.Grad().Mul(lr))
				b.SubInPlace(b.Grad().Mul(lr))
			})
			w.ZeroGrad()
			b.ZeroGrad()
		}
		_ = losses
	}
}

// courseComposed, courseTanhXSin and courseTanhXSinLoop are lesson 10's
// example A8.
func courseComposed(x *agx.Tensor) *agx.Tensor { return x.Tanh().Mul(x).Add(x.Sin()) }

type courseTanhXSin struct{}

func (courseTanhXSin) Name() string { return "TanhXSin" }

func (courseTanhXSin) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	ctx.SaveForBackward(x)
	return agx.Outputs(x.Tanh().Mul(x).Add(x.Sin()))
}

func (courseTanhXSin) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	t := x.Tanh()
	d := t.Add(x.Mul(t.Mul(t).RSub(1))).Add(x.Cos())
	return agx.Outputs(g[0].Mul(d))
}

type courseTanhXSinLoop struct{ agx.Once }

func (courseTanhXSinLoop) Name() string { return "TanhXSinLoop" }

func (courseTanhXSinLoop) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	xs := tensor.Data[float64](in[0].Data().Contiguous())
	out := tensor.Zeros(agx.Float64, in[0].Shape()...)
	der := tensor.Zeros(agx.Float64, in[0].Shape()...)
	ys, ds := tensor.Data[float64](out), tensor.Data[float64](der)
	for i, v := range xs {
		t := math.Tanh(v)
		s, c := math.Sincos(v)
		ys[i] = t*v + s
		ds[i] = t + v*(1-t*t) + c
	}
	ctx.SaveForBackward(agx.New(der))
	return agx.Outputs(agx.New(out))
}

func (courseTanhXSinLoop) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(ctx.SavedTensors()[0])) // g·f'(x)
}

// courseFusionStep is lesson 10's timed step: a fresh leaf from x, f, sum,
// backward, on 1e5 float64 values.
func courseFusionStep(f func(*agx.Tensor) *agx.Tensor) func() {
	x := agx.New(tensor.NewGenerator(1).Randn(tensor.Float64, 100_000))
	return func() {
		xl := x.Detach().SetRequiresGrad(true)
		f(xl).Sum().Backward()
	}
}

func courseFusedAddReLU() func() {
	g := tensor.NewGenerator(3)
	a, b := agx.New(g.Randn(tensor.Float64, 100_000)), agx.New(g.Randn(tensor.Float64, 100_000))
	return func() {
		al, bl := a.Detach().SetRequiresGrad(true), b.Detach().SetRequiresGrad(true)
		functions.FusedAddReLU(al, bl).Sum().Backward()
	}
}

// courseClassifierAdam is one step of lesson 11's C20 loop: its dataset
// (1024 points around 4 centres, half held out) and classifier.
func courseClassifierAdam() func() {
	g := tensor.NewGenerator(22)
	centres := g.Randn(tensor.Float64, 4, 32).Mul(0.4)
	y := g.Randint(0, 4, 1024)
	xall := agx.New(centres.IndexSelect(0, y).Add(g.Randn(tensor.Float64, 1024, 32)).To(tensor.Float32))
	yy := agx.New(y)
	xtr, ytr, xte, yte := xall.Narrow(0, 0, 512), yy.Narrow(0, 0, 512), xall.Narrow(0, 512, 512), yy.Narrow(0, 512, 512)
	mg := tensor.NewGenerator(1)
	model := nn.NewSequential(nn.NewLinear(32, 128, nn.WithGenerator(mg)), nn.ReLU(), nn.NewLinear(128, 4, nn.WithGenerator(mg)))
	opt := nn.NewAdam(model.Parameters())
	opt.LR = 0.005
	loss := nn.CrossEntropyLoss{}
	var trainLoss, testLoss float64
	return func() {
		opt.ZeroGrad()
		l := loss.Forward(model.Forward(xtr), ytr)
		l.Backward()
		opt.Step()
		trainLoss = l.Item()
		agx.NoGrad(func() { testLoss = loss.Forward(model.Forward(xte), yte).Item() })
		_, _ = trainLoss, testLoss
	}
}
