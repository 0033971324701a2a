package bench

// The workloads of the reference solutions of graded exercises
// (functions/solutions), and the batch-norm and Pow rows beside them. This
// file is instructor-side: like that package, it is left out of what
// students get (docker/instructor-only), and the agx command students have
// is built without these workloads.

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/solutions"
	"github.com/goagx/agx/tensor"
)

func init() {
	extra = append(extra,
		Workload{Name: "attention_backward", Desc: "scaled dot-product attention as a custom Function (solutions.ScaledDotProductAttention), B2 H4 S128 D64 f32, forward+backward",
			Flops: 6 * 2 * (2 * 4 * 128 * 128 * 64), Ops: 1, Setup: attentionBackward},
		Workload{Name: "batchnorm_backward", Desc: "batch-norm over dim 0 of [256,512] f32 from composite ops, forward+backward with a random upstream grad", Ops: 1, Setup: batchnormComposite},
		Workload{Name: "batchnorm_function", Desc: "the same with the BatchNorm Function (solutions.BatchNorm); PyTorch side: composite ops", Ops: 1, Setup: batchnormFunction},
		Workload{Name: "batchnorm_pow", Desc: "batch-norm over dim 0 of [256,512] f32 as users write it: mean(0), ((x-mean)**2).mean(0), normalise, *gamma + beta; forward+backward with a random upstream grad", Ops: 1, Setup: batchnormPow},
		Workload{Name: "pow_square", Desc: "x**2 on [256,512] f32, forward+backward with a random upstream grad", Ops: 1, Setup: func() func() { return courseUnaryStep(func(x *agx.Tensor) *agx.Tensor { return x.Pow(2) }) }},
		Workload{Name: "mul_self", Desc: "x*x on [256,512] f32, forward+backward with a random upstream grad (pow_square's twin)", Ops: 1, Setup: func() func() { return courseUnaryStep(func(x *agx.Tensor) *agx.Tensor { return x.Mul(x) }) }},
		Workload{Name: "batchnorm_native", Desc: "batch-norm with affine weight and bias over dim 0 of [256,512] f32 with agx's built-in agx.BatchNorm, forward+backward; PyTorch side: F.batch_norm(training=True)", Ops: 1, Setup: batchnormNative},
	)
}

func attentionBackward() func() {
	g := tensor.NewGenerator(7)
	q := agx.New(g.Randn(tensor.Float32, 2, 4, 128, 64)).SetRequiresGrad(true)
	k := agx.New(g.Randn(tensor.Float32, 2, 4, 128, 64)).SetRequiresGrad(true)
	v := agx.New(g.Randn(tensor.Float32, 2, 4, 128, 64)).SetRequiresGrad(true)
	up := agx.New(g.Randn(tensor.Float32, 2, 4, 128, 64))
	return func() {
		q.ZeroGrad()
		k.ZeroGrad()
		v.ZeroGrad()
		solutions.ScaledDotProductAttention(q, k, v, nil).Backward(agx.Gradient(up))
	}
}

func batchnormComposite() func() {
	g := tensor.NewGenerator(8)
	x := agx.New(g.Randn(tensor.Float32, 256, 512)).SetRequiresGrad(true)
	up := agx.New(g.Randn(tensor.Float32, 256, 512))
	return func() {
		x.ZeroGrad()
		mean := x.MeanKeep(0)
		variance := x.VarKeep(false, 0)
		y := x.Sub(mean).Div(variance.Add(1e-5).Sqrt())
		y.Backward(agx.Gradient(up))
	}
}

func batchnormPow() func() {
	g := tensor.NewGenerator(8)
	x := agx.New(g.Randn(tensor.Float32, 256, 512)).SetRequiresGrad(true)
	up := agx.New(g.Randn(tensor.Float32, 256, 512))
	gamma := agx.New(g.Randn(tensor.Float32, 512)).SetRequiresGrad(true)
	beta := agx.New(g.Randn(tensor.Float32, 512)).SetRequiresGrad(true)
	return func() {
		x.ZeroGrad()
		gamma.ZeroGrad()
		beta.ZeroGrad()
		mean := x.Mean(0)
		variance := x.Sub(mean).Pow(2).Mean(0)
		y := x.Sub(mean).Div(variance.Add(1e-5).Sqrt()).Mul(gamma).Add(beta)
		y.Backward(agx.Gradient(up))
	}
}

func batchnormFunction() func() {
	g := tensor.NewGenerator(8)
	x := agx.New(g.Randn(tensor.Float32, 256, 512)).SetRequiresGrad(true)
	up := agx.New(g.Randn(tensor.Float32, 256, 512))
	return func() {
		x.ZeroGrad()
		solutions.BatchNorm(x, 1e-5).Backward(agx.Gradient(up))
	}
}

func batchnormNative() func() {
	g := tensor.NewGenerator(8)
	x := agx.New(g.Randn(tensor.Float32, 256, 512)).SetRequiresGrad(true)
	up := agx.New(g.Randn(tensor.Float32, 256, 512))
	w := agx.New(g.Randn(tensor.Float32, 512)).SetRequiresGrad(true)
	b := agx.New(g.Randn(tensor.Float32, 512)).SetRequiresGrad(true)
	return func() {
		x.ZeroGrad()
		w.ZeroGrad()
		b.ZeroGrad()
		agx.BatchNorm(x, w, b, 1e-5).Backward(agx.Gradient(up))
	}
}
