package functions_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestStableLogSumExp1D(t *testing.T) {
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.StableLogSumExp1D(in[0]) })
	s := 1 + math.Exp(-1) + math.Exp(-2)
	fntest.RunCases(t, apply, []fntest.Case{
		{Name: "123", In: [][]float64{{1, 2, 3}}, Want: [][]float64{{3 + math.Log(s)}},
			Grad: [][]float64{{math.Exp(-2) / s, math.Exp(-1) / s, 1 / s}}},
		{Name: "large", In: [][]float64{{1000, 1000}}, Want: [][]float64{{1000 + math.Log(2)}}, Grad: [][]float64{{0.5, 0.5}}},
		{Name: "2d-all-elements", In: [][]float64{{0, 0, 0, 0}}, Shape: [][]int{{2, 2}},
			Want: [][]float64{{math.Log(4)}}, Grad: [][]float64{{0.25, 0.25, 0.25, 0.25}}},
	})
}

// srcStoreOnCtx is example D7 as the source writes it: the sum of exponentials
// is kept on ctx as an attribute. agx refuses to store a tensor with Set.
type srcStoreOnCtx struct{ agx.Once }

func (srcStoreOnCtx) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x := in[0]
	c := x.Max()
	e := x.Sub(c).Exp()
	s := e.Sum()
	ctx.SaveForBackward(e)
	ctx.Set("sum_exp", s) // refused
	return agx.Outputs(c.Add(s.Log()))
}

func (srcStoreOnCtx) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	e := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(e.Div(ctx.Get("sum_exp").(*agx.Tensor))))
}

// Example D7: storing a tensor on ctx is refused with a message that names
// the right way; StableLogSumExp1D saves both tensors with SaveForBackward and
// agrees with the built-in.
func TestStableLogSumExp1DD7(t *testing.T) {
	x := fntest.Randn(46, agx.Float64, 5).SetRequiresGrad(true)
	err := agx.Try(func() { agx.Apply(srcStoreOnCtx{}, x) })
	if err == nil || !strings.Contains(err.Error(), "SaveForBackward") || !strings.Contains(err.Error(), `"sum_exp"`) {
		t.Fatalf("storing a tensor on ctx: got %v, want a refusal naming SaveForBackward", err)
	}
	if err := agx.GradCheck(functions.StableLogSumExp1DFunction{}, []*agx.Tensor{x}); err != nil {
		t.Fatal(err)
	}
	// The source's comparison: a float32 copy against the built-in logsumexp over dim 0.
	x32 := x.Detach().To(agx.Float32)
	fntest.Close(t, "forward", functions.StableLogSumExp1D(x32), x32.LogSumExp(0), 1e-6)
}

func ExampleStableLogSumExp1D() {
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	y := functions.StableLogSumExp1D(x)
	y.Backward()
	fmt.Printf("%.6f\n", y.Item())
	fmt.Printf("%.6f\n", x.LogSumExp(0).Item())
	fmt.Println(x.Grad())
	// Output:
	// 3.407606
	// 3.407606
	// tensor([0.0900, 0.2447, 0.6652], dtype=float64)
}
