package nn

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// Linear's initial weights and biases are U(-1/√in, 1/√in): check the bound,
// the mean (0) and the variance (bound²/3) on a large layer, per dtype.
func TestLinearInit(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			l := NewLinear(400, 300, WithGenerator(tensor.NewGenerator(7)), WithDType(dt))
			bound := 1 / math.Sqrt(400)
			for _, p := range l.Parameters() {
				if p.Tensor.DType() != dt || !p.Tensor.RequiresGrad() {
					t.Fatalf("%s: dtype %v requires grad %v", p.Name, p.Tensor.DType(), p.Tensor.RequiresGrad())
				}
				v := p.Tensor.Data().Float64s()
				var sum, sq float64
				for _, x := range v {
					if math.Abs(x) > bound {
						t.Fatalf("%s: %g outside ±%g", p.Name, x, bound)
					}
					sum += x
					sq += x * x
				}
				n := float64(len(v))
				mean, variance := sum/n, sq/n-(sum/n)*(sum/n)
				want := bound * bound / 3
				// Standard errors: √(var/n) for the mean, ~var·√(0.8/n) for the variance.
				if math.Abs(mean) > 5*math.Sqrt(want/n) || math.Abs(variance-want) > 5*want*math.Sqrt(0.8/n) {
					t.Errorf("%s: mean %g variance %g, want 0 and %g", p.Name, mean, variance, want)
				}
			}
			if got := fmt.Sprint(l.Weight.Shape(), l.Bias.Shape()); got != "[300 400] [300]" {
				t.Errorf("shapes %s", got)
			}
		})
	}
}

func TestNamedParameters(t *testing.T) {
	m := NewSequential(NewLinear(4, 3), ReLU(), NewLinear(3, 2, NoBias()), Func("GELU", (*agx.Tensor).GELU))
	var names []string
	for _, p := range m.Parameters() {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "0.weight 0.bias 2.weight" {
		t.Errorf("names %q", got)
	}
	m.Train(false)
	if m.Training() {
		t.Error("Train(false) left training mode on")
	}
	if got := m.String(); !strings.Contains(got, "(0): Linear(in_features=4, out_features=3, bias=True)") || !strings.Contains(got, "(3): GELU()") {
		t.Errorf("String:\n%s", got)
	}
}

// blobs is a seeded classification task: Gaussian clusters around random
// centres in `features` dims.
func blobs(g *tensor.Generator, n, features, classes int, spread float64) (*agx.Tensor, *agx.Tensor) {
	centres := g.Randn(tensor.Float64, classes, features).Mul(spread)
	y := g.Randint(0, int64(classes), n)
	x := centres.IndexSelect(0, y).Add(g.Randn(tensor.Float64, n, features))
	return agx.New(x.To(tensor.Float32)), agx.New(y)
}

func accuracy(m Module, x, y *agx.Tensor) float64 {
	var acc float64
	agx.NoGrad(func() {
		pred := m.Forward(x).ArgMax(1, false).Data()
		acc = pred.Eq(y.Data()).To(tensor.Float64).Mean().Item()
	})
	return acc
}

func train(m Module, opt Optimizer, loss Loss, x, y *agx.Tensor, steps int) (first, last float64) {
	for i := range steps {
		opt.ZeroGrad()
		l := loss.Forward(m.Forward(x), y)
		l.Backward()
		opt.Step()
		if i == 0 {
			first = l.Item()
		}
		last = l.Item()
	}
	return first, last
}

func TestTrainingLearns(t *testing.T) {
	t.Run("classification/adam", func(t *testing.T) {
		g := tensor.NewGenerator(3)
		x, y := blobs(g, 256, 8, 3, 1.5)
		m := NewSequential(NewLinear(8, 32, WithGenerator(g)), ReLU(), NewLinear(32, 3, WithGenerator(g)))
		opt := NewAdam(m.Parameters())
		opt.LR = 0.01
		first, last := train(m, opt, CrossEntropyLoss{}, x, y, 150)
		if acc := accuracy(m, x, y); last > first/4 || acc < 0.9 {
			t.Errorf("loss %.4f → %.4f, accuracy %.3f", first, last, acc)
		}
	})
	t.Run("classification/custom_function_layer", func(t *testing.T) {
		g := tensor.NewGenerator(5)
		x, y := blobs(g, 256, 8, 3, 1.5)
		m := NewSequential(NewLinear(8, 16, WithGenerator(g)), Func("ClippedReLU", func(x *agx.Tensor) *agx.Tensor { return functions.ClippedReLU(x, 6) }), NewLinear(16, 3, WithGenerator(g)))
		opt := NewSGD(m.Parameters(), 0.5)
		first, last := train(m, opt, CrossEntropyLoss{}, x, y, 100)
		if acc := accuracy(m, x, y); last > first/4 || acc < 0.9 {
			t.Errorf("loss %.4f → %.4f, accuracy %.3f", first, last, acc)
		}
	})
	t.Run("regression/sgd_momentum", func(t *testing.T) {
		g := tensor.NewGenerator(4)
		x := agx.New(g.Randn(tensor.Float32, 128, 3))
		w := agx.FromSlice([]float32{1.5, -2, 0.5}, 3, 1)
		y := x.MatMul(w).Add(0.25).Tanh()
		m := NewSequential(NewLinear(3, 16, WithGenerator(g)), Tanh(), NewLinear(16, 1, WithGenerator(g)))
		opt := NewSGD(m.Parameters(), 0.1)
		opt.Momentum = 0.9
		first, last := train(m, opt, MSELoss{}, x, y, 300)
		if last > first/20 {
			t.Errorf("loss %.5f → %.5f", first, last)
		}
	})
}

// optimizerScript runs torch.optim on the same parameters and gradients, for
// every case in one process.
const optimizerScript = `
import torch, agx_oracle as o
out = []
for case in o.load():
    ps = [o.tensor(p).requires_grad_(True) for p in case["params"]]
    kw = case["kw"]
    if case["opt"] == "sgd":
        opt = torch.optim.SGD(ps, **kw)
    else:
        kw["betas"] = tuple(kw["betas"])
        opt = torch.optim.Adam(ps, **kw)
    for step in case["grads"]:
        for p, g in zip(ps, step):
            p.grad = o.tensor(g)
        opt.step()
    out.append(ps)
o.dump(out)
`

// SGD and Adam match torch.optim after four steps on the same float64
// parameters with the same random gradients.
func TestOptimizersVsTorch(t *testing.T) {
	oracle.Skip(t)
	cases := []struct {
		name string
		kw   map[string]any
		make func(ps []Param) Optimizer
	}{
		{"sgd", map[string]any{"lr": 0.1}, func(ps []Param) Optimizer { return NewSGD(ps, 0.1) }},
		{"sgd/momentum_wd", map[string]any{"lr": 0.05, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01},
			func(ps []Param) Optimizer {
				o := NewSGD(ps, 0.05)
				o.Momentum, o.Dampening, o.WeightDecay = 0.9, 0.1, 0.01
				return o
			}},
		{"sgd/nesterov", map[string]any{"lr": 0.05, "momentum": 0.8, "nesterov": true},
			func(ps []Param) Optimizer {
				o := NewSGD(ps, 0.05)
				o.Momentum, o.Nesterov = 0.8, true
				return o
			}},
		{"adam", map[string]any{"lr": 0.001, "betas": []float64{0.9, 0.999}, "eps": 1e-8},
			func(ps []Param) Optimizer { return NewAdam(ps) }},
		{"adam/wd_amsgrad", map[string]any{"lr": 0.01, "betas": []float64{0.8, 0.99}, "eps": 1e-6, "weight_decay": 0.1, "amsgrad": true},
			func(ps []Param) Optimizer {
				o := NewAdam(ps)
				o.LR, o.Beta1, o.Beta2, o.Eps, o.WeightDecay, o.AMSGrad = 0.01, 0.8, 0.99, 1e-6, 0.1, true
				return o
			}},
	}
	var inputs []map[string]any
	var params [][]Param
	for _, tc := range cases {
		g := tensor.NewGenerator(11)
		ps := []Param{{"w", agx.New(g.Randn(tensor.Float64, 3, 4)).SetRequiresGrad(true)}, {"b", agx.New(g.Randn(tensor.Float64, 4)).SetRequiresGrad(true)}}
		in := map[string]any{"kw": tc.kw, "opt": strings.Split(tc.name, "/")[0]}
		var start []oracle.Tensor
		for _, p := range ps {
			start = append(start, oracle.Encode(p.Tensor.Data()))
		}
		in["params"] = start
		opt := tc.make(ps)
		var grads [][]oracle.Tensor
		for range 4 {
			var step []oracle.Tensor
			for _, p := range ps {
				gr := g.Randn(tensor.Float64, p.Tensor.Shape()...)
				p.Tensor.SetGrad(agx.New(gr))
				step = append(step, oracle.Encode(gr))
			}
			grads = append(grads, step)
			opt.Step()
		}
		in["grads"] = grads
		inputs = append(inputs, in)
		params = append(params, ps)
	}
	var out [][]oracle.Tensor
	if err := oracle.Run(optimizerScript, inputs, &out); err != nil {
		t.Fatal(err)
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for j, p := range params[i] {
				if d := oracle.Close(p.Tensor.Data(), out[i][j].Decode(), 0, 1e-10); d != "" {
					t.Errorf("%s after 4 steps: %s", p.Name, d)
				}
			}
		})
	}
}

