package agx

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
