package agx

import (
	"slices"

	"github.com/goagx/agx/tensor"
)

// The engine's buffer-reuse policy. The traversal in engine.go calls it in
// this order:
//
//	start                          once, when the pass begins
//	arrive, deposit                for each seed gradient of an output
//	for each node the pass runs:
//	  take                         the node's incoming gradients; decides its turn
//	  expose                       before and after its tensor hooks
//	  (execute: leafMayKeep for a leaf, fastOut for a fast backward)
//	  send                         its backward's results, then
//	  deposit                      each into the slot of the node it flows to
//	  finish                       ends the node's turn
//
// Behind those calls, without CreateGraph, the gradients that built-in
// backwards produce during the pass are reference-counted and their buffers
// recycled once their last consumer has run (see recycler); a sum the
// engine allocated itself, or a gradient of the pass that only its slot
// refers to, takes further gradients in place; and a
// one-output node's slots live in an inline array. With CreateGraph nothing
// is counted or recycled.

// inbox is a node's gradient slots: the sums of the gradients that reached
// each of its outputs so far.
type inbox struct {
	buf []*Tensor
	one [1]*Tensor // buf's backing array for a single-output node
	// owned has bit i set when buf[i] is a sum the engine allocated itself,
	// or a gradient of the pass that only this slot refers to (nothing else
	// refers to it), so further gradients add into it in place.
	owned uint64
}

// gradBuffers is the policy's state for one pass (kept in passScratch).
type gradBuffers struct {
	rc recycler
	// fastOut holds the result of a fastBackward, consumed before the next
	// node runs.
	fastOut [2]*Tensor
	turn    turn // the node being run, from take to finish
}

// turn is what the policy decided for the node being run.
type turn struct {
	// recycles: a built-in backward that nothing else watches consumes the
	// gradients, which go back for recycling at the end of the turn.
	recycles     bool
	sole         bool      // a leaf may keep its gradient's buffer (accumulateGrad)
	consumed     *Tensor   // the gradient given back for recycling
	consumedMore []*Tensor // and those of the node's other outputs
}

// start begins a pass; buffers are counted only without CreateGraph.
func (b *gradBuffers) start(createGraph bool) {
	b.rc.on = !createGraph
	b.rc.seq0 = tensor.AllocSeq()
}

// reset empties the state before the scratch goes back to the pool.
func (b *gradBuffers) reset() {
	b.fastOut = [2]*Tensor{}
	b.turn = turn{}
	clear(b.rc.refs)
}

// arrive notes that g, a root gradient or a backward's result, is on its way
// to a slot: it holds one reference until the slot consumes it.
func (b *gradBuffers) arrive(g *Tensor) { b.rc.hold(g) }

// deposit adds g into slot e.Input of e.Node's inbox.
func (b *gradBuffers) deposit(in *inbox, e Edge, g *Tensor) {
	rc, slot := &b.rc, e.Input
	if in.buf == nil {
		if e.Node.nOut == 1 {
			in.buf = in.one[:]
		} else {
			in.buf = make([]*Tensor, e.Node.nOut)
		}
	}
	switch a := in.buf[slot]; {
	case a == nil:
		in.buf[slot] = g // keeps the reference its producer took
	case slot < 64 && in.owned&(1<<slot) != 0 && canAddInPlace(a, g):
		a.data.AddInPlace(g.data)
		rc.drop(g)
	case slot < 64 && rc.soleIn(a, g) && a.data.IsContiguous() && canAddInPlace(a, g):
		// a is a gradient of this pass that only this slot refers to (g
		// may be a itself arriving again: x.Mul(x)'s backward sends one g·x
		// to both edges): the sum can take its buffer, which saves a fresh
		// result (see recycler).
		a.data.AddInPlace(g.data)
		rc.drop(g)
		in.owned |= 1 << slot
	default:
		sum := accumulate(a, g)
		in.buf[slot] = sum
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
			in.owned |= 1 << slot
		}
	}
}

