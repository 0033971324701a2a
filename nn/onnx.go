package nn

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// ONNX files are protobuf messages of onnx.proto. They are written and read
// here with protowire (google.golang.org/protobuf) by field number; these are
// the fields used, from onnx.proto (IR version 8):
//
//	ModelProto          ir_version=1 (int64), producer_name=2, producer_version=3,
//	                    graph=7 (GraphProto), opset_import=8 (OperatorSetIdProto)
//	OperatorSetIdProto  domain=1 (string), version=2 (int64)
//	GraphProto          node=1, name=2, initializer=5 (TensorProto),
//	                    input=11, output=12 (ValueInfoProto)
//	NodeProto           input=1, output=2, name=3, op_type=4, attribute=5, domain=7
//	AttributeProto      name=1, f=2 (float), i=3 (int64), ints=8, type=20
//	                    (AttributeType FLOAT=1, INT=2, INTS=7)
//	TensorProto         dims=1, data_type=2 (FLOAT=1, INT64=7, DOUBLE=11),
//	                    float_data=4, int64_data=7, name=8, raw_data=9, double_data=10
//	ValueInfoProto      name=1, type=2 (TypeProto)
//	TypeProto           tensor_type=1 (TypeProto.Tensor: elem_type=1, shape=2)
//	TensorShapeProto    dim=1 (Dimension: dim_value=1, dim_param=2)

const (
	onnxIRVersion = 8
	onnxFloat     = 1
	onnxInt64     = 7
	onnxDouble    = 11
	attrFloat     = 1
	attrInt       = 2
	attrInts      = 7
)

// ONNXOptions configures ONNX export.
type ONNXOptions struct {
	// DynamicBatch makes dim 0 of the inputs and outputs the symbolic
	// dimension "batch" (torch.onnx.export's dynamic_axes).
	DynamicBatch bool
	// Opset is the default-domain opset version (13 if zero; at least 13).
	Opset int
	// NoGemm keeps Linear layers as Transpose, MatMul and Add instead of
	// fusing them into Gemm.
	NoGemm bool
}

// ONNXOps lists the ONNX operators the exporter writes and the reader runs.
var ONNXOps = []string{"Abs", "Add", "Div", "Erf", "Exp", "Gemm", "Log", "LogSoftmax", "MatMul", "Mul",
	"Neg", "Relu", "Sigmoid", "Softmax", "Sqrt", "Sub", "Tanh", "Transpose"}

type onnxNode struct {
	op      string
	inputs  []string
	outputs []string
	ints    map[string][]int // INTS attributes
	int1    map[string]int   // INT attributes
	floats  map[string]float64
	attrs   map[string]int64 // read from a file: every attribute's type, unsupported ones included
}

