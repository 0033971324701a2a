package agx

import (
	"sync"
	"sync/atomic"
)

// goroutineScopes counts, per goroutine, the scopes of one kind that are open
// in it: NoGrad scopes (gradmode.go) and forward rules running without
// tangents (forward.go) each have one. Go has no goroutine-local storage, so
// the counts are kept in a map from goroutine key (goroutineKey) to depth,
// and a process-wide count of open scopes keeps the common case free: while
// no scope of the kind is open anywhere, inside is one atomic load. Only
// while one is open somewhere does it identify the calling goroutine
// (goroutineKey: the address of its runtime descriptor on amd64 and arm64, a
// few nanoseconds; its id parsed from runtime.Stack elsewhere, microseconds)
// and look it up. A goroutine started inside a scope is not inside it.
type goroutineScopes struct {
	open  atomic.Int32 // scopes open in all goroutines
	mu    sync.RWMutex
	depth map[uintptr]int32 // goroutine key → scopes open in that goroutine
}

// run runs f inside one more scope in the calling goroutine, closed when f
// returns or panics.
func (s *goroutineScopes) run(f func()) {
	id := goroutineKey()
	s.mu.Lock()
	s.depth[id]++
	s.mu.Unlock()
	s.open.Add(1)
	defer func() {
		s.mu.Lock()
		if s.depth[id]--; s.depth[id] == 0 {
			delete(s.depth, id)
		}
		s.mu.Unlock()
		s.open.Add(-1)
	}()
	f()
}

// inside reports whether the calling goroutine is inside a scope.
func (s *goroutineScopes) inside() bool {
	if s.open.Load() == 0 {
		return false
	}
	return s.insideSlow()
}

func (s *goroutineScopes) insideSlow() bool {
	id := goroutineKey()
	s.mu.RLock()
	d := s.depth[id]
	s.mu.RUnlock()
	return d != 0
}

// outside runs f with the calling goroutine's open scopes set aside, and
// restores them after f, also when f panics. Other goroutines' scopes stay.
func (s *goroutineScopes) outside(f func()) {
	if !s.inside() {
		f()
		return
	}
	id := goroutineKey()
	s.mu.Lock()
	d := s.depth[id]
	delete(s.depth, id)
	s.mu.Unlock()
	s.open.Add(-d)
	defer func() {
		s.mu.Lock()
		s.depth[id] += d
		s.mu.Unlock()
		s.open.Add(d)
	}()
	f()
}
