package agx

import (
	"slices"

	"github.com/goagx/agx/tensor"
)

// The backward pass. For a reader who knows micrograd's backward(), where
// each step lives:
//
//   - building the graph (micrograd's Value.__mul__, which makes the result
//     and its _backward): each built-in op is an opDef (op.go) listed in its
//     file's table (unaryOps in ops_unary.go, arithOps in ops_arith.go,
//     matmulOps in ops_matmul.go, indexOps in ops_index.go, shapeOps in
//     ops_shape.go, reduceOps in ops_reduce.go, batchNormOps in
//     batchnorm.go, inplaceViewOps in views.go); opDef.run computes the
//     forward and complete calls record (graph.go), which makes the Node
//     with the op's named backward, or no node when no input requires grad.
//     op.go's header lists what records without an opDef (MakeDual and
//     UnpackDual, ops composed of others, custom Functions).
//   - topological order: discover walks the graph from the outputs and counts
//     each node's dependencies (the edges into it from nodes that have yet to
//     run); a node becomes ready when its count reaches zero. The ready queue
//     (engine_queue.go) runs the newest ready node first, as PyTorch does.
//   - the seed (micrograd's self.grad = 1): rootGradients.
//   - calling each node's _backward: execute, called by step for each node
//     drain takes off the ready queue.
//   - accumulating into the inputs' grads (micrograd's +=): sendGrads
//     deposits each result into the gradient slot of the node it flows to; a
//     slot that receives several gradients holds their sum (accumulate).
//   - leaf accumulation into Grad(): accumulateGrad, run by a leaf's
//     AccumulateGrad node.
//   - hooks: runOutHooks (tensor hooks, retained grads) and execute (node
//     pre- and post-hooks, a leaf's hooks).
//   - Grad instead of Backward: captures take the gradients of the inputs and
//     markNeeded keeps the pass to the part of the graph above them.
//   - retain_graph: without it, a node's saved tensors are released once it
//     has run.
//
// The buffer-reuse policy (which gradient buffers can be recycled or summed
// in place) is behind gradBuffers in engine_buffers.go; the options in
// engine_options.go; the per-pass scratch pool in engine_scratch.go.

// Backward computes the gradient of t with respect to every leaf that requires
// grad and accumulates it into their Grad(). t must be a scalar unless a
// Gradient is given.
func (t *Tensor) Backward(opts ...BackwardOption) {
	t.self("Backward")
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
	for _, arg := range []struct {
		name string
		ts   []*Tensor
	}{{"outputs", outputs}, {"inputs", inputs}} {
		for i, t := range arg.ts {
			if t == nil {
				tensor.Panicf("Grad", tensor.ErrArg, "expected a Tensor as element %d in argument '%s', but got nil", i, arg.name)
			}
		}
	}
	return run("Grad", outputs, inputs, c)
}

// Grad1 is Grad for one output and one input.
func Grad1(output, input *Tensor, opts ...BackwardOption) *Tensor {
	return Grad([]*Tensor{output}, []*Tensor{input}, opts...)[0]
}

// nodeState is one node's bookkeeping during a pass.
type nodeState struct {
	deps   int32 // edges from not yet executed nodes
	pushed bool
	needed bool  // Grad: the node lies above a capture point and runs
	reach  bool  // Grad: a capture point is this node or below it
	in     inbox // the gradients that reached the node's outputs so far
	caps   []*capture
}

// capture is where Grad takes the gradient of one of its inputs: slot of node.
type capture struct {
	node *Node
	slot int
	grad *Tensor
}

// run is the backward pass of Backward (inputs nil: accumulate into the
// leaves) and Grad (return the gradients of inputs). See the file's header.
func run(op string, outputs, inputs []*Tensor, c backwardConfig) []*Tensor {
	if c.createGraph && !IsGradEnabled() {
		// As PyTorch's engine, a backward pass that creates a graph records
		// it even when called inside NoGrad.
		var res []*Tensor
		enableGrad(func() { res = run(op, outputs, inputs, c) })
		return res
	}
	if len(c.gradOutputs) != 0 && len(c.gradOutputs) != len(outputs) {
		tensor.Panicf(op, ErrGraph, "got %d gradient outputs for %d outputs", len(c.gradOutputs), len(outputs))
	}
	// Made here rather than in rootGradients, so that they stay on the stack.
	rootEdges, rootGrads := make([]Edge, len(outputs)), make([]*Tensor, len(outputs))
	rootGradients(op, outputs, c, rootEdges, rootGrads)
	capEdges := captureEdges(op, inputs)

	sc := getScratch()
	defer putScratch(sc)
	discover(sc, rootEdges)
	caps := attachCaptures(sc, capEdges)
	if inputs != nil {
		markNeeded(sc, rootEdges)
	}
	sc.bufs.start(c.createGraph)
	seedOutputs(sc, rootEdges, rootGrads)
	drain(sc, c, inputs != nil)
	if inputs == nil {
		return nil
	}
	return captured(op, caps, c)
}

