package agx

import (
	"slices"
	"sync"

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
	needed bool // Grad: the node lies above a capture point and runs
	reach  bool // Grad: a capture point is this node or below it
	buf    []*Tensor
	one    [1]*Tensor // buf's backing array for a single-output node
	// owned has bit i set when buf[i] is a sum the engine allocated itself
	// (nothing else refers to it), so further gradients add into it in place.
	owned uint64
	caps  []*capture
}

// passScratch holds the discovery structures of a pass, reused across passes
// through a sync.Pool (concurrent passes on independent graphs each take their
// own). index maps a node to its position in order, states and deps.
type passScratch struct {
	index  map[*Node]int32
	order  []*Node
	deps   []int32
	queue  readyQueue
	ints   []int32
	states []nodeState
	saved  []*Tensor  // a built-in backward's unpacked saved tensors
	out    [2]*Tensor // the result of a fastBackward, consumed before the next node runs
	edges  []int32    // see run
	edgeAt []int32
	rec    recycler
}

// The index map starts without a size hint: a map of up to 8 entries is a
// single group, which clear empties at once, while a map made with room
// for 64 is a table whose every group clear has to wipe, which took about 8 %
// of a small custom Function's forward and backward. Maps do not shrink, so
// after a pass of more than maxClearedIndex nodes the map is replaced
// instead of cleared, and a large pass does not tax the small ones after it.
var scratchPool = sync.Pool{New: func() any {
	return &passScratch{index: make(map[*Node]int32)}
}}

const maxClearedIndex = 1024

// maxPooledNodes bounds the graphs whose scratch goes back to the pool, so that
// one huge pass does not make every later clear of the map slow.
const maxPooledNodes = 1 << 16

func getScratch() *passScratch { return scratchPool.Get().(*passScratch) }

func putScratch(p *passScratch) {
	if len(p.order) > maxPooledNodes {
		return
	}
	if len(p.index) > maxClearedIndex {
		p.index = make(map[*Node]int32)
	} else {
		clear(p.index)
	}
	clear(p.order)
	clear(p.queue[:cap(p.queue)])
	clear(p.states)
	clear(p.saved[:cap(p.saved)])
	p.out = [2]*Tensor{}
	p.order, p.deps, p.queue, p.ints, p.states = p.order[:0], p.deps[:0], p.queue[:0], p.ints[:0], p.states[:0]
	p.edges, p.edgeAt = p.edges[:0], p.edgeAt[:0]
	clear(p.rec.refs)
	scratchPool.Put(p)
}

// readyQueue is a binary heap of ready nodes, newest (highest creation
// sequence) first, as PyTorch orders them; dependencies guarantee correctness,
// the order makes runs reproducible.
type readyQueue []readyNode

// readyNode is a node in the ready queue with its position in the pass.
type readyNode struct {
	n *Node
	k int32
}

func (q *readyQueue) push(n *Node, k int32) {
	h := append(*q, readyNode{n, k})
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p].n.seq >= h[i].n.seq {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	*q = h
}

func (q *readyQueue) pop() readyNode {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = readyNode{}
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].n.seq > h[m].n.seq {
			m = l
		}
		if r < len(h) && h[r].n.seq > h[m].n.seq {
			m = r
		}
		if m == i {
			break
		}
		h[m], h[i] = h[i], h[m]
		i = m
	}
	*q = h
	return top
}

