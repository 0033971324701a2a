//go:build cuda || cudaemu

package cudafn_test

import (
	"math"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/gpu/cudafn"
	"github.com/goagx/agx/gpu/gputest"
	"github.com/goagx/agx/tensor"
)

// silu is SiLU, y = x·σ(x), with dy/dx = σ(x)·(1 + x·(1 - σ(x))), per dtype.
const silu = `
template <typename T>
__device__ T sig(T x) { return (T)1 / ((T)1 + exp(-x)); }

template <typename T>
__device__ void silu_fwd(i64 n, const T* x, T* y) {
	AGX_GRID_LOOP(i, n) { y[i] = x[i] * sig(x[i]); }
}

template <typename T>
__device__ void silu_bwd(i64 n, const T* x, const T* y, const T* gy, T* gx) {
	AGX_GRID_LOOP(i, n) {
		T s = sig(x[i]);
		gx[i] = gy[i] * s * ((T)1 + x[i] * ((T)1 - s));
	}
}

extern "C" __global__ void silu_forward_f32(i64 n, const float* x, float* y) { silu_fwd(n, x, y); }
extern "C" __global__ void silu_forward_f64(i64 n, const double* x, double* y) { silu_fwd(n, x, y); }
extern "C" __global__ void silu_backward_f32(i64 n, const float* x, const float* y, const float* gy, float* gx) {
	silu_bwd(n, x, y, gy, gx);
}
extern "C" __global__ void silu_backward_f64(i64 n, const double* x, const double* y, const double* gy, double* gx) {
	silu_bwd(n, x, y, gy, gx);
}
`

// fusedAddClamp is y = clamp(a + b, lo, hi) with lo, hi as Params: two inputs,
// the same gradient to both where the sum is inside the bounds.
const fusedAddClamp = `
extern "C" __global__ void add_clamp_f64(i64 n, const double* a, const double* b, double* y, double lo, double hi) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	double s = a[i] + b[i];
	y[i] = s < lo ? lo : (s > hi ? hi : s);
}
extern "C" __global__ void add_clamp_grad_f64(i64 n, const double* a, const double* b, const double* y,
                                              const double* gy, double* ga, double* gb, double lo, double hi) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	double s = a[i] + b[i];
	double g = (s > lo && s < hi) ? gy[i] : 0.0;
	ga[i] = g;
	gb[i] = g;
}
`

func TestKernelSiLU(t *testing.T) {
	be := gputest.Backend(t)
	f := cudafn.Kernel{FuncName: "CUDASiLU", Source: silu, ForwardKernel: "silu_forward", BackwardKernel: "silu_backward", Backend: be}
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			tensor.ManualSeed(3)
			x := agx.Randn(dt, 3, 4).SetRequiresGrad(true)
			y := agx.Apply(f, x)
			if got := y.GradFn().Name(); got != "CUDASiLUBackward" {
				t.Errorf("node name %q, want CUDASiLUBackward", got)
			}
			x2 := x.Detach().SetRequiresGrad(true)
			ref := x2.Mul(x2.Sigmoid())
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-6
			}
			closeAll(t, "forward", y.Float64s(), ref.Float64s(), tol)
			y.Sum().Backward()
			ref.Sum().Backward()
			closeAll(t, "grad", x.Grad().Float64s(), x2.Grad().Float64s(), tol)
		})
	}
	t.Run("GradCheck/float64", func(t *testing.T) {
		x := agx.Randn(tensor.Float64, 3, 4).SetRequiresGrad(true)
		if err := agx.GradCheck(f, []*agx.Tensor{x}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestKernelTwoInputsWithParams(t *testing.T) {
	be := gputest.Backend(t)
	f := cudafn.Kernel{FuncName: "AddClamp", Source: fusedAddClamp, ForwardKernel: "add_clamp",
		BackwardKernel: "add_clamp_grad", Params: []float64{-0.5, 1}, Backend: be}
	a := agx.FromSlice([]float64{-2, -0.3, 0.1, 0.4, 0.9, 3}, 2, 3).SetRequiresGrad(true)
	b := agx.FromSlice([]float64{0.5, 0.1, 0.2, 0.3, 0.6, -1}, 2, 3).SetRequiresGrad(true)
	y := agx.Apply(f, a, b)
	closeAll(t, "forward", y.Float64s(), []float64{-0.5, -0.2, 0.3, 0.7, 1, 1}, 1e-15)
	y.Sum().Backward()
	closeAll(t, "a.grad", a.Grad().Float64s(), []float64{0, 1, 1, 1, 0, 0}, 0)
	closeAll(t, "b.grad", b.Grad().Float64s(), []float64{0, 1, 1, 1, 0, 0}, 0)
	a2 := agx.FromSlice([]float64{-0.2, 0.1, 0.3, 0.05}, 4).SetRequiresGrad(true)
	b2 := agx.FromSlice([]float64{0.1, -0.1, 0.2, 0.3}, 4).SetRequiresGrad(true)
	if err := agx.GradCheck(f, []*agx.Tensor{a2, b2}); err != nil {
		t.Fatal(err)
	}
}

func TestKernelErrors(t *testing.T) {
	be := gputest.Backend(t)
	cases := []struct {
		name string
		f    cudafn.Kernel
		want string
	}{
		{"compile-error", cudafn.Kernel{FuncName: "Bad", Source: `extern "C" __global__ void k_f64(i64 n, double* x) { undefined_thing; }`,
			ForwardKernel: "k", BackwardKernel: "k", Backend: be}, "undefined_thing"},
		{"missing-kernel", cudafn.Kernel{FuncName: "Missing", Source: silu, ForwardKernel: "nope", BackwardKernel: "nope", Backend: be},
			`no kernel "nope_f64"`},
		{"no-backend", cudafn.Kernel{FuncName: "NoBackend", Source: silu, ForwardKernel: "silu_forward"}, "no Backend"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := agx.Try(func() { agx.Apply(c.f, agx.Randn(tensor.Float64, 3)) })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

func closeAll(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] == want[i] || math.IsNaN(got[i]) && math.IsNaN(want[i]) {
			continue
		}
		// Written so that a NaN or an infinity on one side only fails.
		if !(math.Abs(got[i]-want[i]) <= tol*(1+math.Abs(want[i]))) {
			t.Fatalf("%s[%d] = %v, want %v (all: %v vs %v)", what, i, got[i], want[i], got, want)
		}
	}
}
