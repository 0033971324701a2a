package nn

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/internal/testenv"
	"github.com/goagx/agx/tensor"
)

func TestSafetensorsRoundTrip(t *testing.T) {
	ts := map[string]*tensor.Tensor{
		"f32":    tensor.FromSlice([]float32{1.5, -2, 3, 4, 5, 6}, 2, 3),
		"f64":    tensor.FromSlice([]float64{0.1, 0.2}, 2),
		"i64":    tensor.FromSlice([]int64{-1, 7, 9}, 3),
		"bool":   tensor.FromSlice([]bool{true, false}, 2, 1),
		"scalar": tensor.Scalar(2.5),
		"view":   tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2).T(),
	}
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, ts, map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if n := int(b[0]) | int(b[1])<<8; (n+8)%8 != 0 || b[8] != '{' {
		t.Errorf("header length %d or start %q", n, b[8])
	}
	got, md, err := ReadSafetensors(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if md["k"] != "v" {
		t.Errorf("metadata %v", md)
	}
	for name, want := range ts {
		t.Run(name, func(t *testing.T) {
			g := got[name]
			if g == nil || g.DType() != want.DType() || g.String() != want.String() {
				t.Errorf("got %v, want %v", g, want)
			}
		})
	}
}

// readerScript parses a safetensors file with struct, json and NumPy only
// (Debian has no python3-safetensors), following the format's definition.
const readerScript = `
import json, struct, sys
import numpy as np
data = open(sys.argv[1], "rb").read()
(n,) = struct.unpack("<Q", data[:8])
header = json.loads(data[8:8 + n])
body = data[8 + n:]
kinds = {"F32": "<f4", "F64": "<f8", "I64": "<i8", "BOOL": "?"}
out = {"metadata": header.pop("__metadata__", {}), "tensors": {}}
end = 0
for name, e in header.items():
    a, b = e["data_offsets"]
    end = max(end, b)
    arr = np.frombuffer(body[a:b], dtype=kinds[e["dtype"]]).reshape(e["shape"])
    out["tensors"][name] = {"shape": list(arr.shape), "data": arr.astype(np.float64).ravel().tolist()}
assert end == len(body), "data section has trailing bytes"
json.dump(out, sys.stdout)
`

