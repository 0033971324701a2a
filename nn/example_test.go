package nn_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/nn"
	"github.com/goagx/agx/tensor"
)

// The source's TorchScript example (C20): trace Linear(10, 5) + ReLU and print
// the recorded graph.
func ExampleTrace() {
	g := tensor.NewGenerator(0)
	model := nn.NewSequential(nn.NewLinear(10, 5, nn.WithGenerator(g)), nn.ReLU())
	graph, err := nn.Trace(model, agx.New(g.Randn(tensor.Float32, 1, 10)))
	if err != nil {
		panic(err)
	}
	fmt.Println(graph)
	// Output:
	// graph(input):
	//   v1 = Transpose[perm=[1 0]](0.weight)
	//   v2 = MatMul(input, v1)
	//   v3 = Add(v2, 0.bias)
	//   output = Relu(v3)
	//   return (output)
}

// The source's ONNX export (C21) at its opset 17 with a dynamic batch axis,
// checked with agx's own reader.
func ExampleCheckONNX() {
	dir, err := os.MkdirTemp("", "onnx-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.onnx")
	g := tensor.NewGenerator(0)
	model := nn.NewSequential(nn.NewLinear(10, 5, nn.WithGenerator(g)), nn.ReLU())
	opts := nn.ONNXOptions{DynamicBatch: true, Opset: 17}
	if err := nn.ExportONNX(path, model, agx.New(g.Randn(tensor.Float32, 1, 10)), opts); err != nil {
		panic(err)
	}
	info, err := nn.CheckONNX(path)
	if err != nil {
		panic(err)
	}
	fmt.Println(info)
	// Output:
	// ONNX model: IR version 8, opset 17, producer "agx"
	//   operators: Gemm, Relu
	//   input  input [batch 10]
	//   output output [batch 5]
}

// One SGD step with momentum on a single parameter.
func ExampleSGD() {
	w := agx.FromSlice([]float64{1, 2}, 2).SetRequiresGrad(true)
	opt := nn.NewSGD([]nn.Param{{Name: "w", Tensor: w}}, 0.1)
	opt.Momentum = 0.9
	for range 2 {
		opt.ZeroGrad()
		w.Mul(w).Sum().Backward() // gradient 2w
		opt.Step()
		fmt.Println(w)
	}
	// Output:
	// tensor([0.8000, 1.6000], dtype=float64, requires_grad=True)
	// tensor([0.4600, 0.9200], dtype=float64, requires_grad=True)
}

// Example D11: the SmoothL1Loss module (beta 0.5) built on the custom Function.
func ExampleSmoothL1Loss() {
	pred := agx.FromSlice([]float64{0.2, 1.5, -2}, 3).SetRequiresGrad(true)
	target := agx.FromSlice([]float64{0, 0, 0}, 3)
	loss := nn.SmoothL1Loss{Beta: 0.5}.Forward(pred, target)
	loss.Backward()
	fmt.Println(loss)
	fmt.Println(pred.Grad())
	// Output:
	// tensor(1.0133, dtype=float64, grad_fn=<MeanBackward0>)
	// tensor([ 0.1333,  0.3333, -0.3333], dtype=float64)
}

// Dynamic int8 quantisation of the Linear layers: about 4x smaller.
func ExampleQuantizeDynamic() {
	model := nn.NewSequential(nn.NewLinear(64, 32, nn.WithGenerator(tensor.NewGenerator(1))), nn.ReLU())
	q := nn.QuantizeDynamic(model)
	fmt.Println(nn.ParamBytes(model), "→", nn.ParamBytes(q), "bytes")
	fmt.Println(q)
	// Output:
	// 8320 → 2180 bytes
	// Sequential(
	//   (0): DynamicQuantizedLinear(in_features=64, out_features=32, weight_scale=0.0009837)
	//   (1): ReLU()
	// )
}
