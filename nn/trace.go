package nn

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Graph is a traced forward computation: agx's answer to torch.jit.trace. It
// holds the ops a module ran on an example input, in execution order, with the
// module's parameters, and runs again on new inputs (of other batch sizes
// too: shapes are not frozen except where an op needs them).
type Graph struct {
	Inputs  []string    `json:"inputs"`  // value names of the graph inputs
	Outputs []string    `json:"outputs"` // value names of the graph outputs
	Nodes   []GraphNode `json:"nodes"`
	// InputShapes are the example inputs' shapes; dim 0 is the batch.
	InputShapes [][]int `json:"input_shapes"`
	InputDType  string  `json:"input_dtype"`
	// Params are the parameters (ONNX's initializers) by value name.
	Params map[string]*tensor.Tensor `json:"-"`
}

// GraphNode is one op of a Graph. Op is one of the names in GraphOps.
type GraphNode struct {
	Op     string   `json:"op"`
	Inputs []string `json:"inputs"`
	Output string   `json:"output"`
	// Perm is Transpose's permutation; Axis is Softmax's and LogSoftmax's dim.
	Perm []int `json:"perm,omitempty"`
	Axis int   `json:"axis,omitempty"`
	// Gemm: Alpha·op(A)·op(B) + Beta·C with op a transpose where TransA/TransB.
	Alpha  float64 `json:"alpha,omitempty"`
	Beta   float64 `json:"beta,omitempty"`
	TransA bool    `json:"trans_a,omitempty"`
	TransB bool    `json:"trans_b,omitempty"`
	// Function is a custom Function's registered name (Op "Function"), and
	// Attrs its exported fields as JSON.
	Function string          `json:"function,omitempty"`
	Attrs    json.RawMessage `json:"attrs,omitempty"`
	fn       agx.Function
}

// GraphOps are the ops a Graph can hold, with the autograd node each is read
// from by Trace ("Gemm" comes only from ONNX files; "Function" is any custom
// Function registered with RegisterFunction).
var GraphOps = map[string]string{
	"MatMul": "MmBackward0", "Add": "AddBackward0", "Sub": "SubBackward0", "Mul": "MulBackward0",
	"Div": "DivBackward0", "Neg": "NegBackward0", "Exp": "ExpBackward0", "Log": "LogBackward0",
	"Sqrt": "SqrtBackward0", "Abs": "AbsBackward0", "Relu": "ReluBackward0", "Sigmoid": "SigmoidBackward0",
	"Tanh": "TanhBackward0", "Erf": "ErfBackward0", "Gelu": "GeluBackward0", "Silu": "SiluBackward0",
	"Softmax": "SoftmaxBackward0", "LogSoftmax": "LogSoftmaxBackward0", "Transpose": "TransposeBackward0",
	"Gemm": "", "Function": "<Name>Backward",
}

var nodeOps = func() map[string]string {
	m := map[string]string{}
	for op, n := range GraphOps {
		if strings.HasSuffix(n, "Backward0") {
			m[n] = op
		}
	}
	return m
}()

var (
	registryMu sync.Mutex
	registry   = map[string]reflect.Type{}
)

// RegisterFunction makes a custom Function type loadable from a saved Graph:
// proto is any value of the type, registered under the Function's name
// (agx.FunctionName: the name its backward node carries without "Backward",
// so SmoothL1 for functions.SmoothL1Function). Its exported fields are saved
// as JSON. Trace records unregistered Functions too; only loading needs this.
func RegisterFunction(proto agx.Function) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[agx.FunctionName(proto)] = reflect.TypeOf(proto)
}

// TraceError is the error of an op that Trace cannot record.
type TraceError struct {
	Node string // the autograd node's name, e.g. CatBackward0
	Msg  string
}

func (e *TraceError) Error() string { return "nn.Trace: " + e.Node + ": " + e.Msg }

