package bench

import (
	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/nn"
	"github.com/goagx/agx/tensor"
)

// Not targets: mlp_step's model as a training loop writes it, with nn's
// layers and an optimizer (PyTorch: torch.nn and torch.optim, zero_grad
// with set_to_none=True, which is what agx's ZeroGrad does).
func init() {
	flops := 3.0 * 2 * 64 * (784*256 + 256*10)
	extra = append(extra,
		Workload{Name: "train_step_sgd", Desc: "mlp_step's model with nn.Linear layers and SGD (lr 0.01, momentum 0.9): zero_grad, forward, backward, step (not a target)",
			Flops: flops, Ops: 1, Setup: func() func() {
				return trainStep(func(ps []nn.Param) nn.Optimizer {
					o := nn.NewSGD(ps, 0.01)
					o.Momentum = 0.9
					return o
				})
			}},
		Workload{Name: "train_step_adam", Desc: "the same with Adam (lr 1e-3) (not a target)",
			Flops: flops, Ops: 1, Setup: func() func() {
				return trainStep(func(ps []nn.Param) nn.Optimizer { return nn.NewAdam(ps) })
			}},
	)
}

func trainStep(newOpt func([]nn.Param) nn.Optimizer) func() {
	g := tensor.NewGenerator(9)
	x := agx.New(g.Randn(tensor.Float32, 64, 784))
	target := agx.New(g.Randint(0, 10, 64))
	m := nn.NewSequential(nn.NewLinear(784, 256, nn.WithGenerator(g)), nn.ReLU(), nn.NewLinear(256, 10, nn.WithGenerator(g)))
	opt := newOpt(m.Parameters())
	return func() {
		opt.ZeroGrad()
		nn.CrossEntropyLoss{}.Forward(m.Forward(x), target).Backward()
		opt.Step()
	}
}