// appendMsg appends a length-delimited sub-message.
func appendMsg(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

func appendStr(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendInt(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func (n onnxNode) encode(name string) []byte {
	var b []byte
	for _, in := range n.inputs {
		b = appendStr(b, 1, in)
	}
	for _, o := range n.outputs {
		b = appendStr(b, 2, o)
	}
	b = appendStr(b, 3, name)
	b = appendStr(b, 4, n.op)
	attr := func(name string, typ int64, body func([]byte) []byte) {
		a := appendStr(nil, 1, name)
		a = body(a)
		a = appendInt(a, 20, typ)
		b = appendMsg(b, 5, a)
	}
	for _, k := range sortedKeys(n.floats) {
		attr(k, attrFloat, func(a []byte) []byte {
			a = protowire.AppendTag(a, 2, protowire.Fixed32Type)
			return protowire.AppendFixed32(a, math.Float32bits(float32(n.floats[k])))
		})
	}
	for _, k := range sortedKeys(n.int1) {
		attr(k, attrInt, func(a []byte) []byte { return appendInt(a, 3, int64(n.int1[k])) })
	}
	for _, k := range sortedKeys(n.ints) {
		attr(k, attrInts, func(a []byte) []byte {
			for _, v := range n.ints[k] {
				a = appendInt(a, 8, int64(v))
			}
			return a
		})
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func onnxElem(dt tensor.DType) (int64, error) {
	switch dt {
	case tensor.Float32:
		return onnxFloat, nil
	case tensor.Float64:
		return onnxDouble, nil
	case tensor.Int64:
		return onnxInt64, nil
	}
	return 0, fmt.Errorf("nn: ONNX export: dtype %v is not supported: %w", dt, tensor.ErrDType)
}

func encodeInitializer(name string, t *tensor.Tensor) ([]byte, error) {
	elem, err := onnxElem(t.DType())
	if err != nil {
		return nil, err
	}
	var b []byte
	for _, d := range t.Shape() {
		b = appendInt(b, 1, int64(d))
	}
	b = appendInt(b, 2, elem)
	b = appendStr(b, 8, name)
	b = protowire.AppendTag(b, 9, protowire.BytesType)
	return protowire.AppendBytes(b, encodeTensor(t).data), nil
}

func encodeValueInfo(name string, elem int64, shape []int, dynamic bool) []byte {
	var sh []byte
	for i, d := range shape {
		var dim []byte
		if i == 0 && dynamic {
			dim = appendStr(nil, 2, "batch")
		} else {
			dim = appendInt(nil, 1, int64(d))
		}
		sh = appendMsg(sh, 1, dim)
	}
	tt := appendInt(nil, 1, elem)
	tt = appendMsg(tt, 2, sh)
	typ := appendMsg(nil, 1, tt)
	b := appendStr(nil, 1, name)
	return appendMsg(b, 2, typ)
}

// shapes runs the graph on zeros of the example input shapes and returns every
// value's shape.
func (g *Graph) shapes() (map[string][]int, error) {
	dt := tensor.Float32
	if g.InputDType == "float64" {
		dt = tensor.Float64
	}
	env := map[string][]int{}
	vals := map[string]*agx.Tensor{}
	for name, p := range g.Params {
		vals[name] = agx.New(p)
		env[name] = p.Shape()
	}
	for i, name := range g.Inputs {
		vals[name] = agx.Zeros(dt, g.InputShapes[i]...)
		env[name] = g.InputShapes[i]
	}
	err := agx.Try(func() {
		for i := range g.Nodes {
			n := &g.Nodes[i]
			in := make([]*agx.Tensor, len(n.Inputs))
			for j, name := range n.Inputs {
				in[j] = vals[name]
			}
			vals[n.Output] = n.run(in)
			env[n.Output] = vals[n.Output].Shape()
		}
	})
	return env, err
}

// onnxNodes translates the graph's nodes, fusing Linear layers into Gemm.
func (g *Graph) onnxNodes(shapes map[string][]int, fuse bool) ([]onnxNode, map[string]*tensor.Tensor, error) {
	skip := map[int]bool{}
	gemms := map[int]onnxNode{}
	if fuse {
		gemms, skip = g.fuseLinearGemms(shapes)
	}
	extra := map[string]*tensor.Tensor{}
	var out []onnxNode
	for i, n := range g.Nodes {
		if skip[i] {
			continue
		}
		if gm, ok := gemms[i]; ok {
			out = append(out, gm)
			continue
		}
		ons, err := g.exportNode(n, extra)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, ons...)
	}
	return out, extra, nil
}

// valueUses counts, for each value, how many node inputs and graph outputs
// use it.
func (g *Graph) valueUses() map[string]int {
	uses := map[string]int{}
	for _, n := range g.Nodes {
		for _, in := range n.Inputs {
			uses[in]++
		}
	}
	for _, o := range g.Outputs {
		uses[o]++
	}
	return uses
}

// consumer returns the index of the first node that takes v as an input.
func (g *Graph) consumer(v string) (int, bool) {
	for j, n := range g.Nodes {
		if slices.Contains(n.Inputs, v) {
			return j, true
		}
	}
	return 0, false
}

// fuseLinearGemms finds the Linear layers, Transpose(W) → MatMul(x, Wᵀ)
// [→ Add(·, b)], and returns the Gemm(x, W, b, transB=1) for each, keyed by
// the index of its MatMul (where it is written), with the indices of the
// nodes the Gemm replaces.
func (g *Graph) fuseLinearGemms(shapes map[string][]int) (map[int]onnxNode, map[int]bool) {
	uses := g.valueUses()
	skip := map[int]bool{}
	gemms := map[int]onnxNode{}
	for i, n := range g.Nodes {
		if n.Op != "Transpose" || g.Params[n.Inputs[0]] == nil || len(shapes[n.Inputs[0]]) != 2 || uses[n.Output] != 1 {
			continue
		}
		j, _ := g.consumer(n.Output)
		mm := g.Nodes[j]
		if mm.Op != "MatMul" || mm.Inputs[1] != n.Output || len(shapes[mm.Inputs[0]]) != 2 {
			continue
		}
		gemm := onnxNode{op: "Gemm", inputs: []string{mm.Inputs[0], n.Inputs[0]}, outputs: []string{mm.Output}, int1: map[string]int{"transB": 1}}
		skip[i] = true
		if k, ok := g.consumer(mm.Output); ok && uses[mm.Output] == 1 && g.Nodes[k].Op == "Add" {
			add := g.Nodes[k]
			other := add.Inputs[1]
			if other == mm.Output {
				other = add.Inputs[0]
			}
			if b := g.Params[other]; b != nil && b.Dim() == 1 {
				gemm.inputs = append(gemm.inputs, other)
				gemm.outputs = []string{add.Output}
				skip[k] = true
			}
		}
		gemms[j] = gemm
	}
	return gemms, skip
}

// exportNode translates one graph node into the ONNX nodes that compute it,
// adding any constants they need to extra; a custom Function has no ONNX form.
func (g *Graph) exportNode(n GraphNode, extra map[string]*tensor.Tensor) ([]onnxNode, error) {
	constant := func(v float64, dt tensor.DType) string {
		name := "const_" + strconv.FormatFloat(v, 'g', -1, 64)
		extra[name] = tensor.Full(dt, v)
		return name
	}
	var out []onnxNode
	on := onnxNode{op: n.Op, inputs: n.Inputs, outputs: []string{n.Output}}
	switch n.Op {
	case "Transpose":
		on.ints = map[string][]int{"perm": n.Perm}
	case "Softmax", "LogSoftmax":
		on.int1 = map[string]int{"axis": n.Axis}
	case "Gemm":
		on.floats = map[string]float64{"alpha": n.Alpha, "beta": n.Beta}
		on.int1 = map[string]int{"transA": b2i(n.TransA), "transB": b2i(n.TransB)}
	case "Silu": // x·sigmoid(x)
		s := n.Output + "_sigmoid"
		out = append(out, onnxNode{op: "Sigmoid", inputs: n.Inputs, outputs: []string{s}})
		on = onnxNode{op: "Mul", inputs: []string{n.Inputs[0], s}, outputs: []string{n.Output}}
	case "Gelu": // 0.5·x·(1 + erf(x/√2)); opset 20 has Gelu, 13 does not
		dt := tensor.Float32
		if g.InputDType == "float64" {
			dt = tensor.Float64
		}
		x, p := n.Inputs[0], n.Output+"_"
		out = append(out,
			onnxNode{op: "Div", inputs: []string{x, constant(math.Sqrt2, dt)}, outputs: []string{p + "scaled"}},
			onnxNode{op: "Erf", inputs: []string{p + "scaled"}, outputs: []string{p + "erf"}},
			onnxNode{op: "Add", inputs: []string{p + "erf", constant(1, dt)}, outputs: []string{p + "cdf2"}},
			onnxNode{op: "Mul", inputs: []string{x, p + "cdf2"}, outputs: []string{p + "xcdf2"}})
		on = onnxNode{op: "Mul", inputs: []string{p + "xcdf2", constant(0.5, dt)}, outputs: []string{n.Output}}
	case "Function":
		return nil, fmt.Errorf("nn: ONNX export: custom Function %s (computing %q) has no ONNX form; write it with built-in agx ops, which export, or leave it out of the exported model: %w",
			n.Function, n.Output, tensor.ErrArg)
	}
	return append(out, on), nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// WriteONNX writes g as an ONNX model (IR version 8, default-domain opset 13
// unless opts says otherwise). Custom Functions have no ONNX form and make it
// fail with an error naming the Function; agx's Gelu and Silu are written as
// Erf/Sigmoid compositions.
func (g *Graph) WriteONNX(w io.Writer, opts ONNXOptions) error {
	opset := opts.Opset
	if opset == 0 {
		opset = 13
	}
	if opset < 13 {
		return fmt.Errorf("nn: ONNX export needs opset 13 or later (Softmax's single-axis form), got %d: %w", opset, tensor.ErrArg)
	}
	shapes, err := g.shapes()
	if err != nil {
		return fmt.Errorf("nn: ONNX export: %w", err)
	}
	nodes, extra, err := g.onnxNodes(shapes, !opts.NoGemm)
	if err != nil {
		return err
	}
	dt := tensor.Float32
	if g.InputDType == "float64" {
		dt = tensor.Float64
	}
	elem, err := onnxElem(dt)
	if err != nil {
		return err
	}
	var gb []byte
	for i, n := range nodes {
		gb = appendMsg(gb, 1, n.encode(n.op+"_"+strconv.Itoa(i)))
	}
	gb = appendStr(gb, 2, "agx_graph")
	inits := map[string]*tensor.Tensor{}
	for k, v := range g.Params {
		inits[k] = v
	}
	for k, v := range extra {
		inits[k] = v
	}
	for _, name := range sortedKeys(inits) {
		t, err := encodeInitializer(name, inits[name])
		if err != nil {
			return err
		}
		gb = appendMsg(gb, 5, t)
	}
	for _, name := range g.Inputs {
		gb = appendMsg(gb, 11, encodeValueInfo(name, elem, shapes[name], opts.DynamicBatch))
	}
	for _, name := range g.Outputs {
		gb = appendMsg(gb, 12, encodeValueInfo(name, elem, shapes[name], opts.DynamicBatch))
	}
	var mb []byte
	mb = appendInt(mb, 1, onnxIRVersion)
	mb = appendStr(mb, 2, "agx")
	mb = appendStr(mb, 3, "0.1")
	mb = appendMsg(mb, 7, gb)
	op := appendStr(nil, 1, "")
	op = appendInt(op, 2, int64(opset))
	mb = appendMsg(mb, 8, op)
	_, err = w.Write(mb)
	return err
}

// ExportONNX traces m on example and writes the ONNX model to path, the
// equivalent of torch.onnx.export with input "input" and output "output".
func ExportONNX(path string, m Module, example *agx.Tensor, opts ONNXOptions) error {
	g, err := Trace(m, example)
	if err != nil {
		return err
	}
	return writeFile(path, func(w io.Writer) error { return g.WriteONNX(w, opts) })
}

// field is one decoded protobuf field.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

func parseFields(b []byte) ([]field, error) {
	var fs []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, fmt.Errorf("nn: ONNX: bad protobuf tag: %w", ErrFormat)
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return nil, fmt.Errorf("nn: ONNX: bad protobuf field %d: %w", num, ErrFormat)
		}
		b = b[n:]
		fs = append(fs, f)
	}
	return fs, nil
}

// ints reads a repeated int64 field, packed or not.
func (f field) ints() ([]int64, error) {
	if f.typ == protowire.VarintType {
		return []int64{int64(f.v)}, nil
	}
	var out []int64
	b := f.b
	for len(b) > 0 {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return nil, fmt.Errorf("nn: ONNX: bad packed ints: %w", ErrFormat)
		}
		out = append(out, int64(v))
		b = b[n:]
	}
	return out, nil
}

func decodeInitializer(b []byte) (string, *tensor.Tensor, error) {
	fs, err := parseFields(b)
	if err != nil {
		return "", nil, err
	}
	var (
		name   string
		dims   []int
		elem   int64
		raw    []byte
		hasRaw bool
		floats []float32
		dbls   []float64
		i64s   []int64
	)
	for _, f := range fs {
		switch f.num {
		case 1:
			v, err := f.ints()
			if err != nil {
				return "", nil, err
			}
			for _, d := range v {
				dims = append(dims, int(d))
			}
		case 2:
			elem = int64(f.v)
		case 8:
			name = string(f.b)
		case 9:
			raw, hasRaw = f.b, true
		case 4:
			if f.typ == protowire.Fixed32Type {
				floats = append(floats, math.Float32frombits(uint32(f.v)))
			} else {
				for i := 0; i+4 <= len(f.b); i += 4 {
					floats = append(floats, math.Float32frombits(binary.LittleEndian.Uint32(f.b[i:])))
				}
			}
		case 10:
			if f.typ == protowire.Fixed64Type {
				dbls = append(dbls, math.Float64frombits(f.v))
			} else {
				for i := 0; i+8 <= len(f.b); i += 8 {
					dbls = append(dbls, math.Float64frombits(binary.LittleEndian.Uint64(f.b[i:])))
				}
			}
		case 7:
			v, err := f.ints()
			if err != nil {
				return "", nil, err
			}
			i64s = append(i64s, v...)
		}
	}
	st := map[int64]string{onnxFloat: "F32", onnxDouble: "F64", onnxInt64: "I64"}[elem]
	if st == "" {
		return "", nil, fmt.Errorf("nn: ONNX initializer %q has data type %d (supported: FLOAT, DOUBLE, INT64): %w", name, elem, ErrFormat)
	}
	if !hasRaw {
		var buf bytes.Buffer
		switch elem {
		case onnxFloat:
			binary.Write(&buf, binary.LittleEndian, floats)
		case onnxDouble:
			binary.Write(&buf, binary.LittleEndian, dbls)
		default:
			binary.Write(&buf, binary.LittleEndian, i64s)
		}
		raw = buf.Bytes()
	}
	t, err := decodeTensor(name, rawTensor{st, dims, raw})
	return name, t, err
}

// decodeValueInfo returns a value's name, elem type, shape (-1 for a
// symbolic dim) and the names of its symbolic dims ("" for a fixed one).
func decodeValueInfo(b []byte) (string, int64, []int, []string, error) {
	fs, err := parseFields(b)
	if err != nil {
		return "", 0, nil, nil, err
	}
	var name string
	var elem int64
	var shape []int
	var params []string
	for _, f := range fs {
		switch f.num {
		case 1:
			name = string(f.b)
		case 2:
			tp, err := parseFields(f.b)
			if err != nil {
				return "", 0, nil, nil, err
			}
			for _, t := range tp {
				if t.num != 1 {
					continue
				}
				tt, err := parseFields(t.b)
				if err != nil {
					return "", 0, nil, nil, err
				}
				for _, x := range tt {
					switch x.num {
					case 1:
						elem = int64(x.v)
					case 2:
						dims, err := parseFields(x.b)
						if err != nil {
							return "", 0, nil, nil, err
						}
						for _, d := range dims {
							dv, err := parseFields(d.b)
							if err != nil {
								return "", 0, nil, nil, err
							}
							size, param := -1, ""
							for _, y := range dv {
								switch y.num {
								case 1:
									size = int(y.v)
								case 2:
									param = string(y.b)
								}
							}
							shape = append(shape, size)
							params = append(params, param)
						}
					}
				}
			}
		}
	}
	return name, elem, shape, params, nil
}

func decodeNode(b []byte) (onnxNode, string, error) {
	fs, err := parseFields(b)
	if err != nil {
		return onnxNode{}, "", err
	}
	n := onnxNode{ints: map[string][]int{}, int1: map[string]int{}, floats: map[string]float64{}, attrs: map[string]int64{}}
	var domain string
	for _, f := range fs {
		switch f.num {
		case 1:
			n.inputs = append(n.inputs, string(f.b))
		case 2:
			n.outputs = append(n.outputs, string(f.b))
		case 4:
			n.op = string(f.b)
		case 7:
			domain = string(f.b)
		case 5:
			afs, err := parseFields(f.b)
			if err != nil {
				return n, "", err
			}
			var name string
			var typ int64
			var fv float64
			var iv int
			var ivs []int
			for _, a := range afs {
				switch a.num {
				case 1:
					name = string(a.b)
				case 20:
					typ = int64(a.v)
				case 2:
					fv = float64(math.Float32frombits(uint32(a.v)))
				case 3:
					iv = int(int64(a.v))
				case 8:
					v, err := a.ints()
					if err != nil {
						return n, "", err
					}
					for _, x := range v {
						ivs = append(ivs, int(x))
					}
				}
			}
			if _, dup := n.attrs[name]; dup {
				return n, "", fmt.Errorf("nn: ONNX: operator %s: attribute %q appears twice: %w", n.op, name, ErrFormat)
			}
			n.attrs[name] = typ
			switch typ {
			case attrFloat:
				n.floats[name] = fv
			case attrInt:
				n.int1[name] = iv
			case attrInts:
				n.ints[name] = ivs
			}
		}
	}
	return n, domain, nil
}

// ReadONNX reads an ONNX model made of the operators in ONNXOps (default
// domain, opset 13 or later) into a Graph that runs with agx ops. Unsupported
// operators, data types or opsets give an error naming them.
func ReadONNX(r io.Reader) (*Graph, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	graph, err := onnxModelGraph(data)
	if err != nil {
		return nil, err
	}
	g := &Graph{Params: map[string]*tensor.Tensor{}, InputDType: "float32"}
	nodes, ins, err := g.decodeONNXGraph(graph)
	if err != nil {
		return nil, err
	}
	g.addONNXInputs(ins)
	for i, n := range nodes {
		gn, err := onnxGraphNode(i, n)
		if err != nil {
			return nil, err
		}
		g.Nodes = append(g.Nodes, gn)
	}
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("nn: ONNX: %w", err)
	}
	return g, nil
}

// onnxModelGraph decodes a ModelProto's fields and returns its encoded graph,
// refusing a model without one or whose default-domain opset is below 13.
func onnxModelGraph(data []byte) ([]byte, error) {
	fs, err := parseFields(data)
	if err != nil {
		return nil, err
	}
	var graph []byte
	opset := int64(0)
	for _, f := range fs {
		switch f.num {
		case 7:
			graph = f.b
		case 8:
			dom, ver, err := decodeOpsetID(f.b)
			if err != nil {
				return nil, err
			}
			if dom == "" || dom == "ai.onnx" {
				opset = ver
			}
		}
	}
	if graph == nil {
		return nil, fmt.Errorf("nn: ONNX: the model has no graph: %w", ErrFormat)
	}
	if opset < 13 {
		return nil, fmt.Errorf("nn: ONNX: default-domain opset %d is not supported (13 or later): %w", opset, ErrFormat)
	}
	return graph, nil
}

// decodeOpsetID decodes an OperatorSetIdProto into its domain and version.
func decodeOpsetID(b []byte) (string, int64, error) {
	ids, err := parseFields(b)
	if err != nil {
		return "", 0, err
	}
	dom, ver := "", int64(0)
	for _, o := range ids {
		if o.num == 1 {
			dom = string(o.b)
		} else if o.num == 2 {
			ver = int64(o.v)
		}
	}
	return dom, ver, nil
}

// onnxValueInfo is a graph input as declared in the model: its name, element
// type and shape (negative for a symbolic dimension).
type onnxValueInfo struct {
	name  string
	elem  int64
	shape []int
}

// decodeONNXGraph decodes a GraphProto: initializers go into g.Params and
// output names into g.Outputs; the nodes (default domain only) and the
// declared inputs are returned for the later stages.
func (g *Graph) decodeONNXGraph(graph []byte) ([]onnxNode, []onnxValueInfo, error) {
	gfs, err := parseFields(graph)
	if err != nil {
		return nil, nil, err
	}
	var nodes []onnxNode
	var ins []onnxValueInfo
	for _, f := range gfs {
		switch f.num {
		case 1:
			n, dom, err := decodeNode(f.b)
			if err != nil {
				return nil, nil, err
			}
			if dom != "" && dom != "ai.onnx" {
				return nil, nil, fmt.Errorf("nn: ONNX: operator %s of domain %q is not supported: %w", n.op, dom, ErrFormat)
			}
			nodes = append(nodes, n)
		case 5:
			name, t, err := decodeInitializer(f.b)
			if err != nil {
				return nil, nil, err
			}
			g.Params[name] = t
		case 11:
			name, elem, shape, _, err := decodeValueInfo(f.b)
			if err != nil {
				return nil, nil, err
			}
			ins = append(ins, onnxValueInfo{name, elem, shape})
		case 12:
			name, _, _, _, err := decodeValueInfo(f.b)
			if err != nil {
				return nil, nil, err
			}
			g.Outputs = append(g.Outputs, name)
		}
	}
	return nodes, ins, nil
}

// addONNXInputs records the declared inputs that are not initializers as the
// graph's inputs, with symbolic dimensions set to 1; a double input makes the
// graph's input dtype float64.
func (g *Graph) addONNXInputs(ins []onnxValueInfo) {
	for _, in := range ins {
		if g.Params[in.name] != nil {
			continue // older exporters list initializers as inputs too
		}
		shape := slices.Clone(in.shape)
		for i, d := range shape {
			if d < 0 {
				shape[i] = 1
			}
		}
		g.Inputs = append(g.Inputs, in.name)
		g.InputShapes = append(g.InputShapes, shape)
		if in.elem == onnxDouble {
			g.InputDType = "float64"
		}
	}
}

// onnxGraphNode checks node i (operator, outputs, attributes) and translates
// it into a GraphNode, reading the attributes its operator takes.
func onnxGraphNode(i int, n onnxNode) (GraphNode, error) {
	if !slices.Contains(ONNXOps, n.op) {
		return GraphNode{}, fmt.Errorf("nn: ONNX: operator %s is not supported (supported: %v): %w", n.op, ONNXOps, ErrFormat)
	}
	if len(n.outputs) != 1 || n.outputs[0] == "" {
		return GraphNode{}, fmt.Errorf("nn: ONNX: node %d (%s) has outputs %q; one named output is supported: %w", i, n.op, n.outputs, ErrFormat)
	}
	if err := checkONNXAttrs(i, n); err != nil {
		return GraphNode{}, err
	}
	gn := GraphNode{Op: n.op, Inputs: n.inputs, Output: n.outputs[0]}
	switch n.op {
	case "Softmax", "LogSoftmax":
		gn.Axis = -1
		if a, ok := n.int1["axis"]; ok {
			gn.Axis = a
		}
	case "Transpose":
		gn.Perm = n.ints["perm"]
		if gn.Perm == nil {
			return GraphNode{}, fmt.Errorf("nn: ONNX: Transpose without perm is not supported: %w", ErrFormat)
		}
		if !isPerm(gn.Perm) {
			return GraphNode{}, fmt.Errorf("nn: ONNX: node %d (Transpose): perm %v is not a permutation of 0..%d: %w", i, gn.Perm, len(gn.Perm)-1, ErrFormat)
		}
	case "Gemm":
		gn.Alpha, gn.Beta = 1, 1
		if v, ok := n.floats["alpha"]; ok {
			gn.Alpha = v
		}
		if v, ok := n.floats["beta"]; ok {
			gn.Beta = v
		}
		gn.TransA, gn.TransB = n.int1["transA"] != 0, n.int1["transB"] != 0
		if len(gn.Inputs) == 3 && gn.Inputs[2] == "" {
			gn.Inputs = gn.Inputs[:2]
		}
	}
	return gn, nil
}

// onnxAttrs are the attributes ReadONNX understands, with their types; any
// other attribute would change what the operator computes, so it is refused.
var onnxAttrs = map[string]map[string]int64{
	"Softmax":    {"axis": attrInt},
	"LogSoftmax": {"axis": attrInt},
	"Transpose":  {"perm": attrInts},
	"Gemm":       {"alpha": attrFloat, "beta": attrFloat, "transA": attrInt, "transB": attrInt},
}

var onnxAttrTypes = map[int64]string{attrFloat: "FLOAT", attrInt: "INT", attrInts: "INTS"}

func checkONNXAttrs(i int, n onnxNode) error {
	for _, name := range sortedKeys(n.attrs) {
		typ := n.attrs[name]
		want, ok := onnxAttrs[n.op][name]
		if !ok {
			return fmt.Errorf("nn: ONNX: node %d (%s): attribute %q is not supported: %w", i, n.op, name, ErrFormat)
		}
		if typ != want {
			return fmt.Errorf("nn: ONNX: node %d (%s): attribute %q has type %d, want %s: %w", i, n.op, name, typ, onnxAttrTypes[want], ErrFormat)
		}
	}
	return nil
}

// isPerm reports whether p is a permutation of 0..len(p)-1.
func isPerm(p []int) bool {
	seen := make([]bool, len(p))
	for _, v := range p {
		if v < 0 || v >= len(p) || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// LoadONNX reads an ONNX file (see ReadONNX).
func LoadONNX(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadONNX(f)
}
