package agx

import (
	"sync"
	"sync/atomic"
)

// Grad mode is per goroutine, as PyTorch's is per thread: NoGrad in one
// goroutine never changes what another records. Go has no goroutine-local
// storage, so the mode is kept in a map from goroutine id to the depth of its
// open NoGrad scopes, and a process-wide count of open scopes keeps the
// common case free: while no NoGrad scope is open anywhere (training, every
// backward pass), IsGradEnabled is one atomic load. Only while a scope is
// open somewhere does it identify the calling goroutine (goroutineKey: the
// address of its runtime descriptor on amd64 and arm64, a few nanoseconds;
// its id parsed from runtime.Stack elsewhere, microseconds) and look it up. A goroutine started inside NoGrad does
// not inherit the mode (as a thread started inside torch.no_grad does not).

var (
	noGradOpen  atomic.Int32 // NoGrad scopes open in all goroutines
	noGradMu    sync.RWMutex
	noGradDepth = map[uintptr]int32{} // goroutine key (goroutineKey) → open NoGrad scopes
)

// NoGrad runs f with graph recording disabled in the calling goroutine: ops
// inside f record no nodes, as under PyTorch's torch.no_grad(). Other
// goroutines, including those f starts, record as before. Backward passes
// never need it; they record only with CreateGraph.
func NoGrad(f func()) {
	id := goroutineKey()
	noGradMu.Lock()
	noGradDepth[id]++
	noGradMu.Unlock()
	noGradOpen.Add(1)
	defer func() {
		noGradMu.Lock()
		if noGradDepth[id]--; noGradDepth[id] == 0 {
			delete(noGradDepth, id)
		}
		noGradMu.Unlock()
		noGradOpen.Add(-1)
	}()
	f()
}

// IsGradEnabled reports whether ops called from this goroutine record graph
// nodes (false inside NoGrad).
func IsGradEnabled() bool {
	if noGradOpen.Load() == 0 {
		return true
	}
	return gradEnabledSlow()
}

func gradEnabledSlow() bool {
	id := goroutineKey()
	noGradMu.RLock()
	d := noGradDepth[id]
	noGradMu.RUnlock()
	return d == 0
}

// enableGrad runs f with recording enabled in the calling goroutine, even
// inside NoGrad (PyTorch's enable_grad, which its engine applies to a backward
// pass with create_graph). The goroutine's open NoGrad scopes are set aside
// for f's duration and restored after it, also when f panics.
func enableGrad(f func()) {
	id := goroutineKey()
	noGradMu.Lock()
	d := noGradDepth[id]
	delete(noGradDepth, id)
	noGradMu.Unlock()
	noGradOpen.Add(-d)
	defer func() {
		noGradMu.Lock()
		if d != 0 {
			noGradDepth[id] += d
		}
		noGradMu.Unlock()
		noGradOpen.Add(d)
	}()
	f()
}
