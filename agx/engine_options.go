package agx

// BackwardOption configures Backward and Grad.
type BackwardOption func(*backwardConfig)

type backwardConfig struct {
	retainGraph    bool
	retainSet      bool
	createGraph    bool
	allowUnused    bool
	gradOutputs    []*Tensor
	undefinedRoots bool // GradCheck: start with no gradient at all for the outputs
}

// RetainGraph keeps saved tensors after the pass so the graph can be
// differentiated again. It defaults to the value of CreateGraph.
func RetainGraph(on ...bool) BackwardOption {
	return func(c *backwardConfig) { c.retainGraph, c.retainSet = len(on) == 0 || on[0], true }
}

// CreateGraph records the backward computation itself, so that the gradients
// can be differentiated again (double backward).
func CreateGraph(on ...bool) BackwardOption {
	return func(c *backwardConfig) { c.createGraph = len(on) == 0 || on[0] }
}

// AllowUnused makes Grad return nil for inputs the outputs do not depend on,
// instead of failing.
func AllowUnused(on ...bool) BackwardOption {
	return func(c *backwardConfig) { c.allowUnused = len(on) == 0 || on[0] }
}

// GradOutputs gives the gradients with respect to the outputs ("vector" of the
// vector-Jacobian product), one per output; nil entries mean ones for a scalar.
// For Backward, Gradient(g) is the one-output spelling.
func GradOutputs(gs ...*Tensor) BackwardOption {
	return func(c *backwardConfig) { c.gradOutputs = gs }
}

// Gradient is GradOutputs for Backward's single output.
func Gradient(g *Tensor) BackwardOption { return GradOutputs(g) }

func configure(opts []BackwardOption) backwardConfig {
	var c backwardConfig
	for _, o := range opts {
		o(&c)
	}
	if !c.retainSet {
		c.retainGraph = c.createGraph
	}
	return c
}
