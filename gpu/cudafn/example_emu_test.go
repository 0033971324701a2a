//go:build cudaemu

package cudafn_test

import (
	"fmt"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/gpu/cudafn"
	"github.com/goagx/agx/gpu/emu"
)

func ExampleKernel() {
	be, err := emu.NewBackend() // gpu.New() on a machine with a GPU
	if err != nil {
		fmt.Println(err)
		return
	}
	square := cudafn.Kernel{
		FuncName: "CUDASquare",
		Source: `
extern "C" __global__ void sq_f64(i64 n, const double* x, double* y) {
	AGX_GRID_LOOP(i, n) { y[i] = x[i] * x[i]; }
}
extern "C" __global__ void sq_grad_f64(i64 n, const double* x, const double* y, const double* gy, double* gx) {
	AGX_GRID_LOOP(i, n) { gx[i] = 2 * x[i] * gy[i]; }
}`,
		ForwardKernel: "sq", BackwardKernel: "sq_grad", Backend: be,
	}
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	y := agx.Apply(square, x)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([1., 4., 9.], dtype=float64, grad_fn=<CUDASquareBackward>)
	// tensor([2., 4., 6.], dtype=float64)
}