// gradUse says who gets a node's incoming gradients, which decides whether
// their buffers may be recycled.
type gradUse struct {
	seenByUserCode     bool // a custom Function or node hooks see them
	consumedByBackward bool // n's backward runs and no Grad capture keeps them
}

// take hands over n's gradients, one per output (nil where none arrived),
// and decides n's turn (b.turn).
func (b *gradBuffers) take(n *Node, in *inbox, use gradUse) []*Tensor {
	rc, t := &b.rc, &b.turn
	userCode, consumes := use.seenByUserCode, use.consumedByBackward
	grads := in.buf
	in.buf = nil // drop the reference as the pass goes
	// Only a built-in backward that no user code, capture or retained
	// grad watches gives its gradients back for recycling; everything
	// that other code may keep is pinned.
	t.recycles = rc.on && (n.bw != nil || n.fn != nil) && !userCode && len(n.readExtra().outHooks) == 0 &&
		len(n.readExtra().retain) == 0 && consumes
	switch {
	case grads == nil && n.nOut == 1 && !userCode:
		grads = in.one[:]
	case grads == nil:
		grads = make([]*Tensor, n.nOut)
	case n.nOut == 1 && userCode:
		// User code may keep the slice: give it its own.
		grads = []*Tensor{in.one[0]}
	}
	// A leaf whose gradient no other slot refers to and that no hook
	// sees may keep that gradient's buffer as its own (accumulateGrad).
	t.sole = rc.on && n.leaf != nil && consumes && !userCode &&
		len(n.leaf.readExtra().hooks) == 0 && rc.sole(grads[0])
	if t.recycles {
		t.consumed, t.consumedMore = grads[0], grads[1:]
	}
	return grads
}

// leafMayKeep reports, for a leaf's turn, whether the leaf may keep its
// gradient's buffer as its own Grad (see accumulateGrad).
func (b *gradBuffers) leafMayKeep() bool { return b.turn.sole }

// expose notes that code outside the engine (hooks, retained grads,
// captures) may keep gs: unless the turn recycles, they are pinned.
func (b *gradBuffers) expose(gs []*Tensor) {
	if !b.turn.recycles {
		b.rc.pinAll(gs)
	}
}

// send starts a backward's results on their way to the slots of n's next
// nodes. Every gradient holds a reference first, so that one consumed at
// once (added into a sum) is not recycled while another result of the same
// backward still refers to its buffer.
func (b *gradBuffers) send(n *Node, out []*Tensor) {
	if !b.turn.recycles {
		b.rc.pinAll(out)
	}
	if out == nil {
		return
	}
	for i, e := range n.next {
		if e.Node != nil && out[i] != nil {
			b.rc.hold(out[i])
		}
	}
}

// finish ends n's turn, after its results were deposited: the gradients it
// consumed go back for recycling (the results that alias them were counted
// in send).
func (b *gradBuffers) finish(in *inbox) {
	in.one[0] = nil
	if t := &b.turn; t.consumed != nil || len(t.consumedMore) > 0 {
		b.rc.drop(t.consumed)
		for _, g := range t.consumedMore {
			b.rc.drop(g)
		}
	}
	b.turn = turn{}
	b.fastOut = [2]*Tensor{}
}

// canAddInPlace reports whether g can be added into the engine-owned sum a
// without changing a's shape or dtype and without recording a graph.
func canAddInPlace(a, g *Tensor) bool {
	return !g.RequiresGrad() && a.tangentOf() == nil && g.tangentOf() == nil && a.DType() == g.DType() && slices.Equal(a.data.Shape(), g.data.Shape())
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

// soleIn is sole for a, the gradient a slot holds, as g is added into it:
// when g is a itself, arriving again, g's reference counts as the slot's.
func (r *recycler) soleIn(a, g *Tensor) bool {
	if a != g {
		return r.sole(a)
	}
	id := r.id(a)
	return id != 0 && r.refs[id] == 2
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
