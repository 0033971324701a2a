package solutions

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// bcBatchNormRef is batch normalisation composed from agx built-ins.
func bcBatchNormRef(x *agx.Tensor, eps float64) *agx.Tensor {
	return x.Sub(x.MeanKeep(0)).Mul(x.VarKeep(false, 0).Add(eps).Rsqrt())
}

// example C24 (batch normalisation)
func TestBatchNorm(t *testing.T) {
	r := 1 / math.Sqrt(1+1e-5)
	for _, tc := range []struct {
		name     string
		x        []float64
		shape    []int
		eps      float64
		y, grad  []float64
		upstream []float64
	}{
		{"two samples", []float64{1, 3}, []int{2, 1}, 0, []float64{-r, r}, []float64{0, 0}, []float64{1, 1}},
		{"upstream on one sample", []float64{1, 3}, []int{2, 1}, 1e-5, []float64{-r, r},
			// (1/N)·rstd·(N·g - Σg - x̂·Σ(g·x̂)) with g = [1, 0], x̂ ≈ [-1, 1]
			[]float64{0.5 * r * (2 - 1 - 1*r*r), 0.5 * r * (0 - 1 + r*r)}, []float64{1, 0}},
		{"single sample", []float64{5, -1}, []int{1, 2}, 0, []float64{0, 0}, []float64{0, 0}, []float64{1, 1}},
	} {
		t.Run("table/"+tc.name, func(t *testing.T) {
			x := fntest.LeafOf(tc.x, tc.shape...)
			y := BatchNorm(x, tc.eps)
			fntest.Elements(t, "y", y, tc.y...)
			y.Mul(agx.FromSlice(tc.upstream, tc.shape...)).Sum().Backward()
			fntest.Elements(t, "x.grad", x.Grad(), tc.grad...)
		})
	}
	for _, shape := range [][]int{{6, 3}, {4, 2, 3}} {
		t.Run(fmt.Sprint(shape), func(t *testing.T) {
			fntest.GradChecks(t, BatchNormFunction{}, []*agx.Tensor{fntest.Leaf(1, tensor.Float64, shape...)})
			for _, dt := range fntest.DTypes {
				t.Run("composite/"+dt.String(), func(t *testing.T) {
					fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return BatchNorm(in[0], 1e-3) },
						func(in ...*agx.Tensor) *agx.Tensor { return bcBatchNormRef(in[0], 1e-3) },
						[]*agx.Tensor{fntest.Leaf(2, dt, shape...)}, 10*fntest.Tol(dt))
				})
			}
		})
	}
	t.Run("non-contiguous input and gradient", func(t *testing.T) {
		// x.T() and a transposed upstream gradient take the op-by-op path.
		for _, dt := range fntest.DTypes {
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return BatchNorm(in[0].T(), 0).T() },
				func(in ...*agx.Tensor) *agx.Tensor { return bcBatchNormRef(in[0].T(), 1e-5).T() },
				[]*agx.Tensor{fntest.Leaf(7, dt, 3, 6)}, 10*fntest.Tol(dt))
		}
	})
	t.Run("misuse", func(t *testing.T) {
		fntest.PanicsIs(t, tensor.ErrShape, func() { BatchNorm(agx.Zeros(tensor.Float64, 0, 3), 0) })
		fntest.PanicsIs(t, tensor.ErrArg, func() { BatchNorm(fntest.Leaf(3, tensor.Float64, 4, 2), -1) })
		fntest.PanicsIs(t, tensor.ErrShape, func() { BatchNorm(agx.Scalar(1.0), 0) })
	})
}

func ExampleBatchNorm() {
	x := agx.FromSlice([]float32{1, 10, 3, 20, 5, 30}, 3, 2).SetRequiresGrad(true)
	y := BatchNorm(x, 0)
	fmt.Println(y)
	y.Mul(agx.FromSlice([]float32{1, 0, 0, 0, 0, 0}, 3, 2)).Sum().Backward()
	fmt.Println(x.Grad())
	// Output:
	// tensor([[-1.2247, -1.2247],
	//         [ 0.0000,  0.0000],
	//         [ 1.2247,  1.2247]], grad_fn=<BatchNormBackward>)
	// tensor([[ 0.1021,  0.0000],
	//         [-0.2041,  0.0000],
	//         [ 0.1021,  0.0000]])
}