// captureEdges returns the edge at which Grad takes the gradient of each of
// its inputs; nil for Backward.
func captureEdges(op string, inputs []*Tensor) []Edge {
	if inputs == nil {
		return nil
	}
	edges := make([]Edge, len(inputs))
	for i, in := range inputs {
		if in == nil || !in.RequiresGrad() {
			tensor.Panicf(op, ErrGraph, "input %d of grad does not require grad", i)
		}
		edges[i] = gradEdge(in)
	}
	return edges
}

// attachCaptures makes a capture for each of Grad's edges, in order, and
// hangs it on the state of the node it reads from, when the pass reaches
// that node.
func attachCaptures(sc *passScratch, capEdges []Edge) []*capture {
	var caps []*capture
	for _, e := range capEdges {
		cp := &capture{node: e.Node, slot: e.Input}
		caps = append(caps, cp)
		if j, ok := sc.index[e.Node]; ok {
			sc.states[j].caps = append(sc.states[j].caps, cp)
		}
	}
	return caps
}

// seedOutputs deposits the root gradients into the outputs' slots and queues
// the outputs that no other output depends on.
func seedOutputs(sc *passScratch, rootEdges []Edge, rootGrads []*Tensor) {
	for i, e := range rootEdges {
		if rootGrads[i] != nil {
			sc.bufs.arrive(rootGrads[i])
			sc.bufs.deposit(&sc.states[sc.index[e.Node]].in, e, rootGrads[i])
		}
	}
	for _, e := range rootEdges {
		k := sc.index[e.Node]
		if st := &sc.states[k]; st.deps == 0 && !st.pushed {
			st.pushed = true
			sc.queue.push(e.Node, k)
		}
	}
}

// drain runs every queued node once all the nodes that feed it gradients
// have run (grad: the pass is Grad's, which runs only what lies above its
// inputs).
func drain(sc *passScratch, c backwardConfig, grad bool) {
	for len(sc.queue) > 0 {
		top := sc.queue.pop()
		inGrads := step(sc, top.n, &sc.states[top.k], c, grad)
		sendGrads(sc, top, inGrads)
	}
}

// step takes the complete gradients of n's outputs, runs the hooks on them,
// hands them to the captures that read them and, unless Grad skips the
// node, runs n's backward (micrograd's _backward): one gradient per next
// edge, or nil.
func step(sc *passScratch, n *Node, st *nodeState, c backwardConfig, grad bool) []*Tensor {
	bufs := &sc.bufs
	// Grad runs only the nodes above its inputs, and no leaf's
	// AccumulateGrad: it returns the gradients instead.
	skip := grad && (!st.needed || n.leaf != nil)
	grads := bufs.take(n, &st.in, gradUse{
		seenByUserCode:     hasUserCode(n),
		consumedByBackward: !skip && len(st.caps) == 0,
	})
	bufs.expose(grads)
	grads = runOutHooks(n, grads)
	bufs.expose(grads)
	for _, cp := range st.caps {
		cp.grad = grads[cp.slot]
	}
	if skip {
		return nil
	}
	inGrads := execute(n, grads, c, sc, bufs.leafMayKeep())
	if !c.retainGraph {
		n.release()
	}
	return inGrads
}

// sendGrads is micrograd's +=: it adds each of a node's input gradients into the
// slot it flows to, and queues every node whose last contributor this was.
func sendGrads(sc *passScratch, top readyNode, inGrads []*Tensor) {
	bufs := &sc.bufs
	n := top.n
	bufs.send(n, inGrads)
	nextIdx := sc.edges[sc.edgeAt[top.k]:]
	for i, e := range n.next {
		if e.Node == nil {
			continue
		}
		j := nextIdx[i]
		ns := &sc.states[j]
		if inGrads != nil && inGrads[i] != nil {
			bufs.deposit(&ns.in, e, inGrads[i])
		}
		ns.deps--
		if ns.deps == 0 && !ns.pushed {
			ns.pushed = true
			sc.queue.push(e.Node, j)
		}
	}
	bufs.finish(&sc.states[top.k].in)
}

