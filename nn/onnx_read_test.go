package nn

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// onnxModel encodes a model (opset 13) of the given nodes, initializers,
// float32 inputs of shape [2 3] and outputs, as WriteONNX would.
func onnxModel(nodes []onnxNode, inits map[string]*tensor.Tensor, inputs, outputs []string) []byte {
	var gb []byte
	for i, n := range nodes {
		gb = appendMsg(gb, 1, n.encode(n.op+"_"+string(rune('a'+i))))
	}
	for _, name := range sortedKeys(inits) {
		t, err := encodeInitializer(name, inits[name])
		if err != nil {
			panic(err)
		}
		gb = appendMsg(gb, 5, t)
	}
	for _, name := range inputs {
		gb = appendMsg(gb, 11, encodeValueInfo(name, onnxFloat, []int{2, 3}, false))
	}
	for _, name := range outputs {
		gb = appendMsg(gb, 12, encodeValueInfo(name, onnxFloat, []int{2, 3}, false))
	}
	mb := appendInt(nil, 1, onnxIRVersion)
	mb = appendMsg(mb, 7, gb)
	op := appendStr(nil, 1, "")
	op = appendInt(op, 2, 13)
	return appendMsg(mb, 8, op)
}

// node builds an onnxNode; attrs maps a name to a float64 (FLOAT), an int
// (INT) or an []int (INTS).
func node(op string, inputs []string, output string, attrs map[string]any) onnxNode {
	n := onnxNode{op: op, inputs: inputs, ints: map[string][]int{}, int1: map[string]int{}, floats: map[string]float64{}}
	if output != "" {
		n.outputs = []string{output}
	}
	for k, v := range attrs {
		switch v := v.(type) {
		case float64:
			n.floats[k] = v
		case int:
			n.int1[k] = v
		case []int:
			n.ints[k] = v
		}
	}
	return n
}

// Models that ReadONNX must refuse with an ErrFormat error naming the
// problem: before, most of them loaded and then made Graph.Run panic (an
// index out of range for missing inputs) or return a nil output.
func TestReadONNXRefuses(t *testing.T) {
	w := map[string]*tensor.Tensor{"w": tensor.Ones(tensor.Float32, 3, 3), "b": tensor.Ones(tensor.Float32, 3)}
	x := []string{"x"}
	y := []string{"y"}
	cases := []struct {
		name  string
		nodes []onnxNode
		outs  []string
		want  string
	}{
		{"unary-no-input", []onnxNode{node("Relu", nil, "y", nil)}, y, "has 0 inputs, the op takes 1"},
		{"unary-two-inputs", []onnxNode{node("Exp", []string{"x", "x"}, "y", nil)}, y, "has 2 inputs, the op takes 1"},
		{"binary-one-input", []onnxNode{node("MatMul", x, "y", nil)}, y, "has 1 inputs, the op takes 2"},
		{"binary-three-inputs", []onnxNode{node("Add", []string{"x", "x", "x"}, "y", nil)}, y, "the op takes 2"},
		{"gemm-four-inputs", []onnxNode{node("Gemm", []string{"x", "w", "b", "b"}, "y", nil)}, y, "the op takes 2 to 3"},
		{"no-output-name", []onnxNode{node("Relu", x, "", nil)}, y, "one named output"},
		{"perm-as-int", []onnxNode{node("Transpose", x, "y", map[string]any{"perm": 1})}, y, `attribute "perm" has type 2, want INTS`},
		{"perm-repeated", []onnxNode{node("Transpose", x, "y", map[string]any{"perm": []int{0, 0}})}, y, "not a permutation"},
		{"perm-out-of-range", []onnxNode{node("Transpose", x, "y", map[string]any{"perm": []int{0, 5}})}, y, "not a permutation"},
		{"axis-as-float", []onnxNode{node("Softmax", x, "y", map[string]any{"axis": 1.0})}, y, `attribute "axis" has type 1, want INT`},
		{"unknown-attribute", []onnxNode{node("Relu", x, "y", map[string]any{"alpha": 0.1})}, y, `attribute "alpha" is not supported`},
		{"gemm-unknown-attribute", []onnxNode{node("Gemm", []string{"x", "w"}, "y", map[string]any{"broadcast": 1})}, y, `"broadcast" is not supported`},
		{"undefined-input", []onnxNode{node("Relu", []string{"z"}, "y", nil)}, y, `reads "z"`},
		{"used-before-defined", []onnxNode{node("Relu", []string{"h"}, "y", nil), node("Exp", x, "h", nil)}, y, `reads "h"`},
		{"undefined-output", []onnxNode{node("Relu", x, "y", nil)}, []string{"nope"}, `output "nope"`},
		{"no-output", []onnxNode{node("Relu", x, "y", nil)}, nil, "no output"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := ReadONNX(bytes.NewReader(onnxModel(c.nodes, w, x, c.outs)))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got graph %v, error %v; want ErrFormat saying %q", g, err, c.want)
			}
		})
	}
	t.Run("ok", func(t *testing.T) {
		nodes := []onnxNode{
			node("Gemm", []string{"x", "w", "b"}, "h", map[string]any{"alpha": 2.0, "transB": 1}),
			node("Transpose", []string{"h"}, "t", map[string]any{"perm": []int{1, 0}}),
			node("Softmax", []string{"t"}, "y", map[string]any{"axis": 1}),
		}
		g, err := ReadONNX(bytes.NewReader(onnxModel(nodes, w, x, y)))
		if err != nil {
			t.Fatal(err)
		}
		out, err := g.Run(agx.Ones(tensor.Float32, 2, 3))
		if err != nil || len(out) != 1 || out[0] == nil {
			t.Fatalf("Run: %v, %v", out, err)
		}
		// Every element of h is 2·3 + 1 = 7, so a softmax over rows of two is ½.
		for _, v := range out[0].Float64s() {
			if v != 0.5 {
				t.Fatalf("Run: %v", out[0])
			}
		}
	})
}

