package nn

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/internal/testenv"
	"github.com/goagx/agx/tensor"
)

// onnxAvailable skips (or under make test fails) t unless Debian's python3-onnx is importable.
func onnxAvailable(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(oracle.Python, "-c", "import onnx, numpy").CombinedOutput(); err != nil {
		testenv.Missing(t, "python3-onnx unavailable (apt-get install python3-onnx): %s", strings.TrimSpace(string(out)))
	}
}

// checkScript loads the model with the onnx package, runs onnx.checker, and
// evaluates it with a small NumPy interpreter of the exported operators (the
// packaged onnx 1.12 has no reference evaluator and Debian has no
// onnxruntime), printing the graph summary and the outputs as JSON.
const checkScript = `
import json, sys
import numpy as np
import onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
g = m.graph
env = {t.name: numpy_helper.to_array(t) for t in g.initializer}
def attr(n, name, default):
    for a in n.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default
def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
from math import erf
ops = {
  "Relu": lambda n, a: np.maximum(a[0], 0),
  "Sigmoid": lambda n, a: 1 / (1 + np.exp(-a[0])),
  "Tanh": lambda n, a: np.tanh(a[0]),
  "Exp": lambda n, a: np.exp(a[0]),
  "Erf": lambda n, a: np.vectorize(erf)(a[0]).astype(a[0].dtype),
  "Add": lambda n, a: a[0] + a[1], "Sub": lambda n, a: a[0] - a[1],
  "Mul": lambda n, a: a[0] * a[1], "Div": lambda n, a: a[0] / a[1],
  "MatMul": lambda n, a: a[0] @ a[1],
  "Transpose": lambda n, a: np.transpose(a[0], attr(n, "perm", None)),
  "Softmax": lambda n, a: softmax(a[0], attr(n, "axis", -1)),
  "Gemm": lambda n, a: attr(n, "alpha", 1.0) * ((a[0].T if attr(n, "transA", 0) else a[0]) @ (a[1].T if attr(n, "transB", 0) else a[1])) + (attr(n, "beta", 1.0) * a[2] if len(a) > 2 else 0),
}
req = json.load(sys.stdin)
result = {"ir_version": m.ir_version, "opset": [o.version for o in m.opset_import],
          "ops": [n.op_type for n in g.node],
          "input_dims": [[d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim] for i in g.input],
          "output_dims": [[d.dim_param or d.dim_value for d in o.type.tensor_type.shape.dim] for o in g.output],
          "outputs": []}
for x in req["inputs"]:
    e = dict(env)
    e[g.input[0].name] = np.array(x["data"], dtype=np.float32).reshape(x["shape"])
    for n in g.node:
        e[n.output[0]] = ops[n.op_type](n, [e[i] for i in n.input])
    result["outputs"].append(e[g.output[0].name].astype(np.float64).ravel().tolist())
json.dump(result, sys.stdout)
`

type onnxCheck struct {
	IRVersion  int         `json:"ir_version"`
	Opset      []int       `json:"opset"`
	Ops        []string    `json:"ops"`
	InputDims  [][]any     `json:"input_dims"`
	OutputDims [][]any     `json:"output_dims"`
	Outputs    [][]float64 `json:"outputs"`
}

