package solutions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example C24 (GELU)
func TestGELU(t *testing.T) {
	for _, tc := range []struct {
		name       string
		tanh       bool
		x, y, grad []float64
	}{
		{"exact", false, []float64{0, 1, -2}, []float64{0, 0.8413447460685429, -0.04550026389635842},
			[]float64{0.5, 1.0833154705876864, -0.08523180107819692}},
		{"tanh", true, []float64{0, 1, -2}, []float64{0, 0.8411919906082768, -0.04540230591222494},
			[]float64{0.5, 1.0829640838457826, -0.08609925662361825}},
	} {
		t.Run("table/"+tc.name, func(t *testing.T) {
			x := fntest.LeafOf(tc.x, len(tc.x))
			y := agx.Apply(GELUFunction{Tanh: tc.tanh}, x)
			fntest.Elements(t, "y", y, tc.y...)
			y.Sum().Backward()
			fntest.Elements(t, "x.grad", x.Grad(), tc.grad...)
		})
	}
	for _, tanh := range []bool{false, true} {
		f := GELUFunction{Tanh: tanh}
		t.Run(fmt.Sprintf("tanh=%v", tanh), func(t *testing.T) {
			fntest.GradChecks(t, f, []*agx.Tensor{fntest.Leaf(1, tensor.Float64, 4, 5)})
			for _, dt := range fntest.DTypes {
				t.Run("builtin/"+dt.String(), func(t *testing.T) {
					ref := func(in ...*agx.Tensor) *agx.Tensor { return in[0].GELU() }
					if tanh {
						ref = func(in ...*agx.Tensor) *agx.Tensor { return in[0].GELUTanh() }
					}
					fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return agx.Apply(f, in...) }, ref,
						[]*agx.Tensor{fntest.Leaf(2, dt, 8, 16)}, fntest.Tol(dt))
				})
			}
		})
	}
}

func ExampleGELU() {
	x := agx.FromSlice([]float32{-1, 0, 1}, 3).SetRequiresGrad(true)
	y := GELU(x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([-0.1587,  0.0000,  0.8413], grad_fn=<GELUBackward>)
	// tensor([-0.0833,  0.5000,  1.0833])
}

func ExampleGELUTanh() {
	x := agx.FromSlice([]float32{-1, 0, 1}, 3).SetRequiresGrad(true)
	y := GELUTanh(x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([-0.1588,  0.0000,  0.8412], grad_fn=<GELUBackward>)
	// tensor([-0.0830,  0.5000,  1.0830])
}