type capture struct {
	node *Node
	slot int
	grad *Tensor
}

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
	var capNodes []Edge
	if inputs != nil {
		capNodes = make([]Edge, len(inputs))
		for i, in := range inputs {
			if in == nil || !in.RequiresGrad() {
				tensor.Panicf(op, ErrGraph, "input %d of grad does not require grad", i)
			}
			capNodes[i] = gradEdge(in)
		}
	}

	// Discover the graph breadth-first: every reachable node gets an index, and
	// its dependency count (edges from other discovered nodes).
	sc := getScratch()
	defer putScratch(sc)
	index, order, deps := sc.index, sc.order, sc.deps
	for _, e := range rootEdges {
		if _, ok := index[e.Node]; !ok {
			index[e.Node] = int32(len(order))
			order = append(order, e.Node)
			deps = append(deps, 0)
		}
	}
	// edges lists, node by node in order, the index of each next edge's node
	// (-1 for none), so that execution looks nothing up in index.
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

	// Capture points for Grad.
	var caps []*capture
	for _, e := range capNodes {
		cp := &capture{node: e.Node, slot: e.Input}
		caps = append(caps, cp)
		if j, ok := index[e.Node]; ok {
			states[j].caps = append(states[j].caps, cp)
		}
	}
	if inputs != nil {
		// A node is needed (runs) when some capture point lies strictly below
		// it; a capture point itself runs only if another one lies below it, so
		// that Grad neither computes nor frees more than it must. Process in
		// reverse topological order.
		topo := topoOrder(sc, rootEdges, states)
		for i := len(topo) - 1; i >= 0; i-- {
			k := topo[i]
			n, st := order[k], &states[k]
			if n.leaf == nil {
				for _, e := range n.next {
					if e.Node != nil && states[index[e.Node]].reach {
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

	// Execute. Without CreateGraph, the gradients that built-in backwards
	// produce in this pass are reference-counted, and a buffer is recycled
	// once its last consumer has run (see recycler).
	rc := &sc.rec
	rc.on = !c.createGraph
	rc.seq0 = tensor.AllocSeq()
	// add puts g into a slot; g arrives holding one reference (rc.hold).
	add := func(st *nodeState, n *Node, slot int, g *Tensor) {
		if st.buf == nil {
			if n.nOut == 1 {
				st.buf = st.one[:]
			} else {
				st.buf = make([]*Tensor, n.nOut)
			}
		}
		switch a := st.buf[slot]; {
		case a == nil:
			st.buf[slot] = g // keeps the reference its producer took
		case slot < 64 && st.owned&(1<<slot) != 0 && canAddInPlace(a, g):
			a.data.AddInPlace(g.data)
			rc.drop(g)
		default:
			sum := accumulate(a, g)
			st.buf[slot] = sum
			if sum.RequiresGrad() {
				rc.pin(a)
				rc.pin(g)
				rc.pin(sum)
				break
			}
			rc.hold(sum)
			rc.drop(a)
			rc.drop(g)
			if slot < 64 {
				st.owned |= 1 << slot
			}
		}
	}
	for i, e := range rootEdges {
		if rootGrads[i] != nil {
			rc.hold(rootGrads[i])
			add(&states[index[e.Node]], e.Node, e.Input, rootGrads[i])
		}
	}
	q := &sc.queue
	for _, e := range rootEdges {
		k := index[e.Node]
		st := &states[k]
		if st.deps == 0 && !st.pushed {
			st.pushed = true
			q.push(e.Node, k)
		}
	}
	for len(*q) > 0 {
		top := q.pop()
		n, st := top.n, &states[top.k]
		nextIdx := edges[edgeAt[top.k]:]
		grads := st.buf
		st.buf = nil // drop the reference as the pass goes
		// A Function that declares KeepsNoGrads is treated like a built-in
		// backward: it keeps none of the gradients it sees.
		userCode := (n.fn != nil && !n.fn.keepsNone) || len(n.extra().preHooks) > 0 || len(n.extra().postHooks) > 0
		skip := inputs != nil && (!st.needed || n.leaf != nil) // Grad never accumulates into leaves
		// Only a built-in backward that no user code, capture or retained
		// grad watches gives its gradients back for recycling; everything
		// that other code may keep is pinned.
		recycles := rc.on && (n.bw != nil || n.fn != nil) && !userCode && len(n.extra().outHooks) == 0 &&
			len(n.extra().retain) == 0 && len(st.caps) == 0 && !skip
		switch {
		case grads == nil && n.nOut == 1 && !userCode:
			grads = st.one[:]
		case grads == nil:
			grads = make([]*Tensor, n.nOut)
		case n.nOut == 1 && userCode:
			// User code may keep the slice: give it its own.
			grads = []*Tensor{st.one[0]}
		}
		var consumed *Tensor       // the gradient this node gives back for recycling
		var consumedMore []*Tensor // and those of its other outputs (a slice of its own)
		// A leaf whose gradient no other slot refers to and that no hook
		// sees may keep that gradient's buffer as its own (accumulateGrad).
		sole := rc.on && n.leaf != nil && !skip && !userCode && len(st.caps) == 0 &&
			len(n.leaf.extra().hooks) == 0 && rc.sole(grads[0])
		if recycles {
			consumed, consumedMore = grads[0], grads[1:]
		} else {
			rc.pinAll(grads)
			grads = runOutHooks(n, grads)
			rc.pinAll(grads) // what hooks returned
		}
		for _, cp := range st.caps {
			cp.grad = grads[cp.slot]
		}
		var inGrads []*Tensor
		if !skip {
			inGrads = execute(n, grads, c, sc, sole)
			if !c.retainGraph {
				n.release()
			}
		}
		st.one[0] = nil
		if !recycles {
			rc.pinAll(inGrads)
		}
		// Every gradient on its way to a slot holds a reference first, so
		// that one consumed at once (added into a sum) is not recycled while
		// another result of the same backward still refers to its buffer.
		for i, e := range n.next {
			if e.Node != nil && inGrads != nil && inGrads[i] != nil {
				rc.hold(inGrads[i])
			}
		}
		for i, e := range n.next {
			if e.Node == nil {
				continue
			}
			j := nextIdx[i]
			ns := &states[j]
			if inGrads != nil && inGrads[i] != nil {
				add(ns, e.Node, e.Input, inGrads[i])
			}
			ns.deps--
			if ns.deps == 0 && !ns.pushed {
				ns.pushed = true
				q.push(e.Node, j)
			}
		}
		if consumed != nil {
			// The outputs that alias it were counted just above.
			rc.drop(consumed)
		}
		for _, g := range consumedMore {
			rc.drop(g)
		}
		sc.out = [2]*Tensor{}
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

// canAddInPlace reports whether g can be added into the engine-owned sum a
// without changing a's shape or dtype and without recording a graph.
func canAddInPlace(a, g *Tensor) bool {
	return !g.RequiresGrad() && a.tangentOf() == nil && g.tangentOf() == nil && a.DType() == g.DType() && slices.Equal(a.data.Shape(), g.data.Shape())
}

// accumulate sums two gradients flowing into the same slot.
func accumulate(a, b *Tensor) *Tensor {
	if !a.RequiresGrad() && !b.RequiresGrad() && a.tangentOf() == nil && b.tangentOf() == nil && slices.Equal(a.data.Shape(), b.data.Shape()) {
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
	x := n.extra()
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
	for _, h := range n.extra().preHooks {
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
		for _, h := range n.leaf.extra().hooks {
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
	case n.extra().errf != "":
		tensor.Panicf(n.name, ErrOnceDifferentiable, "%s", n.extra().errf)
	case n.bw != nil:
		g := grads[0]
		if g == nil {
			return nil
		}
		if n.released && n.hadSaved {
			n.unpack(0, false) // raises the "second time" error
		}
		s := slices.Grow(sc.saved[:0], len(n.saved))[:len(n.saved)]
		sc.saved = s
		for i := range n.saved {
			s[i] = n.unpackFor(i, c.createGraph, true)
		}
		if n.fast != 0 && len(n.extra().postHooks) == 0 {
			// No user code sees the result: it goes into the pass's slice.
			out = fastBackward(n.fast, g, s, sc.out[:len(n.next)])
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
	for _, h := range n.extra().postHooks {
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
	case !create && t.extra().gradPooled.Load() && !t.grad.RequiresGrad():
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

// recycler counts, during one backward pass without CreateGraph, the
// references that the pass's gradient slots hold to each recyclable buffer
// (tensor.Recycle) allocated during the pass, and recycles a buffer when
// the count drops to zero: its last consumer, a built-in backward, has run,
// and none of that backward's results is a view of it. Buffers allocated
// before the pass (saved tensors, the user's gradients) are never touched,
// and a buffer that user code, a leaf's Grad, a retained grad or a Grad
// capture may keep is pinned for the rest of the pass.
type recycler struct {
	on   bool
	seq0 uint64           // tensor.AllocSeq at the start of the pass
	refs map[uint64]int32 // AllocID → slot references; -1: pinned
}

// id returns g's buffer number if it is recyclable and from this pass.
func (r *recycler) id(g *Tensor) uint64 {
	if !r.on || g == nil {
		return 0
	}
	if id := g.data.AllocID(); id > r.seq0 {
		return id
	}
	return 0
}

// counted returns g's buffer number as id, for hold and pin, making the
// map on first use; ok is false for a buffer the pass does not count.
func (r *recycler) counted(g *Tensor) (id uint64, ok bool) {
	id = r.id(g)
	if id != 0 && r.refs == nil {
		r.refs = make(map[uint64]int32)
	}
	return id, id != 0
}

func (r *recycler) hold(g *Tensor) {
	if id, ok := r.counted(g); ok {
		if v := r.refs[id]; v >= 0 {
			r.refs[id] = v + 1
		}
	}
}

// sole reports whether g's buffer is from this pass and referred to by
// exactly one gradient slot, not pinned: the slot that holds g.
func (r *recycler) sole(g *Tensor) bool {
	id := r.id(g)
	return id != 0 && r.refs[id] == 1
}

func (r *recycler) pin(g *Tensor) {
	if id, ok := r.counted(g); ok {
		r.refs[id] = -1
	}
}

func (r *recycler) pinAll(gs []*Tensor) {
	if !r.on {
		return
	}
	for _, g := range gs {
		r.pin(g)
	}
}

func (r *recycler) drop(g *Tensor) {
	id := r.id(g)
	if id == 0 {
		return
	}
	v, ok := r.refs[id]
	if !ok || v <= 0 {
		return
	}
	if v == 1 {
		delete(r.refs, id)
		tensor.Recycle(g.data)
		return
	}
	r.refs[id] = v - 1
}