func runCheck(t *testing.T, path string, inputs []*agx.Tensor) onnxCheck {
	t.Helper()
	var req struct {
		Inputs []oracle.Tensor `json:"inputs"`
	}
	for _, x := range inputs {
		req.Inputs = append(req.Inputs, oracle.Encode(x.Data()))
	}
	in, _ := json.Marshal(req)
	cmd := exec.Command(oracle.Python, "-c", checkScript, path)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("onnx check failed: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var res onnxCheck
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return res
}

// example C21: Linear(10, 5) + ReLU with a dynamic batch axis.
func TestONNXExport(t *testing.T) {
	gen := tensor.NewGenerator(21)
	models := []struct {
		name string
		m    Module
		in   int
		ops  []string
		opts ONNXOptions
	}{
		{"linear_relu", NewSequential(NewLinear(10, 5, WithGenerator(gen)), ReLU()), 10, []string{"Gemm", "Relu"}, ONNXOptions{}},
		{"mlp_softmax", NewSequential(NewLinear(6, 8, WithGenerator(gen)), Tanh(), NewLinear(8, 4, WithGenerator(gen)), Sigmoid(),
			NewLinear(4, 3, WithGenerator(gen), NoBias()), Softmax(-1)), 6, []string{"Gemm", "Tanh", "Gemm", "Sigmoid", "Gemm", "Softmax"}, ONNXOptions{}},
		{"gelu_silu", NewSequential(NewLinear(4, 4, WithGenerator(gen)), Func("GELU", (*agx.Tensor).GELU), Func("SiLU", (*agx.Tensor).SiLU)), 4,
			[]string{"Gemm", "Div", "Erf", "Add", "Mul", "Mul", "Sigmoid", "Mul"}, ONNXOptions{}},
		{"no_gemm", NewSequential(NewLinear(10, 5, WithGenerator(gen)), ReLU()), 10, []string{"Transpose", "MatMul", "Add", "Relu"}, ONNXOptions{NoGemm: true}},
		// the source's torch.onnx.export(..., opset_version=17)
		{"opset_17", NewSequential(NewLinear(10, 5, WithGenerator(gen)), ReLU()), 10, []string{"Gemm", "Relu"}, ONNXOptions{Opset: 17}},
		{"opset_17_mlp", NewSequential(NewLinear(6, 8, WithGenerator(gen)), Tanh(), NewLinear(8, 4, WithGenerator(gen)), Softmax(-1)), 6,
			[]string{"Gemm", "Tanh", "Gemm", "Softmax"}, ONNXOptions{Opset: 17}},
	}
	for _, tc := range models {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.DynamicBatch = true
			path := filepath.Join(t.TempDir(), "model.onnx")
			if err := ExportONNX(path, tc.m, agx.New(gen.Randn(tensor.Float32, 1, tc.in)), opts); err != nil {
				t.Fatal(err)
			}
			wantOpset := 13
			if opts.Opset != 0 {
				wantOpset = opts.Opset
			}
			if ir, opset := fileVersions(t, path); ir != 8 || opset != wantOpset {
				t.Errorf("the file says IR version %d, opset %d; want 8 and %d", ir, opset, wantOpset)
			}
			back, err := LoadONNX(path)
			if err != nil {
				t.Fatal(err)
			}
			var inputs []*agx.Tensor
			for _, b := range []int{1, 7} {
				x := agx.New(gen.Randn(tensor.Float32, b, tc.in))
				inputs = append(inputs, x)
				want := tc.m.Forward(x)
				got, err := back.Run(x)
				if err != nil {
					t.Fatal(err)
				}
				if d := oracle.Close(got[0].Data(), want.Data(), 1e-5, 1e-6); d != "" {
					t.Errorf("batch %d: agx run of the ONNX file: %s", b, d)
				}
			}
			t.Run("onnx_checker", func(t *testing.T) {
				onnxAvailable(t)
				res := runCheck(t, path, inputs)
				if res.IRVersion != 8 || len(res.Opset) != 1 || res.Opset[0] != wantOpset {
					t.Errorf("ir_version %d opset %v, want 8 and [%d]", res.IRVersion, res.Opset, wantOpset)
				}
				if strings.Join(res.Ops, ",") != strings.Join(tc.ops, ",") {
					t.Errorf("ops %v, want %v", res.Ops, tc.ops)
				}
				if res.InputDims[0][0] != "batch" || res.OutputDims[0][0] != "batch" {
					t.Errorf("dims %v -> %v, want a symbolic batch dim", res.InputDims, res.OutputDims)
				}
				for i, x := range inputs {
					want := tc.m.Forward(x).Data()
					got := tensor.FromSlice(res.Outputs[i], len(res.Outputs[i])).Reshape(want.Shape()...)
					if d := oracle.Close(got, want.To(tensor.Float64), 1e-5, 1e-6); d != "" {
						t.Errorf("batch %d: NumPy run of the ONNX file: %s", x.Size(0), d)
					}
				}
			})
		})
	}
}

// fileVersions reads the IR version and the default-domain opset of an ONNX
// file with the package's own protobuf reader.
func fileVersions(t *testing.T, path string) (ir, opset int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := parseFields(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		switch f.num {
		case 1:
			ir = int(f.v)
		case 8:
			ids, err := parseFields(f.b)
			if err != nil {
				t.Fatal(err)
			}
			domain, version := "", 0
			for _, o := range ids {
				switch o.num {
				case 1:
					domain = string(o.b)
				case 2:
					version = int(o.v)
				}
			}
			if domain == "" || domain == "ai.onnx" {
				opset = version
			}
		}
	}
	return ir, opset
}

// Opsets 13 and later are written as asked and read back; an opset below 13 is refused.
func TestONNXOpsetBounds(t *testing.T) {
	m := NewSequential(NewLinear(3, 2), ReLU())
	path := filepath.Join(t.TempDir(), "m.onnx")
	if err := ExportONNX(path, m, agx.Randn(agx.Float32, 1, 3), ONNXOptions{Opset: 12}); !errors.Is(err, tensor.ErrArg) {
		t.Errorf("export with opset 12: %v, want an ErrArg error", err)
	}
	for _, opset := range []int{13, 17, 18} {
		if err := ExportONNX(path, m, agx.Randn(agx.Float32, 1, 3), ONNXOptions{Opset: opset}); err != nil {
			t.Fatalf("opset %d: %v", opset, err)
		}
		if _, got := fileVersions(t, path); got != opset {
			t.Errorf("opset %d written as %d", opset, got)
		}
		if _, err := LoadONNX(path); err != nil {
			t.Errorf("opset %d: reading back: %v", opset, err)
		}
	}
}

