package agx

import (
	"fmt"
	"slices"

	"github.com/goagx/agx/tensor"
)

// Checkpointing: trade compute for memory, as PyTorch's
// torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=False).
//
// Checkpoint runs fn once, recording the graph as usual, so the outputs have
// the ordinary nodes of fn's ops with edges to everything fn used (its inputs
// and any tensor it closes over, such as a layer's weights). It then strips
// every tensor those nodes saved for backward (the activations), keeping
// only fn, its inputs and the random generators' states. The first time a
// backward pass needs one of the stripped tensors, fn runs again on the same
// inputs, with the generators set back to the states they had before the
// forward call (and restored afterwards), and the nodes get the recomputed
// tensors in place of the ones they lost. Gradients are therefore exactly
// those of the plain call, for Backward and Grad alike, with CreateGraph too.

// CheckpointOption configures CheckpointWith.
type CheckpointOption func(*checkpointConfig)

type checkpointConfig struct {
	noRNG bool
	gens  []*tensor.Generator
}

// PreserveRNG chooses whether the recomputation sees the random draws of
// the forward call (true, the default, as PyTorch's preserve_rng_state): the
// default generator (and those named by CheckpointGenerators) is set back to
// its state before the forward for the recomputation, and restored after it.
// Without it, fn must not draw random numbers, or the recomputation sees other
// draws (dropout masks, say) than the forward did and the gradients are wrong.
func PreserveRNG(on bool) CheckpointOption {
	return func(c *checkpointConfig) { c.noRNG = !on }
}

// CheckpointGenerators adds generators, other than the default one, whose
// state the recomputation restores: those fn draws from.
func CheckpointGenerators(gens ...*tensor.Generator) CheckpointOption {
	return func(c *checkpointConfig) { c.gens = append(c.gens, gens...) }
}

// Checkpoint calls fn(inputs...) and returns its output, keeping only the
// inputs for backward: the activations fn's ops saved are dropped and
// recomputed by calling fn again when a backward pass first needs them. See
// CheckpointWith.
func Checkpoint(fn func(inputs ...*Tensor) *Tensor, inputs ...*Tensor) *Tensor {
	if fn == nil {
		tensor.Panicf("Checkpoint", tensor.ErrArg, "fn is nil")
	}
	return CheckpointWith(func(in ...*Tensor) []*Tensor { return []*Tensor{fn(in...)} }, inputs)[0]
}

// CheckpointN is Checkpoint for a fn with several outputs.
func CheckpointN(fn func(inputs ...*Tensor) []*Tensor, inputs ...*Tensor) []*Tensor {
	return CheckpointWith(fn, inputs)
}

