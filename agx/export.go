package agx

// Read-only views of a recorded Node for graph exporters (package nn's Trace
// walks the autograd graph and needs to know which leaf, which custom Function
// and which shapes a node stands for). None of them changes the graph.

// Variable returns the leaf tensor an AccumulateGrad node accumulates into, as
// PyTorch's node.variable; nil for every other node.
func (n *Node) Variable() *Tensor { return n.leaf }

// Function returns the custom Function whose backward the node runs (the value
// given to Apply, with its fields); nil for built-in ops and AccumulateGrad.
func (n *Node) Function() Function {
	if n.fn == nil {
		return nil
	}
	return n.fn.f
}

// OutputShape returns a copy of the shape of the forward op's output i.
func (n *Node) OutputShape(i int) []int {
	if i < 0 || i >= n.numOutMeta() {
		return nil
	}
	return append([]int{}, n.outMetaAt(i).shape...)
}

// SavedValues returns the tensors the node saved for backward, detached and
// without a version check (nil entries where nothing was saved, and nil once
// a backward pass released them). Exporters read them to recover an op's
// constants, such as the output a softmax saved; they must not write to them.
func (n *Node) SavedValues() []*Tensor {
	if n.released || len(n.saved) == 0 {
		return nil
	}
	out := make([]*Tensor, len(n.saved))
	for i, s := range n.saved {
		if s.t != nil {
			out[i] = &Tensor{data: s.t.data}
		}
	}
	return out
}
