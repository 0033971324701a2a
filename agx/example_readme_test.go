package agx_test

import (
	"fmt"

	"github.com/goagx/agx/agx"
)

// This file holds the snippet of README.md ("A taste"): the lines between
// the README markers below must match the README's Go block, and
// TestREADMESnippet checks that they do, so the README shows code that
// compiles and prints what it says.

// README begin
type Square struct{}

func (Square) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

func (Square) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(x).Mul(2))
}

// README end

// The README's custom Function, applied, differentiated and checked.
func Example_readme() {
	// README begin
	x := agx.FromSlice([]float64{2, 3}).SetRequiresGrad(true)
	y := agx.Apply(Square{}, x) // tensor([4., 9.], dtype=float64, grad_fn=<SquareBackward>)
	y.Sum().Backward()
	fmt.Println(x.Grad()) // tensor([4., 6.], dtype=float64)
	agx.MustGradCheck(Square{}, []*agx.Tensor{agx.Randn(agx.Float64, 4).SetRequiresGrad(true)})
	// README end
	fmt.Println(y)
	// Output:
	// tensor([4., 6.], dtype=float64)
	// tensor([4., 9.], dtype=float64, grad_fn=<SquareBackward>)
}
