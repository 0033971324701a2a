package nn

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// The readers take files from anywhere: whatever the bytes, they return a
// value or an error wrapping ErrFormat, never panic, and what they return
// works. The corpora in testdata/fuzz hold the files that used to crash them.

func FuzzReadSafetensors(f *testing.F) {
	var buf bytes.Buffer
	ts := map[string]*tensor.Tensor{
		"w": tensor.FromSlice([]float32{1, -2, 3, 4, 5, 6}, 2, 3),
		"n": tensor.FromSlice([]int64{7}),
		"m": tensor.FromSlice([]bool{true, false}, 2, 1),
		"s": tensor.Scalar(0.5),
	}
	if err := WriteSafetensors(&buf, ts, map[string]string{"format": "pt"}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(stFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F64","shape":[],"data_offsets":[8,16]}}`, make([]byte, 16), -1))
	f.Add(stFile(`{"a":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]}}`, nil, -1))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, _, err := ReadSafetensors(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		// What was read writes and reads back the same.
		var out bytes.Buffer
		if err := WriteSafetensors(&out, ts, nil); err != nil {
			t.Fatal(err)
		}
		back, _, err := ReadSafetensors(&out)
		if err != nil {
			t.Fatalf("reading back what was written: %v", err)
		}
		for name, x := range ts {
			y := back[name]
			if y == nil || y.DType() != x.DType() || fmt.Sprint(y.Shape()) != fmt.Sprint(x.Shape()) || y.String() != x.String() {
				t.Fatalf("%q: read %v, read back %v", name, x, y)
			}
		}
	})
}

// onnxSeeds are small valid models for the ONNX fuzz targets.
func onnxSeeds() [][]byte {
	w := map[string]*tensor.Tensor{"w": tensor.Ones(tensor.Float32, 3, 3), "b": tensor.Ones(tensor.Float32, 3)}
	x, y := []string{"x"}, []string{"y"}
	return [][]byte{
		onnxModel([]onnxNode{
			node("Gemm", []string{"x", "w", "b"}, "h", map[string]any{"alpha": 2.0, "transB": 1}),
			node("Relu", []string{"h"}, "r", nil),
			node("Softmax", []string{"r"}, "y", map[string]any{"axis": 1}),
		}, w, x, y),
		onnxModel([]onnxNode{
			node("MatMul", []string{"x", "w"}, "h", nil),
			node("Add", []string{"h", "b"}, "a", nil),
			node("Transpose", []string{"a"}, "t", map[string]any{"perm": []int{1, 0}}),
			node("LogSoftmax", []string{"t"}, "y", nil),
		}, w, x, y),
		onnxModel([]onnxNode{node("Tanh", x, "h", nil), node("Mul", []string{"h", "x"}, "y", nil)}, nil, x, y),
	}
}

func FuzzReadONNX(f *testing.F) {
	for _, s := range onnxSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadONNX(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		if err := g.check(); err != nil {
			t.Fatalf("ReadONNX returned a graph that Run refuses: %v", err)
		}
	})
}

// FuzzGraphRun runs the graphs that load on inputs of their declared shapes
// (dims clamped to at most 4, a dim replaced by size) and checks that Run
// returns an error or one non-nil output per graph output.
func FuzzGraphRun(f *testing.F) {
	for _, s := range onnxSeeds() {
		f.Add(s, uint8(0), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, which, size uint8) {
		g, err := ReadONNX(bytes.NewReader(data))
		if err != nil {
			return
		}
		dt := tensor.Float32
		if g.InputDType == "float64" {
			dt = tensor.Float64
		}
		inputs := make([]*agx.Tensor, len(g.Inputs))
		for i := range inputs {
			var shape []int
			if i < len(g.InputShapes) {
				shape = append(shape, g.InputShapes[i]...)
			}
			if len(shape) > 4 {
				shape = shape[:4]
			}
			for j := range shape {
				shape[j] = min(max(shape[j], 0), 4)
			}
			if len(shape) > 0 {
				shape[int(which)%len(shape)] = int(size % 6)
			}
			inputs[i] = agx.Ones(dt, shape...)
		}
		outs, err := g.Run(inputs...)
		if err != nil {
			return
		}
		if len(outs) != len(g.Outputs) {
			t.Fatalf("%d outputs, the graph has %d", len(outs), len(g.Outputs))
		}
		for i, o := range outs {
			if o == nil {
				t.Fatalf("output %d (%s) is nil with no error", i, g.Outputs[i])
			}
		}
	})
}
