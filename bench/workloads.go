package bench

import (
	"fmt"
	"math"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Workload is one benchmark. Setup builds its data once and returns the
// function to time; one call of it is one "call" in the reported figures.
type Workload struct {
	Name string
	Desc string
	// Flops per call, for GFLOP/s (0 when not meaningful).
	Flops float64
	// Ops per call: per-op figures divide the call time by it (1 for most).
	Ops   int
	Setup func() func()
}

// All returns every workload, in report order.
func All() []Workload {
	var ws []Workload
	for _, n := range []int{256, 512, 1024} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			n, dt := n, dt
			ws = append(ws, Workload{
				Name:  fmt.Sprintf("matmul_%s_%d", short(dt), n),
				Desc:  fmt.Sprintf("C = A·B, %d×%d %v, forward only", n, n, dt),
				Flops: 2 * math.Pow(float64(n), 3), Ops: 1,
				Setup: func() func() {
					g := tensor.NewGenerator(1)
					a, b := g.Randn(dt, n, n), g.Randn(dt, n, n)
					return func() { tensor.MatMul(a, b) }
				},
			})
		}
	}
	// Not a target: the product of matmul_f32_256 into a destination made
	// once (MatMulTo; PyTorch's out=), which separates the GEMM from the cost
	// of writing a fresh, cache-cold result each call. PyTorch's allocator
	// hands back the buffer freed by the previous call, still in cache; Go's
	// reuses memory only after a collection (docs/performance.md, "What costs
	// what", fresh results).
	ws = append(ws, Workload{
		Name:  "matmul_into_f32_256",
		Desc:  "C = A·B, 256×256 float32, into a preallocated C (not a target)",
		Flops: 2 * math.Pow(256, 3), Ops: 1,
		Setup: func() func() {
			g := tensor.NewGenerator(1)
			a, b := g.Randn(tensor.Float32, 256, 256), g.Randn(tensor.Float32, 256, 256)
			c := tensor.Empty(tensor.Float32, 256, 256)
			return func() { tensor.MatMulTo(c, a, b) }
		},
	})
	// mlp_step's products: the forward of both layers, and in the backward
	// dW1, dW2 and dh. x does not require grad, so there is no dx product.
	const mlpFlops = 2*64*(784*256+256*10) + 2*64*784*256 + 2*2*64*256*10
	ws = append(ws,
		Workload{Name: "mlp_step", Desc: "x[64,784] → Linear(784,256) → ReLU → Linear(256,10) → cross-entropy → backward, f32",
			Flops: mlpFlops, Ops: 1, Setup: mlpStep},
		Workload{Name: "elementwise_chain", Desc: "y = sigmoid(x)·x + tanh(x) over 1e6 f32; y.sum().backward()", Ops: 1, Setup: elementwiseChain},
		Workload{Name: "tiny_ops_overhead", Desc: "[1] f32 with grad: 1000 alternating mul/add by a constant tensor, then backward (per op)", Ops: 1000, Setup: tinyOps},
		Workload{Name: "custom_function_overhead", Desc: "custom Square Function on [16]: apply + backward(ones), per call", Ops: 1, Setup: customFunction},
		Workload{Name: "gradcheck_logsumexp", Desc: "GradCheck of a custom max-shifted LogSumExp Function on [4,16] f64", Ops: 1, Setup: gradcheckLSE},
		Workload{Name: "gradgradcheck_square", Desc: "GradGradCheck of a custom Square Function on [4,8] f64", Ops: 1, Setup: gradgradcheckSquare},
	)
	ws = append(ws, extra...)
	ws = append(ws, course...)
	return ws
}

// extra holds workloads registered by other files of the package, and
// course the course group (course_workloads.go, instructor-side: the agx
// command students have is built without it).
var extra, course []Workload

func short(dt tensor.DType) string {
	if dt == tensor.Float32 {
		return "f32"
	}
	return "f64"
}

func mlpStep() func() {
	g := tensor.NewGenerator(2)
	x := agx.New(g.Randn(tensor.Float32, 64, 784))
	target := agx.New(g.Randint(0, 10, 64))
	w1 := agx.New(g.Uniform(tensor.Float32, -1/28.0, 1/28.0, 256, 784)).SetRequiresGrad(true)
	b1 := agx.New(g.Uniform(tensor.Float32, -1/28.0, 1/28.0, 256)).SetRequiresGrad(true)
	w2 := agx.New(g.Uniform(tensor.Float32, -1/16.0, 1/16.0, 10, 256)).SetRequiresGrad(true)
	b2 := agx.New(g.Uniform(tensor.Float32, -1/16.0, 1/16.0, 10)).SetRequiresGrad(true)
	return func() {
		for _, p := range []*agx.Tensor{w1, b1, w2, b2} {
			p.ZeroGrad()
		}
		h := x.MatMul(w1.T()).Add(b1).Relu()
		logits := h.MatMul(w2.T()).Add(b2)
		agx.CrossEntropy(logits, target).Backward()
	}
}

func elementwiseChain() func() {
	x := agx.New(tensor.NewGenerator(3).Randn(tensor.Float32, 1_000_000)).SetRequiresGrad(true)
	return func() {
		x.ZeroGrad()
		y := x.Sigmoid().Mul(x).Add(x.Tanh())
		y.Sum().Backward()
	}
}

func tinyOps() func() {
	x := agx.FromSlice([]float32{0.5}).SetRequiresGrad(true)
	c := agx.FromSlice([]float32{1.0001})
	return func() {
		x.ZeroGrad()
		y := x
		for i := 0; i < 500; i++ {
			y = y.Mul(c).Add(c)
		}
		y.Sum().Backward()
	}
}

// square is the custom Function of the overhead workloads.
type square struct{}

func (square) Name() string { return "Square" }

func (square) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

func (square) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(x).Mul(2.0))
}

func customFunction() func() {
	x := agx.New(tensor.NewGenerator(4).Randn(tensor.Float32, 16)).SetRequiresGrad(true)
	ones := agx.Ones(agx.Float32, 16)
	return func() {
		x.ZeroGrad()
		agx.Apply(square{}, x).Backward(agx.Gradient(ones))
	}
}

// logSumExp is the custom max-shifted LogSumExp over the last dim.
type logSumExp struct{}

func (logSumExp) Name() string { return "StableLogSumExp" }

func (logSumExp) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	m := x.AmaxKeep(-1)
	e := x.Sub(m).Exp()
	s := e.SumKeep(-1)
	ctx.SaveForBackward(e.Div(s))
	return agx.Outputs(s.Log().Add(m).Squeeze(-1))
}

func (logSumExp) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	p := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Unsqueeze(-1).Mul(p))
}

func gradcheckLSE() func() {
	x := agx.New(tensor.NewGenerator(5).Randn(tensor.Float64, 4, 16)).SetRequiresGrad(true)
	return func() {
		if err := agx.GradCheck(logSumExp{}, []*agx.Tensor{x}); err != nil {
			panic(err)
		}
	}
}

func gradgradcheckSquare() func() {
	x := agx.New(tensor.NewGenerator(6).Randn(tensor.Float64, 4, 8)).SetRequiresGrad(true)
	return func() {
		if err := agx.GradGradCheck(square{}, []*agx.Tensor{x}); err != nil {
			panic(err)
		}
	}
}
