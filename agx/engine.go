package agx

import (
	"container/heap"
	"slices"

	"github.com/goagx/agx/tensor"
)

// BackwardOption configures Backward and Grad.
type BackwardOption func(*backwardConfig)

type backwardConfig struct {
	retainGraph    bool
	retainSet      bool
	createGraph    bool
	allowUnused    bool
	gradOutputs    []*Tensor
	undefinedRoots bool // GradCheck: start with no gradient at all for the outputs
}

// RetainGraph keeps saved tensors after the pass so the graph can be
// differentiated again. It defaults to the value of CreateGraph.
func RetainGraph(on ...bool) BackwardOption {
	return func(c *backwardConfig) { c.retainGraph, c.retainSet = len(on) == 0 || on[0], true }
}

// CreateGraph records the backward computation itself, so that the gradients
// can be differentiated again (double backward).
func CreateGraph(on ...bool) BackwardOption {
	return func(c *backwardConfig) { c.createGraph = len(on) == 0 || on[0] }
}

// AllowUnused makes Grad return nil for inputs the outputs do not depend on,
// instead of failing.
func AllowUnused(on ...bool) BackwardOption {
	return func(c *backwardConfig) { c.allowUnused = len(on) == 0 || on[0] }
}

// GradOutputs gives the gradients with respect to the outputs ("vector" of the
// vector-Jacobian product), one per output; nil entries mean ones for a scalar.
// For Backward, Gradient(g) is the one-output spelling.
func GradOutputs(gs ...*Tensor) BackwardOption {
	return func(c *backwardConfig) { c.gradOutputs = gs }
}

// Gradient is GradOutputs for Backward's single output.
func Gradient(g *Tensor) BackwardOption { return GradOutputs(g) }

func configure(opts []BackwardOption) backwardConfig {
	var c backwardConfig
	for _, o := range opts {
		o(&c)
	}
	if !c.retainSet {
		c.retainGraph = c.createGraph
	}
	return c
}

// Backward computes the gradient of t with respect to every leaf that requires
// grad and accumulates it into their Grad(). t must be a scalar unless a
// Gradient is given.
func (t *Tensor) Backward(opts ...BackwardOption) {
	c := configure(opts)
	run("Backward", []*Tensor{t}, nil, c)
}

// Grad computes and returns the gradients of outputs with respect to inputs,
// without accumulating into any Grad(). Only the part of the graph between them
// runs. An input the outputs do not depend on is an error unless AllowUnused is
// given, when its gradient is nil.
func Grad(outputs, inputs []*Tensor, opts ...BackwardOption) []*Tensor {
	c := configure(opts)
	if len(inputs) == 0 {
		tensor.Panicf("Grad", ErrGraph, "grad requires at least one input")
	}
	return run("Grad", outputs, inputs, c)
}

// MustGrad1 is Grad for one output and one input.
func Grad1(output, input *Tensor, opts ...BackwardOption) *Tensor {
	return Grad([]*Tensor{output}, []*Tensor{input}, opts...)[0]
}

// readyQueue orders ready nodes by creation sequence, newest first, as PyTorch
// does; dependencies guarantee correctness, the order makes runs reproducible.
type readyQueue []*Node

func (q readyQueue) Len() int           { return len(q) }
func (q readyQueue) Less(i, j int) bool { return q[i].seq > q[j].seq }
func (q readyQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *readyQueue) Push(x any)        { *q = append(*q, x.(*Node)) }
func (q *readyQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}

type capture struct {
	node *Node
	slot int
	grad *Tensor
}