// Graph.Run refuses nil inputs and graphs whose nodes it cannot run with an
// error: never a panic, never a nil output with a nil error.
func TestGraphRunErrors(t *testing.T) {
	relu := GraphNode{Op: "Relu", Inputs: []string{"input"}, Output: "output"}
	ones := agx.Ones(tensor.Float32, 2, 3)
	cases := []struct {
		name   string
		g      Graph
		inputs []*agx.Tensor
		kind   error
		want   string
	}{
		{"nil-input", Graph{Inputs: []string{"input"}, Outputs: []string{"output"}, Nodes: []GraphNode{relu}},
			[]*agx.Tensor{nil}, tensor.ErrArg, "input 0 (input) is nil"},
		{"missing-output", Graph{Inputs: []string{"input"}, Outputs: []string{"nope"}, Nodes: []GraphNode{relu}},
			[]*agx.Tensor{ones}, ErrFormat, `output "nope"`},
		{"no-inputs-for-node", Graph{Inputs: []string{"input"}, Outputs: []string{"output"},
			Nodes: []GraphNode{{Op: "Relu", Output: "output"}}}, []*agx.Tensor{ones}, ErrFormat, "has 0 inputs"},
		{"matmul-one-input", Graph{Inputs: []string{"input"}, Outputs: []string{"output"},
			Nodes: []GraphNode{{Op: "MatMul", Inputs: []string{"input"}, Output: "output"}}}, []*agx.Tensor{ones}, ErrFormat, "has 1 inputs"},
		{"nil-parameter", Graph{Inputs: []string{"input"}, Outputs: []string{"output"}, Nodes: []GraphNode{relu},
			Params: map[string]*tensor.Tensor{"w": nil}}, []*agx.Tensor{ones}, tensor.ErrArg, `parameter "w" is nil`},
		{"unknown-op", Graph{Inputs: []string{"input"}, Outputs: []string{"output"},
			Nodes: []GraphNode{{Op: "Frobnicate", Inputs: []string{"input"}, Output: "output"}}}, []*agx.Tensor{ones}, ErrFormat, "unknown op"},
		{"bad-perm", Graph{Inputs: []string{"input"}, Outputs: []string{"output"},
			Nodes: []GraphNode{{Op: "Transpose", Inputs: []string{"input"}, Output: "output", Perm: []int{0, 7}}}}, []*agx.Tensor{ones}, tensor.ErrIndex, "Permute"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := c.g.Run(c.inputs...)
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, %v; want an error wrapping %v saying %q", out, err, c.kind, c.want)
			}
		})
	}
}
