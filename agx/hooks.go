package agx

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/goagx/agx/tensor"
)

type hookEntry struct {
	fn      func(grad *Tensor) *Tensor
	removed bool
}

type nodePreHook struct {
	fn      func(gradOutputs []*Tensor) []*Tensor
	removed bool
}

type nodePostHook struct {
	fn      func(gradInputs, gradOutputs []*Tensor) []*Tensor
	removed bool
}

// HookHandle removes a registered hook.
type HookHandle struct{ remove func() }

// Remove unregisters the hook; later passes no longer call it.
func (h HookHandle) Remove() { h.remove() }

// RegisterHook calls fn with t's gradient every time one is computed, before it
// is used further (accumulated into a leaf, or passed to t's GradFn). If fn
// returns a non-nil tensor, it replaces the gradient; it must have the same
// shape and dtype (else the pass panics with ErrGradient).
func (t *Tensor) RegisterHook(fn func(grad *Tensor) *Tensor) HookHandle {
	t.self("RegisterHook")
	if !t.RequiresGrad() {
		tensor.Panicf("RegisterHook", ErrGraph, "cannot register a hook on a tensor that doesn't require gradient")
	}
	h := &hookEntry{fn: fn}
	if t.gradFn == nil {
		x := t.writeExtra()
		x.hooks = append(x.hooks, h)
	} else {
		n, x := t.gradFn, t.gradFn.writeExtra()
		for len(x.outHooks) < int(n.nOut) {
			x.outHooks = append(x.outHooks, nil)
		}
		x.outHooks[t.outputNr] = append(x.outHooks[t.outputNr], h)
		if t.retainsGrad {
			n.setRetain(t)
		}
	}
	return HookHandle{func() { h.removed = true }}
}

// checkHookResult rejects a tensor hook's replacement gradient whose shape or
// dtype differs from the gradient it was given, as PyTorch does; otherwise the
// wrong shape would surface later as a confusing error or a wrong-shaped Grad.
func checkHookResult(node string, old, r *Tensor) *Tensor {
	if !slices.Equal(old.data.Shape(), r.data.Shape()) {
		tensor.Panicf(node, ErrGradient, "hook has changed the size of value (was %v got %v)", old.data.Shape(), r.data.Shape())
	}
	if old.DType() != r.DType() {
		tensor.Panicf(node, ErrGradient, "hook has changed the type of value (was %v got %v)", old.DType(), r.DType())
	}
	return r
}

func (n *Node) setRetain(t *Tensor) {
	x := n.writeExtra()
	for len(x.retain) < int(n.nOut) {
		x.retain = append(x.retain, nil)
	}
	x.retain[t.outputNr] = t
}

// RegisterPreHook calls fn with the gradients of the node's outputs before the
// node runs; a non-nil result replaces them.
func (n *Node) RegisterPreHook(fn func(gradOutputs []*Tensor) []*Tensor) HookHandle {
	h := &nodePreHook{fn: fn}
	x := n.writeExtra()
	x.preHooks = append(x.preHooks, h)
	return HookHandle{func() { h.removed = true }}
}

// RegisterHook calls fn after the node ran, with the gradients it computed for
// its inputs and the gradients of its outputs; a non-nil result replaces the
// input gradients.
func (n *Node) RegisterHook(fn func(gradInputs, gradOutputs []*Tensor) []*Tensor) HookHandle {
	h := &nodePostHook{fn: fn}
	x := n.writeExtra()
	x.postHooks = append(x.postHooks, h)
	return HookHandle{func() { h.removed = true }}
}

var anomalyEnabled atomic.Bool

// SetDetectAnomaly turns anomaly detection on or off (process-wide) and returns
// the previous setting. When on, every node records where its forward was
// called, and a backward that produces NaN or Inf stops with ErrAnomaly naming
// the node and that call site.
func SetDetectAnomaly(on bool) bool { return anomalyEnabled.Swap(on) }

// DetectAnomaly runs f with anomaly detection on.
func DetectAnomaly(f func()) {
	prev := SetDetectAnomaly(true)
	defer SetDetectAnomaly(prev)
	f()
}

// callerStack returns the user's call site of the op being recorded: the first
// three frames outside the agx package, a frame in a notebook cell shown as
// its line of code (frameLocation).
func callerStack() string {
	pcs := make([]uintptr, 32)
	k := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:k])
	var lines []string
	for {
		f, more := frames.Next()
		if !strings.Contains(f.Function, "goagx/agx/agx.") || strings.HasSuffix(f.File, "_test.go") {
			lines = append(lines, fmt.Sprintf("%s\n\t%s", f.Function, frameLocation(f.File, f.Line)))
			if len(lines) == 3 {
				break
			}
		}
		if !more {
			break
		}
	}
	return strings.Join(lines, "\n")
}

func checkAnomaly(n *Node, out []*Tensor) {
	for i, g := range out {
		if g == nil || !g.DType().IsFloat() {
			continue
		}
		for _, v := range g.data.Float64s() {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				kind := "nan"
				if math.IsInf(v, 0) {
					kind = "inf"
				}
				where := n.readExtra().stack
				if where == "" {
					where = "(unknown: the node was recorded before anomaly detection was enabled)"
				}
				tensor.PanicHint(n.name, ErrAnomaly, "check the inputs of this op's forward for values outside its domain",
					"Function '%s' returned %s values in its %dth output; its forward was called at:\n%s", n.name, kind, i, where)
			}
		}
	}
}