// Trace runs m on example (with gradients recorded) and reads the ops it ran
// from the autograd graph, walking GradFn nodes back from the output: node
// names identify the ops (MmBackward0 → MatMul, ReluBackward0 → Relu, a custom
// Function's node → the Function with its fields). AccumulateGrad leaves are
// the input and m's parameters. Constants that are not parameters (a Go number
// in x*2, a tensor that does not require grad) do not appear in the autograd
// graph, so Trace reports them as an error rather than record a wrong graph;
// make them parameters or leave them out. Like torch.jit.trace it records one
// path: Go control flow is not captured. Trace replays the graph and checks
// that it reproduces the module's output.
func Trace(m Module, example *agx.Tensor) (g *Graph, err error) {
	if !example.DType().IsFloat() {
		return nil, fmt.Errorf("nn.Trace: the example input must be floating point, got %v: %w", example.DType(), tensor.ErrDType)
	}
	params := m.Parameters()
	byTensor := map[*agx.Tensor]string{}
	g = &Graph{Inputs: []string{"input"}, Params: map[string]*tensor.Tensor{},
		InputShapes: [][]int{example.Shape()}, InputDType: example.DType().String()}
	for _, p := range params {
		byTensor[p.Tensor] = p.Name
		if !p.Tensor.RequiresGrad() {
			return nil, fmt.Errorf("nn.Trace: parameter %s does not require grad, so the graph cannot show where it is used: %w", p.Name, agx.ErrGraph)
		}
	}
	x := agx.New(example.Data()).SetRequiresGrad(true)
	var out *agx.Tensor
	if err := agx.Try(func() { out = m.Forward(x) }); err != nil {
		return nil, fmt.Errorf("nn.Trace: forward failed: %w", err)
	}
	if out.GradFn() == nil {
		return nil, fmt.Errorf("nn.Trace: the output does not depend on the input or any parameter: %w", agx.ErrGraph)
	}
	t := &tracer{g: g, x: x, names: byTensor, done: map[*agx.Node]string{}, vals: map[string]*agx.Tensor{"input": x.Detach()}}
	for p, name := range byTensor {
		t.vals[name] = p.Detach()
	}
	var last string
	if err := t.walk(out.GradFn(), &last); err != nil {
		return nil, err
	}
	if out.OutputNr() != 0 {
		return nil, &TraceError{out.GradFn().Name(), "the output is not the first output of its op"}
	}
	// Name the result "output".
	for i := range g.Nodes {
		if g.Nodes[i].Output == last {
			g.Nodes[i].Output = "output"
		}
		for j, in := range g.Nodes[i].Inputs {
			if in == last {
				g.Nodes[i].Inputs[j] = "output"
			}
		}
	}
	g.Outputs = []string{"output"}
	res, err := g.Run(x.Detach())
	if err != nil {
		return nil, err
	}
	if !allClose(res[0].Data(), out.Data()) {
		return nil, fmt.Errorf("nn.Trace: the traced graph does not reproduce the module's output: %w", agx.ErrGraph)
	}
	return g, nil
}

type tracer struct {
	g     *Graph
	x     *agx.Tensor
	names map[*agx.Tensor]string
	done  map[*agx.Node]string
	vals  map[string]*agx.Tensor // replayed values, to recover attributes
	n     int
}

// walk visits the graph from root, turning a TraceError panic (or an agx
// error from a replayed op) into an error.
func (t *tracer) walk(root *agx.Node, last *string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			te, ok := r.(*TraceError)
			if !ok {
				panic(r)
			}
			err = te
		}
	}()
	return agx.Try(func() { *last = t.visit(root) })
}

func (t *tracer) fail(n *agx.Node, format string, a ...any) {
	panic(&TraceError{n.Name(), fmt.Sprintf(format, a...)})
}

