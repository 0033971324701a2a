package agx

// Grad mode is per goroutine, as PyTorch's is per thread: NoGrad in one
// goroutine never changes what another records, and a goroutine started
// inside NoGrad does not inherit the mode (as a thread started inside
// torch.no_grad does not). The open NoGrad scopes are counted per goroutine
// (goroutineScopes, scope.go): while none is open anywhere (training, every
// backward pass), IsGradEnabled is one atomic load.
var noGradScopes = goroutineScopes{depth: map[uintptr]int32{}}

// NoGrad runs f with graph recording disabled in the calling goroutine: ops
// inside f record no nodes, as under PyTorch's torch.no_grad(). Other
// goroutines, including those f starts, record as before. Backward passes
// never need it; they record only with CreateGraph.
func NoGrad(f func()) { noGradScopes.run(f) }

// IsGradEnabled reports whether ops called from this goroutine record graph
// nodes (false inside NoGrad).
func IsGradEnabled() bool { return !noGradScopes.inside() }

// EnableGrad runs f with graph recording enabled in the calling goroutine,
// even inside NoGrad, as under PyTorch's torch.enable_grad(): a gradient can
// be taken inside an evaluation loop that runs under NoGrad. The goroutine's
// open NoGrad scopes are set aside for f's duration and back in force after
// it, also when f panics. Other goroutines are not affected.
func EnableGrad(f func()) { enableGrad(f) }

// enableGrad is EnableGrad; the engine also applies it to a backward pass
// with CreateGraph, as PyTorch's engine does.
func enableGrad(f func()) { noGradScopes.outside(f) }
