package agx

import "sync"

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
	saved  []*Tensor // a built-in backward's unpacked saved tensors
	edges  []int32   // see discover
	edgeAt []int32
	bufs   gradBuffers
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
	p.order, p.deps, p.queue, p.ints, p.states = p.order[:0], p.deps[:0], p.queue[:0], p.ints[:0], p.states[:0]
	p.edges, p.edgeAt = p.edges[:0], p.edgeAt[:0]
	p.bufs.reset()
	scratchPool.Put(p)
}