// visit records n (after its inputs) and returns the name of its output.
func (t *tracer) visit(n *agx.Node) string {
	if name, ok := t.done[n]; ok {
		return name
	}
	if v := n.Variable(); v != nil {
		if v == t.x {
			return "input"
		}
		name, ok := t.names[v]
		if !ok {
			t.fail(n, "the forward reads a tensor that requires grad but is neither the input nor a parameter of the module")
		}
		t.g.Params[name] = v.Data()
		t.done[n] = name
		return name
	}
	if n.NumOutputs() != 1 {
		t.fail(n, "ops with %d outputs are not supported", n.NumOutputs())
	}
	var ins []string
	for i, e := range n.NextFunctions() {
		if e.Node == nil {
			t.fail(n, "input %d is a constant (a Go number or a tensor that does not require grad), which the autograd graph does not record; make it a parameter", i)
		}
		if e.Input != 0 {
			t.fail(n, "input %d is output %d of %s; only single-output ops are supported", i, e.Input, e.Node.Name())
		}
		ins = append(ins, t.visit(e.Node))
	}
	t.n++
	gn := GraphNode{Inputs: ins, Output: "v" + strconv.Itoa(t.n)}
	if f := n.Function(); f != nil {
		gn.Op, gn.Function, gn.fn = "Function", agx.FunctionName(f), f
		if b, err := json.Marshal(f); err == nil {
			gn.Attrs = b
		}
	} else if op, ok := nodeOps[n.Name()]; ok {
		gn.Op = op
	} else {
		t.fail(n, "this op has no Graph form (supported: %s)", strings.Join(supportedNodes(), ", "))
	}
	in0 := t.vals[ins[0]]
	switch gn.Op {
	case "Transpose":
		gn.Perm = transposePerm(n, in0.Shape(), n.OutputShape(0), t)
	case "Softmax", "LogSoftmax":
		gn.Axis = softmaxAxis(n, gn.Op, in0, t)
	}
	vals := make([]*agx.Tensor, len(ins))
	for i, in := range ins {
		vals[i] = t.vals[in]
	}
	t.vals[gn.Output] = gn.run(vals)
	t.g.Nodes = append(t.g.Nodes, gn)
	t.done[n] = gn.Output
	return gn.Output
}

func supportedNodes() []string {
	var s []string
	for n := range nodeOps {
		s = append(s, n)
	}
	slices.Sort(s)
	return append(s, "custom Functions")
}

// transposePerm finds the two swapped dims from the input and output shapes.
func transposePerm(n *agx.Node, in, out []int, t *tracer) []int {
	perm := make([]int, len(in))
	for i := range perm {
		perm[i] = i
	}
	if len(in) == 2 {
		perm[0], perm[1] = 1, 0
		return perm
	}
	var diff []int
	for i := range in {
		if in[i] != out[i] {
			diff = append(diff, i)
		}
	}
	if len(diff) != 2 {
		t.fail(n, "cannot tell which dims of a %v tensor were swapped (sizes are equal); transpose 2-D tensors or use distinct sizes", in)
	}
	perm[diff[0]], perm[diff[1]] = diff[1], diff[0]
	return perm
}

// softmaxAxis finds the dim whose softmax reproduces the output the node
// saved, counted from the end (so that it holds for any batch size).
func softmaxAxis(n *agx.Node, op string, x *agx.Tensor, t *tracer) int {
	saved := n.SavedValues()
	if len(saved) == 0 || saved[0] == nil {
		t.fail(n, "the saved output was released; trace before calling Backward")
	}
	for d := x.Dim() - 1; d >= 0; d-- {
		y := x.Softmax(d)
		if op == "LogSoftmax" {
			y = x.LogSoftmax(d)
		}
		if allClose(y.Data(), saved[0].Data()) {
			return d - x.Dim()
		}
	}
	t.fail(n, "no dim of the input reproduces the output")
	return 0
}

func allClose(a, b *tensor.Tensor) bool {
	if !slices.Equal(a.Shape(), b.Shape()) {
		return false
	}
	av, bv := a.Float64s(), b.Float64s()
	for i := range av {
		if math.Abs(av[i]-bv[i]) > 1e-5+1e-4*math.Abs(bv[i]) {
			return false
		}
	}
	return true
}

