package tensor

// GeneratorState is a snapshot of a Generator's position in its stream
// (PyTorch's get_rng_state): restoring it with SetState makes the generator
// repeat exactly the draws that followed the snapshot. It is a value: copying
// it copies the snapshot.
type GeneratorState struct {
	s     [4]uint64
	spare float64
	has   bool
}

// State returns the generator's current state.
func (g *Generator) State() GeneratorState {
	g.mu.Lock()
	defer g.mu.Unlock()
	return GeneratorState{s: g.s, spare: g.spare, has: g.has}
}

// SetState moves the generator to a state returned by State (of this or
// another generator): the draws that follow are those that followed the
// snapshot.
func (g *Generator) SetState(st GeneratorState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.s, g.spare, g.has = st.s, st.spare, st.has
}