func run(op string, outputs, inputs []*Tensor, c backwardConfig) []*Tensor {
	if len(c.gradOutputs) != 0 && len(c.gradOutputs) != len(outputs) {
		tensor.Panicf(op, ErrGraph, "got %d gradient outputs for %d outputs", len(c.gradOutputs), len(outputs))
	}
	// Root gradients.
	rootEdges := make([]Edge, len(outputs))
	rootGrads := make([]*Tensor, len(outputs))
	for i, o := range outputs {
		if o == nil || !o.RequiresGrad() {
			tensor.PanicHint(op, ErrGraph, "call SetRequiresGrad(true) on the leaves you differentiate with respect to",
				"element %d of tensors does not require grad and does not have a grad_fn", i)
		}
		var g *Tensor
		if len(c.gradOutputs) > 0 {
			g = c.gradOutputs[i]
		}
		if c.undefinedRoots {
			rootEdges[i] = gradEdge(o)
			continue
		}
		if g == nil {
			if o.Numel() != 1 {
				tensor.PanicHint(op, ErrGraph, "pass Gradient(agx.OnesLike(y)) or reduce with Sum() first",
					"grad can be implicitly created only for scalar outputs (output %d has shape %v)", i, o.Shape())
			}
			g = wrap(tensor.OnesLike(o.data))
		} else if !slices.Equal(g.data.Shape(), o.data.Shape()) {
			tensor.Panicf(op, ErrGraph, "mismatch in shape: grad_output[%d] has a shape of %v and output[%d] has a shape of %v", i, g.data.Shape(), i, o.data.Shape())
		}
		if !c.createGraph && g.RequiresGrad() {
			g = g.Detach()
		}
		rootEdges[i] = gradEdge(o)
		rootGrads[i] = g
	}

	// Capture points for Grad.
	var caps []*capture
	capAt := map[*Node][]*capture{}
	if inputs != nil {
		for i, in := range inputs {
			if in == nil || !in.RequiresGrad() {
				tensor.Panicf(op, ErrGraph, "input %d of grad does not require grad", i)
			}
			e := gradEdge(in)
			cp := &capture{node: e.Node, slot: e.Input}
			caps = append(caps, cp)
			capAt[e.Node] = append(capAt[e.Node], cp)
		}
	}

	// Discover the graph iteratively: dependency counts, and (for Grad) which
	// nodes lie on a path to an input.
	deps := map[*Node]int{}
	var order []*Node // discovery order (parents before children not guaranteed)
	seen := map[*Node]bool{}
	stack := make([]*Node, 0, 64)
	for _, e := range rootEdges {
		if !seen[e.Node] {
			seen[e.Node] = true
			stack = append(stack, e.Node)
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, n)
		for _, e := range n.next {
			if e.Node == nil {
				continue
			}
			deps[e.Node]++
			if !seen[e.Node] {
				seen[e.Node] = true
				stack = append(stack, e.Node)
			}
		}
	}
	var needed map[*Node]bool
	if inputs != nil {
		// A node is needed (runs) when some capture point lies strictly below
		// it; a capture point itself runs only if another one lies below it, so
		// that Grad neither computes nor frees more than it must. Process in
		// reverse topological order: Kahn's order over discovered nodes.
		needed = map[*Node]bool{}
		reach := map[*Node]bool{} // a capture point is n or below n
		topo := topoOrder(order, rootEdges, deps)
		for i := len(topo) - 1; i >= 0; i-- {
			n := topo[i]
			if n.leaf == nil {
				for _, e := range n.next {
					if e.Node != nil && reach[e.Node] {
						needed[n] = true
						break
					}
				}
			}
			if _, ok := capAt[n]; ok || needed[n] {
				reach[n] = true
			}
		}
	}

	// Execute.
	buffers := map[*Node][]*Tensor{}
	add := func(e Edge, g *Tensor) {
		buf := buffers[e.Node]
		if buf == nil {
			buf = make([]*Tensor, e.Node.nOut)
			buffers[e.Node] = buf
		}
		if buf[e.Input] == nil {
			buf[e.Input] = g
		} else {
			buf[e.Input] = accumulate(buf[e.Input], g)
		}
	}
	for i, e := range rootEdges {
		if rootGrads[i] != nil {
			add(e, rootGrads[i])
		} else if buffers[e.Node] == nil {
			buffers[e.Node] = make([]*Tensor, e.Node.nOut)
		}
	}
	q := &readyQueue{}
	pushed := map[*Node]bool{}
	for _, e := range rootEdges {
		if deps[e.Node] == 0 && !pushed[e.Node] {
			pushed[e.Node] = true
			heap.Push(q, e.Node)
		}
	}
	for q.Len() > 0 {
		n := heap.Pop(q).(*Node)
		grads := buffers[n]
		if grads == nil {
			grads = make([]*Tensor, n.nOut)
		}
		delete(buffers, n)
		grads = runOutHooks(n, grads)
		if cs, ok := capAt[n]; ok {
			for _, cp := range cs {
				cp.grad = grads[cp.slot]
			}
		}
		skip := needed != nil && !needed[n]
		if needed != nil && n.leaf != nil {
			skip = true // Grad never accumulates into leaves
		}
		var inGrads []*Tensor
		if !skip {
			inGrads = execute(n, grads, c)
			if !c.retainGraph {
				n.release()
			}
		}
		for i, e := range n.next {
			if e.Node == nil {
				continue
			}
			if inGrads != nil && inGrads[i] != nil {
				add(e, inGrads[i])
			}
			deps[e.Node]--
			if deps[e.Node] == 0 && !pushed[e.Node] {
				pushed[e.Node] = true
				heap.Push(q, e.Node)
			}
		}
	}
	if inputs == nil {
		return nil
	}
	res := make([]*Tensor, len(caps))
	for i, cp := range caps {
		g := cp.grad
		if g == nil {
			if !c.allowUnused {
				tensor.PanicHint(op, ErrGraph, "pass AllowUnused() if this is the desired behavior",
					"One of the differentiated Tensors (input %d) appears to not have been used in the graph", i)
			}
			continue
		}
		if !c.createGraph && g.RequiresGrad() {
			g = g.Detach()
		}
		res[i] = g
	}
	return res
}