// run computes the node with agx ops (differentiable).
func (n *GraphNode) run(in []*agx.Tensor) *agx.Tensor {
	a := in[0]
	switch n.Op {
	case "MatMul":
		return a.MatMul(in[1])
	case "Add":
		return a.Add(in[1])
	case "Sub":
		return a.Sub(in[1])
	case "Mul":
		return a.Mul(in[1])
	case "Div":
		return a.Div(in[1])
	case "Neg":
		return a.Neg()
	case "Exp":
		return a.Exp()
	case "Log":
		return a.Log()
	case "Sqrt":
		return a.Sqrt()
	case "Abs":
		return a.Abs()
	case "Relu":
		return a.Relu()
	case "Sigmoid":
		return a.Sigmoid()
	case "Tanh":
		return a.Tanh()
	case "Erf":
		return a.Erf()
	case "Gelu":
		return a.GELU()
	case "Silu":
		return a.SiLU()
	case "Softmax":
		return a.Softmax(n.Axis)
	case "LogSoftmax":
		return a.LogSoftmax(n.Axis)
	case "Transpose":
		return a.Permute(n.Perm...)
	case "Gemm":
		x, w := a, in[1]
		if n.TransA {
			x = x.T()
		}
		if n.TransB {
			w = w.T()
		}
		y := x.MatMul(w)
		if n.Alpha != 1 {
			y = y.Mul(n.Alpha)
		}
		if len(in) > 2 {
			c := in[2]
			if n.Beta != 1 {
				c = c.Mul(n.Beta)
			}
			y = y.Add(c)
		}
		return y
	case "Function":
		if n.fn == nil {
			tensor.Panicf("nn.Graph", tensor.ErrArg, "custom Function %q is not registered (nn.RegisterFunction)", n.Function)
		}
		return agx.Apply(n.fn, in...)
	}
	tensor.Panicf("nn.Graph", tensor.ErrArg, "unknown op %q", n.Op)
	return nil
}

// Run executes the graph on inputs (one per graph input) with agx ops and
// returns its outputs; they are differentiable with respect to the inputs.
// Parameters are used as constants. Shape errors come back as errors.
func (g *Graph) Run(inputs ...*agx.Tensor) (outs []*agx.Tensor, err error) {
	if len(inputs) != len(g.Inputs) {
		return nil, fmt.Errorf("nn.Graph.Run: got %d inputs, the graph takes %d (%s): %w", len(inputs), len(g.Inputs), strings.Join(g.Inputs, ", "), tensor.ErrArg)
	}
	for i, x := range inputs {
		if x == nil {
			return nil, fmt.Errorf("nn.Graph.Run: input %d (%s) is nil: %w", i, g.Inputs[i], tensor.ErrArg)
		}
	}
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("nn.Graph.Run: %w", err)
	}
	env := map[string]*agx.Tensor{}
	for name, p := range g.Params {
		env[name] = agx.New(p)
	}
	for i, name := range g.Inputs {
		env[name] = inputs[i]
	}
	err = agx.Try(func() {
		for i := range g.Nodes {
			n := &g.Nodes[i]
			vals := make([]*agx.Tensor, len(n.Inputs))
			for j, in := range n.Inputs {
				vals[j] = env[in] // check has seen that it is defined
			}
			env[n.Output] = n.run(vals)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("nn.Graph.Run: %w", err)
	}
	for _, name := range g.Outputs {
		outs = append(outs, env[name])
	}
	return outs, nil
}

// graphArity returns how many inputs op takes, at least and at most.
func graphArity(op string) (lo, hi int) {
	switch op {
	case "MatMul", "Add", "Sub", "Mul", "Div":
		return 2, 2
	case "Gemm":
		return 2, 3
	case "Function":
		return 1, math.MaxInt
	}
	return 1, 1
}

// check verifies what Run relies on: known ops with the right number of
// inputs, every value read after something (an input, a parameter or an
// earlier node) defines it, non-nil parameters, and at least one output,
// each of them defined.
func (g *Graph) check() error {
	defined := map[string]bool{}
	for name, p := range g.Params {
		if p == nil {
			return fmt.Errorf("parameter %q is nil: %w", name, tensor.ErrArg)
		}
		defined[name] = true
	}
	for _, name := range g.Inputs {
		defined[name] = true
	}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if _, ok := GraphOps[n.Op]; !ok {
			return fmt.Errorf("node %d has unknown op %q: %w", i, n.Op, ErrFormat)
		}
		if lo, hi := graphArity(n.Op); len(n.Inputs) < lo || len(n.Inputs) > hi {
			want := strconv.Itoa(lo)
			if hi > lo {
				want = fmt.Sprintf("%d to %d", lo, hi)
			}
			return fmt.Errorf("node %d (%s) has %d inputs, the op takes %s: %w", i, n.Op, len(n.Inputs), want, ErrFormat)
		}
		for _, in := range n.Inputs {
			if !defined[in] {
				return fmt.Errorf("node %d (%s) reads %q, which no input, parameter or earlier node defines: %w", i, n.Op, in, ErrFormat)
			}
		}
		defined[n.Output] = true
	}
	if len(g.Outputs) == 0 {
		return fmt.Errorf("the graph has no output: %w", ErrFormat)
	}
	for _, name := range g.Outputs {
		if !defined[name] {
			return fmt.Errorf("output %q is not an input, a parameter or a node's output: %w", name, ErrFormat)
		}
	}
	return nil
}