// CheckpointWith calls fn(inputs...) and returns its outputs, saving memory
// for backward by recomputation (the non-reentrant form of PyTorch's
// torch.utils.checkpoint):
//
//   - The forward records the ordinary graph of fn's ops, then drops every
//     tensor those ops saved for backward. What stays is fn, the inputs (nil
//     entries allowed) and the random generators' states.
//   - When a backward pass (Backward or Grad) first unpacks one of the dropped
//     tensors, fn runs again, with grad mode on and the generators restored
//     (see PreserveRNG), and every node of the segment gets its recomputed
//     tensors at once. The extra cost is one forward of fn per backward pass;
//     the memory held between forward and backward is fn's inputs and outputs
//     instead of all its activations. During the backward of the segment, its
//     activations are held again, so the peak is one segment's activations
//     plus the checkpoints.
//   - fn must compute the same thing when called again: the same ops, in the
//     same order, on tensors of the same shapes. A recomputation that records
//     other ops or saves tensors of other shapes panics with ErrGraph (as
//     PyTorch's determinism check does); one that computes other values from
//     the same ops (because fn reads a global that changed) goes undetected.
//   - Modifying an input in place between the forward and the backward panics
//     with ErrInplace when the recomputation starts.
//   - Parameters fn closes over (a layer's weights) get their gradients as in
//     the plain call; they need not be passed as inputs.
//   - With CreateGraph, the recomputation records its own graph, so the
//     gradients can be differentiated again (double backward, GradGradCheck).
//   - Under NoGrad, or when nothing fn uses requires grad, Checkpoint is fn:
//     there is nothing to recompute.
//   - Checkpoints nest: a Checkpoint inside fn keeps its own segment, which
//     the outer recomputation rebuilds.
//
// Tensors read from a stripped node before a backward pass (Node.SavedValues,
// graph exports) come back nil.
func CheckpointWith(fn func(inputs ...*Tensor) []*Tensor, inputs []*Tensor, opts ...CheckpointOption) []*Tensor {
	if fn == nil {
		tensor.Panicf("Checkpoint", tensor.ErrArg, "fn is nil")
	}
	var cfg checkpointConfig
	for _, o := range opts {
		o(&cfg)
	}
	for i, g := range cfg.gens {
		if g == nil {
			tensor.Panicf("Checkpoint", tensor.ErrArg, "generator %d given to CheckpointGenerators is nil", i)
		}
	}
	if !IsGradEnabled() {
		return checkOutputs(fn(inputs...))
	}
	f := &checkpointFrame{fn: fn, inputs: slices.Clone(inputs), versions: make([]uint64, len(inputs))}
	for i, in := range inputs {
		if in != nil {
			f.versions[i] = in.data.Version()
		}
	}
	if !cfg.noRNG {
		f.gens = append([]*tensor.Generator{tensor.DefaultGenerator()}, cfg.gens...)
		for _, g := range f.gens {
			f.states = append(f.states, g.State())
		}
	}
	seq0 := nodeSeq.Load()
	outs := checkOutputs(fn(inputs...))
	f.nOut = len(outs)
	nodes := segmentNodes(outs, seq0, nodeSeq.Load())
	for _, n := range nodes {
		var ms []savedMeta
		for _, s := range n.saved {
			m := savedMeta{present: s.t != nil}
			if s.t != nil {
				m.shape, m.dtype = s.t.data.Shape(), s.t.DType()
			}
			ms = append(ms, m)
		}
		f.metas = append(f.metas, ms)
		if n.hadSaved && !n.released {
			clear(n.saved) // the activations go; the slots stay for the recomputation
			n.writeExtra().ckpt = f
			f.stripped = true
		}
	}
	if f.stripped {
		f.nodes = nodes
	}
	return outs
}

func checkOutputs(outs []*Tensor) []*Tensor {
	if len(outs) == 0 {
		tensor.Panicf("Checkpoint", tensor.ErrArg, "fn returned no outputs")
	}
	for i, o := range outs {
		if o == nil {
			tensor.Panicf("Checkpoint", tensor.ErrArg, "fn returned nil as output %d", i)
		}
	}
	return outs
}

// checkpointFrame is one Checkpoint call: what the recomputation needs, and
// the nodes it refills.
type checkpointFrame struct {
	fn       func(...*Tensor) []*Tensor
	inputs   []*Tensor
	versions []uint64
	gens     []*tensor.Generator
	states   []tensor.GeneratorState
	nOut     int
	nodes    []*Node       // the segment's nodes, in creation order
	metas    [][]savedMeta // what each node saved in the forward
	stripped bool
	filled   bool // the nodes hold recomputed tensors
	graph    bool // ... recorded with their graph (CreateGraph)
}

type savedMeta struct {
	present bool
	shape   []int
	dtype   tensor.DType
}