func TestONNXRefusesCustomFunction(t *testing.T) {
	m := NewSequential(NewLinear(3, 2), Func("SmoothL1", func(x *agx.Tensor) *agx.Tensor { return functions.SmoothL1(x, 0.5) }))
	path := filepath.Join(t.TempDir(), "m.onnx")
	err := ExportONNX(path, m, agx.Randn(tensor.Float32, 1, 3), ONNXOptions{})
	if err == nil || !strings.Contains(err.Error(), "custom Function SmoothL1 ") {
		t.Fatalf("got %v, want an error naming SmoothL1", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a file was written")
	}
}

// A file written by torch.onnx.export (another producer: IR 7, initializer
// names like "linear.weight") reads into agx and gives PyTorch's outputs.
// PyTorch's exporter at the chapter's opset_version=17 and at 13; ReadONNX
// runs both files, and CheckONNX reports their header.
func TestReadTorchONNX(t *testing.T) {
	oracle.Skip(t)
	for _, opset := range []int{13, 17} {
		t.Run("opset_"+strconv.Itoa(opset), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "torch.onnx")
			g := tensor.NewGenerator(8)
			xs := []*agx.Tensor{agx.New(g.Randn(tensor.Float32, 1, 10)), agx.New(g.Randn(tensor.Float32, 7, 10))}
			in := map[string]any{"path": path, "opset": opset, "inputs": []oracle.Tensor{oracle.Encode(xs[0].Data()), oracle.Encode(xs[1].Data())}}
			var out struct{ Outputs []oracle.Tensor }
			err := oracle.Run(`
import torch, agx_oracle as o
class MyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(10, 5)
        self.out = torch.nn.Linear(5, 3)
    def forward(self, x):
        return torch.softmax(self.out(torch.tanh(self.linear(x)).relu()), -1)
inp = o.load()
torch.manual_seed(0)
m = MyModel().eval()
torch.onnx.export(m, torch.randn(1, 10), inp["path"], input_names=["input"], output_names=["output"],
    dynamic_axes={"input": {0: "batch_size"}, "output": {0: "batch_size"}}, opset_version=inp["opset"])
with torch.no_grad():
    o.dump({"Outputs": [m(o.tensor(x)) for x in inp["inputs"]]})
`, in, &out)
			if err != nil {
				t.Fatal(err)
			}
			gr, err := LoadONNX(path)
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range xs {
				got, err := gr.Run(x)
				if err != nil {
					t.Fatal(err)
				}
				if d := oracle.Close(got[0].Data(), out.Outputs[i].Decode(), 1e-5, 1e-6); d != "" {
					t.Errorf("batch %d: %s\n%v", x.Size(0), d, gr)
				}
			}
			info, err := CheckONNX(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Opset != opset || len(info.Inputs) != 1 || strings.Join(info.Inputs[0].Dims, " ") != "batch_size 10" ||
				len(info.Outputs) != 1 || strings.Join(info.Outputs[0].Dims, " ") != "batch_size 3" {
				t.Errorf("CheckONNX:\n%v", info)
			}
		})
	}
}

func TestCheckONNX(t *testing.T) {
	dir := t.TempDir()
	m := NewSequential(NewLinear(10, 5, WithGenerator(tensor.NewGenerator(1))), ReLU())
	cases := []struct {
		name string
		opts ONNXOptions
		want string
	}{
		{"default", ONNXOptions{}, "ONNX model: IR version 8, opset 13, producer \"agx\"\n  operators: Gemm, Relu\n  input  input [1 10]\n  output output [1 5]"},
		{"opset_17_dynamic", ONNXOptions{Opset: 17, DynamicBatch: true},
			"ONNX model: IR version 8, opset 17, producer \"agx\"\n  operators: Gemm, Relu\n  input  input [batch 10]\n  output output [batch 5]"},
		{"no_gemm", ONNXOptions{NoGemm: true},
			"ONNX model: IR version 8, opset 13, producer \"agx\"\n  operators: Transpose, MatMul, Add, Relu\n  input  input [1 10]\n  output output [1 5]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".onnx")
			if err := ExportONNX(path, m, agx.Randn(agx.Float32, 1, 10), tc.opts); err != nil {
				t.Fatal(err)
			}
			info, err := CheckONNX(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	t.Run("refuses", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.onnx")
		if err := os.WriteFile(bad, onnxModel([]onnxNode{node("Celu", []string{"x"}, "y", nil)}, nil, []string{"x"}, []string{"y"}), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := CheckONNX(bad); !errors.Is(err, ErrFormat) {
			t.Errorf("an unsupported operator: %v, want ErrFormat", err)
		}
		if _, err := CheckONNX(filepath.Join(dir, "missing.onnx")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a missing file: %v", err)
		}
	})
}