// String lists the graph one op per line, like a printed TorchScript graph.
func (g *Graph) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "graph(%s):\n", strings.Join(g.Inputs, ", "))
	for _, n := range g.Nodes {
		op := n.Op
		switch {
		case n.Op == "Function":
			op = n.Function + string(n.Attrs)
		case n.Op == "Transpose":
			op += fmt.Sprintf("[perm=%v]", n.Perm)
		case n.Op == "Softmax" || n.Op == "LogSoftmax":
			op += fmt.Sprintf("[axis=%d]", n.Axis)
		}
		fmt.Fprintf(&b, "  %s = %s(%s)\n", n.Output, op, strings.Join(n.Inputs, ", "))
	}
	fmt.Fprintf(&b, "  return (%s)", strings.Join(g.Outputs, ", "))
	return b.String()
}

// resolve binds the registered Function types of a decoded graph and checks
// that every node's op is known.
func (g *Graph) resolve() error {
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if _, ok := GraphOps[n.Op]; !ok {
			return fmt.Errorf("nn: graph node %d has unknown op %q: %w", i, n.Op, ErrFormat)
		}
		if n.Op != "Function" || n.fn != nil {
			continue
		}
		registryMu.Lock()
		typ, ok := registry[n.Function]
		if !ok {
			// Graphs saved before agx's node names dropped a trailing
			// "Function" from the type name name it in full.
			typ, ok = registry[strings.TrimSuffix(n.Function, "Function")]
		}
		registryMu.Unlock()
		if !ok {
			return fmt.Errorf("nn: graph uses custom Function %q; register it with nn.RegisterFunction before loading: %w", n.Function, tensor.ErrArg)
		}
		ptr := reflect.New(typ)
		if len(n.Attrs) > 0 {
			if err := json.Unmarshal(n.Attrs, ptr.Interface()); err != nil {
				return fmt.Errorf("nn: custom Function %q: %v: %w", n.Function, err, ErrFormat)
			}
		}
		n.fn = ptr.Elem().Interface().(agx.Function)
	}
	return nil
}

const graphKey = "agx.graph"

// WriteGraph writes g as one safetensors stream: the parameters as tensors and
// the graph as JSON in the metadata under "agx.graph".
func WriteGraph(w io.Writer, g *Graph) error {
	js, err := json.Marshal(g)
	if err != nil {
		return err
	}
	return WriteSafetensors(w, g.Params, map[string]string{graphKey: string(js), "format": "agx"})
}

// ReadGraph reads a graph written by WriteGraph.
func ReadGraph(r io.Reader) (*Graph, error) {
	ts, md, err := ReadSafetensors(r)
	if err != nil {
		return nil, err
	}
	js, ok := md[graphKey]
	if !ok {
		return nil, fmt.Errorf("nn: no %q entry in the safetensors metadata (parameters only? use nn.Load): %w", graphKey, ErrFormat)
	}
	g := &Graph{}
	if err := json.Unmarshal([]byte(js), g); err != nil {
		return nil, fmt.Errorf("nn: graph JSON: %v: %w", err, ErrFormat)
	}
	g.Params = ts
	if err := g.resolve(); err != nil {
		return nil, err
	}
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("nn: graph: %w", err)
	}
	return g, nil
}

// SaveGraph writes g with its parameters to path (see WriteGraph).
func SaveGraph(path string, g *Graph) error {
	return writeFile(path, func(w io.Writer) error { return WriteGraph(w, g) })
}

// LoadGraph reads a graph saved by SaveGraph.
func LoadGraph(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadGraph(f)
}
