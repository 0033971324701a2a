package agx_test

import (
	"testing"

	"github.com/goagx/agx/agx"
)

// savedProbe saves its input and its output and records, in Backward,
// whether each saved tensor requires grad.
type savedProbe struct{ seen *[2]bool }

func (p savedProbe) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	y := in[0].Mul(in[0])
	ctx.SaveForBackward(in[0], y)
	return agx.Outputs(y)
}

func (p savedProbe) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	p.seen[0], p.seen[1] = s[0].RequiresGrad(), s[1].RequiresGrad()
	return agx.Outputs(g[0].Mul(s[0]).Mul(2))
}

// TestSavedTensorsRequireGradOnlyWhenRecorded: the contract that
// Ctx.SavedTensors documents, and that functions.ScaledSigmoid relies on to
// skip recomputing σ(x): saved tensors come back detached in a backward pass
// without CreateGraph and keep their place in the graph with it.
func TestSavedTensorsRequireGradOnlyWhenRecorded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		create bool
		want   [2]bool // input, output
	}{
		{"plain", false, [2]bool{false, false}},
		{"create-graph", true, [2]bool{true, true}},
	} {
		for _, dt := range []agx.DType{agx.Float32, agx.Float64} {
			t.Run(tc.name+"/"+dt.String(), func(t *testing.T) {
				var seen [2]bool
				x := agx.FromSlice([]float64{1, -2, 3}, 3).To(dt).SetRequiresGrad(true)
				y := agx.Apply(savedProbe{&seen}, x)
				g := agx.Grad1(y.Sum(), x, agx.CreateGraph(tc.create))
				if seen != tc.want {
					t.Fatalf("saved (input, output) RequiresGrad = %v, want %v", seen, tc.want)
				}
				if g.RequiresGrad() != tc.create {
					t.Fatalf("gradient RequiresGrad = %v, want %v", g.RequiresGrad(), tc.create)
				}
			})
		}
	}
}