func TestSafetensorsReadableByPython(t *testing.T) {
	if err := exec.Command(oracle.Python, "-c", "import numpy").Run(); err != nil {
		testenv.Missing(t, "NumPy unavailable to %s (apt-get install python3-numpy)", oracle.Python)
	}
	g := tensor.NewGenerator(5)
	m := NewSequential(NewLinear(4, 3, WithGenerator(g)), ReLU(), NewLinear(3, 2, WithGenerator(g), WithDType(tensor.Float64)))
	path := filepath.Join(t.TempDir(), "model.safetensors")
	if err := Save(path, m); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(oracle.Python, "-c", readerScript, path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Tensors map[string]struct {
			Shape []int
			Data  []float64
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Parameters() {
		py := res.Tensors[p.Name]
		want := p.Tensor.Data().To(tensor.Float64)
		if d := oracle.Close(tensor.FromSlice(py.Data, len(py.Data)).Reshape(py.Shape...), want, 0, 0); d != "" {
			t.Errorf("%s: %s", p.Name, d)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	src := NewSequential(NewLinear(10, 5), ReLU(), NewLinear(5, 2))
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := Save(path, src); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		dst  Module
		want []string
	}{
		{"ok", NewSequential(NewLinear(10, 5), ReLU(), NewLinear(5, 2)), nil},
		{"missing_unexpected", NewSequential(NewLinear(10, 5), NewLinear(5, 2)),
			[]string{`Missing key(s) in state_dict: "1.weight", "1.bias".`, `Unexpected key(s) in state_dict: "2.bias", "2.weight".`}},
		{"size_mismatch", NewSequential(NewLinear(10, 4), ReLU(), NewLinear(4, 2)),
			[]string{"size mismatch for 0.weight: copying a param with shape [5 10] from checkpoint, the shape in current model is [4 10]."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := StateDict(tc.dst)["0.weight"].Clone()
			err := Load(path, tc.dst)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				x := agx.Randn(tensor.Float32, 3, 10)
				if d := oracle.Close(tc.dst.Forward(x).Data(), src.Forward(x).Data(), 0, 0); d != "" {
					t.Error(d)
				}
				return
			}
			var le *LoadError
			if !errors.As(err, &le) || !errors.Is(err, tensor.ErrShape) || !strings.Contains(err.Error(), "Error(s) in loading state_dict for Sequential") {
				t.Fatalf("got %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if StateDict(tc.dst)["0.weight"].String() != before.String() {
				t.Error("a failed load changed the parameters")
			}
		})
	}
	t.Run("malformed", func(t *testing.T) {
		for _, b := range [][]byte{{1, 2}, {4, 0, 0, 0, 0, 0, 0, 0, '[', ']', ' ', ' '}} {
			if _, _, err := ReadSafetensors(bytes.NewReader(b)); !errors.Is(err, ErrFormat) {
				t.Errorf("%v: got %v", b, err)
			}
		}
	})
}

// example C20: save a traced model's graph with its parameters and run it back.
func TestSaveLoadGraph(t *testing.T) {
	RegisterFunction(functions.SmoothL1Function{})
	g := tensor.NewGenerator(20)
	m := NewSequential(NewLinear(10, 5, WithGenerator(g)), ReLU(), Func("SmoothL1", func(x *agx.Tensor) *agx.Tensor { return functions.SmoothL1(x, 0.5) }))
	gr, err := Trace(m, agx.New(g.Randn(tensor.Float32, 1, 10)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gr.String(), `SmoothL1{"Beta":0.5}`) {
		t.Errorf("graph:\n%v", gr)
	}
	path := filepath.Join(t.TempDir(), "graph.safetensors")
	if err := SaveGraph(path, gr); err != nil {
		t.Fatal(err)
	}
	back, err := LoadGraph(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{1, 7} {
		x := agx.New(g.Randn(tensor.Float32, b, 10))
		out, err := back.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		if d := oracle.Close(out[0].Data(), m.Forward(x).Data(), 0, 0); d != "" {
			t.Errorf("batch %d: %s", b, d)
		}
	}
	// A graph saved when node names kept the type's "Function" suffix
	// still loads.
	old := *gr
	old.Nodes = append([]GraphNode(nil), gr.Nodes...)
	renamed := 0
	for i := range old.Nodes {
		if old.Nodes[i].Function == "SmoothL1" {
			old.Nodes[i].Function = "SmoothL1Function"
			renamed++
		}
	}
	if renamed != 1 {
		t.Fatalf("renamed %d nodes, want 1", renamed)
	}
	if err := SaveGraph(path, &old); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadGraph(path); err != nil {
		t.Errorf("a graph naming SmoothL1Function: %v", err)
	}
	// Parameters-only files load into the module but are not graphs.
	if err := Save(path, m); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadGraph(path); !errors.Is(err, ErrFormat) {
		t.Errorf("LoadGraph of a parameters file: %v", err)
	}
}

func TestTraceErrors(t *testing.T) {
	cases := []struct {
		name string
		m    Module
		want string
	}{
		{"go_number", Func("Double", func(x *agx.Tensor) *agx.Tensor { return x.Mul(2) }), "MulBackward0: input 1 is a constant"},
		{"unsupported_op", Func("Sum", func(x *agx.Tensor) *agx.Tensor { return x.Sum(1) }), "SumBackward1: this op has no Graph form"},
		{"no_dependency", Func("Zeros", func(x *agx.Tensor) *agx.Tensor { return agx.Zeros(tensor.Float32, 2) }), "does not depend on the input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Trace(tc.m, agx.Randn(tensor.Float32, 2, 3))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
