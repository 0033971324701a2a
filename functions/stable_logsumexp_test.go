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

func TestStableLogSumExp(t *testing.T) {
	ln2, ln3 := math.Log(2), math.Log(3)
	apply := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.StableLogSumExp(in[0]) })
	fntest.RunCases(t, apply, []fntest.Case{
		{Name: "rows", In: [][]float64{{0, 0, 1, 1}}, Shape: [][]int{{2, 2}},
			Want: [][]float64{{ln2, 1 + ln2}}, Grad: [][]float64{{0.5, 0.5, 0.5, 0.5}}},
		// exp(1000) overflows; the shifted form does not.
		{Name: "large", In: [][]float64{{1000, 1000, 1000}}, Shape: [][]int{{1, 3}},
			Want: [][]float64{{1000 + ln3}}, Grad: [][]float64{{1.0 / 3, 1.0 / 3, 1.0 / 3}}},
		{Name: "very-negative", In: [][]float64{{-1000, -1000}}, Shape: [][]int{{1, 2}},
			Want: [][]float64{{-1000 + ln2}}, Grad: [][]float64{{0.5, 0.5}}},
	})
}

// Example A3: x randn(32,512) in float64 agrees with the built-in logsumexp
// to rounding error (the source reports ~1e-15), and gradcheck on (4,16).
func TestStableLogSumExpA3(t *testing.T) {
	x := fntest.Randn(43, agx.Float64, 32, 512)
	diff := functions.StableLogSumExp(x).Sub(x.LogSumExp(-1)).Abs().Max().Item()
	if diff > 1e-13 {
		t.Fatalf("max abs diff from the built-in: %g", diff)
	}
	xc := fntest.Randn(44, agx.Float64, 4, 16).SetRequiresGrad(true)
	if err := agx.GradCheck(functions.StableLogSumExpFunction{}, []*agx.Tensor{xc}, agx.Eps(1e-6), agx.Atol(1e-4)); err != nil {
		t.Fatal(err)
	}
}

// The saved softmax is a constant, so a second derivative is refused rather
// than silently wrong. (As in PyTorch, the error surfaces when the first
// gradient depends on something that requires grad, here the upstream v.)
func TestStableLogSumExpOnce(t *testing.T) {
	x := fntest.Randn(45, agx.Float64, 2, 3).SetRequiresGrad(true)
	v := fntest.Randn(48, agx.Float64, 2).SetRequiresGrad(true)
	g := agx.Grad1(functions.StableLogSumExp(x), x, agx.GradOutputs(v), agx.CreateGraph())
	err := agx.Try(func() { g.Sum().Backward() })
	if err == nil || !strings.Contains(err.Error(), "once-differentiable") {
		t.Fatalf("got %v, want the once-differentiable error", err)
	}
}

func ExampleStableLogSumExp() {
	x := agx.FromNested([][]float64{{1000, 1000}, {0, math.Log(3)}}).SetRequiresGrad(true)
	y := functions.StableLogSumExp(x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([1000.6931,    1.3863], dtype=float64,
	//        grad_fn=<StableLogSumExpBackward>)
	// tensor([[0.5000, 0.5000],
	//         [0.2500, 0.7500]], dtype=float64)
}
