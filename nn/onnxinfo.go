package nn

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ONNXInfo describes an ONNX model as CheckONNX finds it: the versions in
// its header, its operators and the names and dims of its inputs and
// outputs. It is what onnx.checker and a look at the model's graph tell a
// PyTorch user, read with agx's own reader.
type ONNXInfo struct {
	IRVersion int
	Opset     int    // the default domain's opset version
	Producer  string // producer_name
	Ops       []string
	Inputs    []ONNXValue
	Outputs   []ONNXValue
}

// ONNXValue is a graph input or output: its name and dims, each a number
// or the name of a symbolic dim ("batch").
type ONNXValue struct {
	Name string
	Dims []string
}

// String lists the model in a few lines.
func (m *ONNXInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ONNX model: IR version %d, opset %d, producer %q\n", m.IRVersion, m.Opset, m.Producer)
	fmt.Fprintf(&b, "  operators: %s\n", strings.Join(m.Ops, ", "))
	for _, v := range m.Inputs {
		fmt.Fprintf(&b, "  input  %s [%s]\n", v.Name, strings.Join(v.Dims, " "))
	}
	for _, v := range m.Outputs {
		fmt.Fprintf(&b, "  output %s [%s]\n", v.Name, strings.Join(v.Dims, " "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// CheckONNX reads the ONNX model at path with ReadONNX, so with all of its
// checks (operators and attributes it supports, every value defined before
// use, the graph's outputs computed), and returns what the model declares.
// Python's onnx.checker checks a file against the whole ONNX standard;
// CheckONNX checks that agx can run it, and needs nothing but agx.
func CheckONNX(path string) (*ONNXInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if _, err := ReadONNX(bytes.NewReader(data)); err != nil {
		return nil, err
	}
	m, graph, err := readONNXModelInfo(data)
	if err != nil {
		return nil, err
	}
	gfs, err := parseFields(graph)
	if err != nil {
		return nil, err
	}
	inits, err := onnxInitializerNames(gfs)
	if err != nil {
		return nil, err
	}
	if err := m.addGraphInfo(gfs, inits); err != nil {
		return nil, err
	}
	return m, nil
}

// readONNXModelInfo decodes a ModelProto's IR version, producer and
// default-domain opset into a new ONNXInfo, and returns its encoded graph.
func readONNXModelInfo(data []byte) (*ONNXInfo, []byte, error) {
	fs, err := parseFields(data)
	if err != nil {
		return nil, nil, err
	}
	m := &ONNXInfo{}
	var graph []byte
	for _, f := range fs {
		switch f.num {
		case 1:
			m.IRVersion = int(f.v)
		case 2:
			m.Producer = string(f.b)
		case 7:
			graph = f.b
		case 8:
			domain, version, err := decodeOpsetID(f.b)
			if err != nil {
				return nil, nil, err
			}
			if domain == "" || domain == "ai.onnx" {
				m.Opset = int(version)
			}
		}
	}
	return m, graph, nil
}

// onnxInitializerNames returns the names of the graph's initializers.
func onnxInitializerNames(gfs []field) (map[string]bool, error) {
	inits := map[string]bool{}
	for _, f := range gfs {
		if f.num == 5 {
			name, _, err := decodeInitializer(f.b)
			if err != nil {
				return nil, err
			}
			inits[name] = true
		}
	}
	return inits, nil
}

// addGraphInfo records the graph's operators, and its inputs (initializers
// left out) and outputs with their dimensions.
func (m *ONNXInfo) addGraphInfo(gfs []field, inits map[string]bool) error {
	for _, f := range gfs {
		switch f.num {
		case 1:
			n, _, err := decodeNode(f.b)
			if err != nil {
				return err
			}
			m.Ops = append(m.Ops, n.op)
		case 11, 12:
			name, _, shape, params, err := decodeValueInfo(f.b)
			if err != nil {
				return err
			}
			if f.num == 11 && inits[name] {
				continue // an initializer listed as an input too (older exporters)
			}
			v := newONNXValue(name, shape, params)
			if f.num == 11 {
				m.Inputs = append(m.Inputs, v)
			} else {
				m.Outputs = append(m.Outputs, v)
			}
		}
	}
	return nil
}

// newONNXValue describes a value by name and dimensions: a symbolic
// dimension by its parameter name, an unknown one as "?".
func newONNXValue(name string, shape []int, params []string) ONNXValue {
	v := ONNXValue{Name: name}
	for i, d := range shape {
		switch {
		case params[i] != "":
			v.Dims = append(v.Dims, params[i])
		case d < 0:
			v.Dims = append(v.Dims, "?")
		default:
			v.Dims = append(v.Dims, strconv.Itoa(d))
		}
	}
	return v
}