// hasUserCode reports whether code outside the engine sees n's gradients as
// it runs: a custom Function (unless it is one of the module's own that
// promise to keep none, a gradpromise.Keeper, treated like a built-in
// backward) or node hooks.
func hasUserCode(n *Node) bool {
	return (n.fn != nil && !n.fn.keepsNone) || len(n.readExtra().preHooks) > 0 || len(n.readExtra().postHooks) > 0
}

// rootGradients sets the edges of the outputs and their gradients:
// c.gradOutputs, or ones for a scalar output.
func rootGradients(op string, outputs []*Tensor, c backwardConfig, rootEdges []Edge, rootGrads []*Tensor) {
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
}

// discover walks the graph breadth-first from the roots: every reachable node
// gets an index (sc.index, sc.order) and its dependency count (edges from
// other discovered nodes; sc.deps and sc.states). sc.edges lists, node by
// node in order from sc.edgeAt, the index of each next edge's node (-1 for
// none), so that the pass looks nothing up in the index.
func discover(sc *passScratch, rootEdges []Edge) {
	index, order, deps := sc.index, sc.order, sc.deps
	for _, e := range rootEdges {
		if _, ok := index[e.Node]; !ok {
			index[e.Node] = int32(len(order))
			order = append(order, e.Node)
			deps = append(deps, 0)
		}
	}
	edges, edgeAt := sc.edges[:0], sc.edgeAt[:0]
	for i := 0; i < len(order); i++ {
		edgeAt = append(edgeAt, int32(len(edges)))
		for _, e := range order[i].next {
			if e.Node == nil {
				edges = append(edges, -1)
				continue
			}
			j, ok := index[e.Node]
			if !ok {
				j = int32(len(order))
				index[e.Node] = j
				order = append(order, e.Node)
				deps = append(deps, 0)
			}
			deps[j]++
			edges = append(edges, j)
		}
	}
	sc.order, sc.deps, sc.edges, sc.edgeAt = order, deps, edges, edgeAt
	states := slices.Grow(sc.states[:0], len(order))[:len(order)]
	sc.states = states
	for i, d := range deps {
		states[i].deps = d
	}
}

// markNeeded marks, for Grad, the nodes that run: a node is needed when some
// capture point lies strictly below it; a capture point itself runs only if
// another one lies below it, so that Grad neither computes nor frees more
// than it must. It goes in reverse topological order.
func markNeeded(sc *passScratch, rootEdges []Edge) {
	states := sc.states
	topo := topoOrder(sc, rootEdges, states)
	for i := len(topo) - 1; i >= 0; i-- {
		k := topo[i]
		n, st := sc.order[k], &states[k]
		if n.leaf == nil {
			for _, e := range n.next {
				if e.Node != nil && states[sc.index[e.Node]].reach {
					st.needed = true
					break
				}
			}
		}
		if len(st.caps) > 0 || st.needed {
			st.reach = true
		}
	}
}

// captured returns Grad's result: the gradient each capture took.
func captured(op string, caps []*capture, c backwardConfig) []*Tensor {
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
			g = detachKeepTangent(g)
		}
		res[i] = g
	}
	return res
}

// topoOrder returns the indices of the discovered nodes in an order where every
// node comes before the nodes its edges point to.
func topoOrder(sc *passScratch, roots []Edge, states []nodeState) []int32 {
	d := make([]int32, len(states))
	for i := range states {
		d[i] = states[i].deps
	}
	out := make([]int32, 0, len(states))
	stack := sc.ints[:0]
	seen := make([]bool, len(states))
	for _, e := range roots {
		j := sc.index[e.Node]
		if d[j] == 0 && !seen[j] {
			seen[j] = true
			stack = append(stack, j)
		}
	}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, k)
		for _, e := range sc.order[k].next {
			if e.Node == nil {
				continue
			}
			j := sc.index[e.Node]
			d[j]--
			if d[j] == 0 && !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	sc.ints = stack
	return out
}