// example D11: SmoothL1Loss(beta 0.5) on pred randn(10), target randn(10).
func TestSmoothL1LossVsTorch(t *testing.T) {
	oracle.Skip(t)
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			g := tensor.NewGenerator(12)
			pred := agx.New(g.Randn(dt, 10)).SetRequiresGrad(true)
			target := agx.New(g.Randn(dt, 10))
			loss := SmoothL1Loss{Beta: 0.5}.Forward(pred, target)
			loss.Backward()
			var out struct{ Loss, Grad oracle.Tensor }
			err := oracle.Run(`
import torch, agx_oracle as o
inp = o.load()
p = o.tensor(inp["pred"], requires_grad=True)
l = torch.nn.SmoothL1Loss(beta=0.5)(p, o.tensor(inp["target"]))
l.backward()
o.dump({"Loss": l, "Grad": p.grad})
`, map[string]any{"pred": oracle.Encode(pred.Data()), "target": oracle.Encode(target.Data())}, &out)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-6
			}
			if d := oracle.Close(loss.Data(), out.Loss.Decode(), tol, tol); d != "" {
				t.Errorf("loss: %s", d)
			}
			if d := oracle.Close(pred.Grad().Data(), out.Grad.Decode(), tol, tol); d != "" {
				t.Errorf("grad: %s", d)
			}
		})
	}
}

func TestLinearShapeError(t *testing.T) {
	err := agx.Try(func() { NewLinear(3, 2).Forward(agx.Zeros(tensor.Float32, 4, 5)) })
	if !errors.Is(err, tensor.ErrShape) || !strings.Contains(err.Error(), "does not fit Linear(3, 2)") {
		t.Fatalf("got %v", err)
	}
}