// segmentNodes returns the nodes created (with a sequence number in
// (seq0, seq1]) by one call of a checkpointed fn that the outputs reach, in
// creation order, leaving out leaves' AccumulateGrad nodes and the nodes of
// checkpoints nested inside fn, which keep their own frame.
func segmentNodes(outs []*Tensor, seq0, seq1 uint64) []*Node {
	inRange := func(n *Node) bool { return n != nil && n.seq > seq0 && n.seq <= seq1 && n.leaf == nil }
	seen := map[*Node]bool{}
	var stack, nodes []*Node
	for _, o := range outs {
		if n := o.GradFn(); inRange(n) && !seen[n] {
			seen[n] = true
			stack = append(stack, n)
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.extra == nil || n.extra.ckpt == nil {
			nodes = append(nodes, n)
		}
		for _, e := range n.next {
			if inRange(e.Node) && !seen[e.Node] {
				seen[e.Node] = true
				stack = append(stack, e.Node)
			}
		}
	}
	slices.SortFunc(nodes, func(a, b *Node) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	return nodes
}

// fill recomputes the segment and gives its nodes the recomputed saved
// tensors, with their graph when create is set. It runs once per pass that
// needs the segment: again only when a CreateGraph pass needs the graph that
// an earlier pass without it did not keep.
func (f *checkpointFrame) fill(create bool) {
	if f.filled && (f.graph || !create) {
		return
	}
	for i, in := range f.inputs {
		if in != nil && in.data.Version() != f.versions[i] {
			tensor.PanicHint("Checkpoint", ErrInplace, "clone the input before modifying it in place",
				"one of the variables needed for gradient computation has been modified by an inplace operation: input %d of the checkpointed function ([%v %v]) is at version %d; expected version %d instead",
				i, in.DType(), in.data.Shape(), in.data.Version(), f.versions[i])
		}
	}
	// Fork the generators: the recomputation draws what the forward drew, and
	// the caller's stream continues where it was.
	cur := make([]tensor.GeneratorState, len(f.gens))
	for i, g := range f.gens {
		cur[i] = g.State()
		g.SetState(f.states[i])
	}
	defer func() {
		for i, g := range f.gens {
			g.SetState(cur[i])
		}
	}()
	var outs []*Tensor
	var seq0 uint64
	enableGrad(func() {
		seq0 = nodeSeq.Load()
		outs = f.fn(f.inputs...)
	})
	if len(outs) != f.nOut {
		f.mismatch("it returned %d outputs, the forward %d", len(outs), f.nOut)
	}
	for i, o := range outs {
		if o == nil {
			f.mismatch("it returned nil as output %d", i)
		}
	}
	rec := segmentNodes(outs, seq0, nodeSeq.Load())
	if len(rec) != len(f.nodes) {
		f.mismatch("it recorded %d ops, the forward %d", len(rec), len(f.nodes))
	}
	for k, r := range rec {
		o := f.nodes[k]
		if r.name != o.name || len(r.saved) != len(f.metas[k]) {
			f.mismatch("op %d is %s saving %d tensors, in the forward %s saving %d", k, r.name, len(r.saved), o.name, len(f.metas[k]))
		}
		for j, s := range r.saved {
			m := f.metas[k][j]
			if (s.t != nil) != m.present || (s.t != nil && (s.t.DType() != m.dtype || !slices.Equal(s.t.data.Shape(), m.shape))) {
				f.mismatch("%s's saved tensor %d is %s, in the forward %s", r.name, j, describeSaved(s.t), describeMeta(m))
			}
		}
	}
	for k, r := range rec {
		o := f.nodes[k]
		if o.released || o.extra == nil || o.extra.ckpt != f {
			continue
		}
		for j, s := range r.saved {
			if s.t != nil && !create {
				// The values alone: the recomputed graph can go.
				s = savedVar{t: &Tensor{data: s.t.data}, version: s.version}
			}
			o.saved[j] = s
		}
	}
	f.filled, f.graph = true, create
}

func (f *checkpointFrame) mismatch(format string, args ...any) {
	tensor.PanicHint("Checkpoint", ErrGraph, "the checkpointed function must record the same ops on tensors of the same shapes each time it is called (draw random numbers only from the generators Checkpoint restores)",
		"the recomputation of the checkpointed function differs from its forward: "+format, args...)
}

func describeSaved(t *Tensor) string {
	if t == nil {
		return "nil"
	}
	return fmt.Sprintf("[%v %v]", t.DType(), t.data.Shape())
}

func describeMeta(m savedMeta) string {
	if !m.present {
		return "nil"
	}
	return fmt.Sprintf("[%v %v]", m.dtype, m.shape)
}