// accumulate sums two gradients flowing into the same slot.
func accumulate(a, b *Tensor) *Tensor {
	if !a.RequiresGrad() && !b.RequiresGrad() && a.tangentOf() == nil && b.tangentOf() == nil && slices.Equal(a.data.Shape(), b.data.Shape()) {
		return wrap(tensor.Add(a.data, b.data))
	}
	return Add(a, b)
}

// runOutHooks applies tensor hooks registered on the node's outputs and stores
// retained grads. (Small enough to be inlined for the nodes without any.)
func runOutHooks(n *Node, grads []*Tensor) []*Tensor {
	if n.leaf != nil || n.extra == nil {
		return grads
	}
	return runOutHooksOf(n, n.extra, grads)
}

func runOutHooksOf(n *Node, x *nodeExtra, grads []*Tensor) []*Tensor {
	for slot, hs := range x.outHooks {
		for _, h := range hs {
			if h.removed || grads[slot] == nil {
				continue
			}
			if r := h.fn(grads[slot]); r != nil {
				grads[slot] = checkHookResult(n.name, grads[slot], r)
			}
		}
	}
	for slot, t := range x.retain {
		if t != nil && grads[slot] != nil && t.gradFn == n {
			t.accumulateGrad(grads[slot], false, false)
		}
	}
	return grads
}

// execute runs one node and returns one gradient per next edge. A built-in
// backward gets its unpacked saved tensors in sc's reused slice. sole is
// accumulateGrad's, for a leaf.
func execute(n *Node, grads []*Tensor, c backwardConfig, sc *passScratch, sole bool) []*Tensor {
	for _, h := range n.readExtra().preHooks {
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
		for _, h := range n.leaf.readExtra().hooks {
			if !h.removed && g != nil {
				if r := h.fn(g); r != nil {
					g = checkHookResult("AccumulateGrad", g, r)
				}
			}
		}
		if g != nil {
			n.leaf.accumulateGrad(g, c.createGraph, sole)
		}
		return nil
	case n.readExtra().errf != "":
		tensor.Panicf(n.name, ErrOnceDifferentiable, "%s", n.readExtra().errf)
	case n.bw != nil:
		g := grads[0]
		if g == nil {
			return nil
		}
		n.checkNotReleased()
		s := slices.Grow(sc.saved[:0], len(n.saved))[:len(n.saved)]
		sc.saved = s
		for i := range n.saved {
			s[i] = n.unpackFor(i, c.createGraph, true)
		}
		if n.fast != 0 && len(n.readExtra().postHooks) == 0 {
			// No user code sees the result: it goes into the pass's slice.
			out = fastBackward(n.fast, g, s, sc.bufs.fastOut[:len(n.next)])
		} else {
			out = n.bw(g, s)
		}
		clear(s)
	case n.fn != nil:
		out = n.fn.backward(n, grads, c.createGraph)
	}
	if anomalyEnabled.Load() {
		checkAnomaly(n, out)
	}
	for _, h := range n.readExtra().postHooks {
		if !h.removed {
			if r := h.fn(out, grads); r != nil {
				out = r
			}
		}
	}
	return out
}

// accumulateGrad adds g into t.grad. sole reports that g's buffer was
// allocated by this backward pass and that no one else holds it, so that t
// may keep it as its own (see tensorExtra.gradPooled) or, when it is added
// into t's own gradient, recycle it at once.
func (t *Tensor) accumulateGrad(g *Tensor, create, sole bool) {
	if !create && g.RequiresGrad() {
		g = detachKeepTangent(g)
	}
	if g.DType() != t.DType() {
		g, sole = wrap(g.data.To(t.DType())), false
	}
	dual := g.tangentOf() != nil || t.grad.tangentOf() != nil
	switch {
	case t.grad == nil:
		t.setGrad(g, sole && !create && !dual)
	case dual:
		t.setGrad(Add(t.grad, g), false) // keeps the tangents (forward-over-reverse)
	case !create && t.readExtra().gradPooled.Load() && !t.grad.RequiresGrad():
		t.grad.data.AddInPlace(g.data)
		if sole {
			tensor.Recycle(g.data)
		}
	case !create:
		t.setGrad(wrap(tensor.Add(t.grad.data, g.data)), true)
		if sole {
			tensor.Recycle(g.data)
		}
	default:
		t.setGrad(Add(t.grad, g), false)
	}
}