// topoOrder returns the discovered nodes in an order where every node comes
// before the nodes its edges point to.
func topoOrder(nodes []*Node, roots []Edge, deps map[*Node]int) []*Node {
	d := make(map[*Node]int, len(deps))
	for k, v := range deps {
		d[k] = v
	}
	var out, stack []*Node
	seen := map[*Node]bool{}
	for _, e := range roots {
		if d[e.Node] == 0 && !seen[e.Node] {
			seen[e.Node] = true
			stack = append(stack, e.Node)
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, n)
		for _, e := range n.next {
			if e.Node == nil {
				continue
			}
			d[e.Node]--
			if d[e.Node] == 0 && !seen[e.Node] {
				seen[e.Node] = true
				stack = append(stack, e.Node)
			}
		}
	}
	return out
}

// accumulate sums two gradients flowing into the same slot.
func accumulate(a, b *Tensor) *Tensor {
	if !a.RequiresGrad() && !b.RequiresGrad() && slices.Equal(a.data.Shape(), b.data.Shape()) {
		return wrap(tensor.Add(a.data, b.data))
	}
	return Add(a, b)
}

// runOutHooks applies tensor hooks registered on the node's outputs and stores
// retained grads.
func runOutHooks(n *Node, grads []*Tensor) []*Tensor {
	if n.leaf != nil {
		return grads
	}
	for slot, hs := range n.outHooks {
		for _, h := range hs {
			if h.removed || grads[slot] == nil {
				continue
			}
			if r := h.fn(grads[slot]); r != nil {
				grads[slot] = checkHookResult(n.name, grads[slot], r)
			}
		}
	}
	for slot, t := range n.retain {
		if t != nil && grads[slot] != nil && t.gradFn == n {
			t.accumulateGrad(grads[slot], false)
		}
	}
	return grads
}

// execute runs one node and returns one gradient per next edge.
func execute(n *Node, grads []*Tensor, c backwardConfig) []*Tensor {
	for _, h := range n.preHooks {
		if !h.removed {
			if r := h.fn(grads); r != nil {
				grads = r
			}
		}
	}
	var out []*Tensor
	switch {
	case n.leaf != nil:
		g := grads[0]
		for _, h := range n.leaf.hooks {
			if !h.removed && g != nil {
				if r := h.fn(g); r != nil {
					g = checkHookResult("AccumulateGrad", g, r)
				}
			}
		}
		if g != nil {
			n.leaf.accumulateGrad(g, c.createGraph)
		}
		return nil
	case n.errf != "":
		tensor.Panicf(n.name, ErrOnceDifferentiable, "%s", n.errf)
	case n.bw != nil:
		g := grads[0]
		if g == nil {
			return nil
		}
		if n.released && n.hadSaved {
			n.unpack(0, false) // raises the "second time" error
		}
		s := make([]*Tensor, len(n.saved))
		for i := range n.saved {
			s[i] = n.unpack(i, c.createGraph)
		}
		out = n.bw(g, s)
	case n.fn != nil:
		out = n.fn.backward(n, grads, c.createGraph)
	}
	if anomalyEnabled.Load() {
		checkAnomaly(n, out)
	}
	for _, h := range n.postHooks {
		if !h.removed {
			if r := h.fn(out, grads); r != nil {
				out = r
			}
		}
	}
	return out
}

// accumulateGrad adds g into t.grad.
func (t *Tensor) accumulateGrad(g *Tensor, create bool) {
	if !create && g.RequiresGrad() {
		g = g.Detach()
	}
	if g.DType() != t.DType() {
		g = wrap(g.data.To(t.DType()))
	}
	switch {
	case t.grad == nil:
		t.grad, t.gradOwned = g, false
	case !create && t.gradOwned && !t.grad.RequiresGrad():
		t.grad.data.AddInPlace(g.data)
	case !create:
		t.grad, t.gradOwned = wrap(tensor.Add(t.grad.data, g.data)), true
	default:
		t.grad, t.gradOwned = Add(t.grad, g), false
	}
}
