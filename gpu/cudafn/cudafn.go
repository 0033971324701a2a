// Package cudafn wraps CUDA C kernels written by the user as agx Functions:
// a forward kernel and a backward kernel, compiled at run time (NVRTC on a GPU,
// the host emulator elsewhere), become one differentiable op that GradCheck
// can verify like any other Function.
package cudafn

import (
	"fmt"
	"sync"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/gpu"
	"github.com/goagx/agx/gpu/kernels"
	"github.com/goagx/agx/tensor"
)

// Threads is the block size of Kernel launches (a 1-D grid covers n elements).
const Threads = 128

// Kernel is an element-wise Function of K same-shaped inputs and one output
// whose forward and backward are CUDA C kernels. Source holds the kernels,
// each declared extern "C" __global__ and defined per dtype with the suffix
// _f32 (float) or _f64 (double); the agx kernel header (i64, AGX_GRID_LOOP)
// is prepended. For inputs x0..xK-1 and Params p0.. (passed as double):
//
//	Forward_T (i64 n, const T* x0, ..., T* y, double p0, ...)
//	Backward_T(i64 n, const T* x0, ..., const T* y, const T* gy, T* gx0, ..., double p0, ...)
//
// Backward writes the gradient of every input. Launches use blocks of Threads
// threads and a grid covering n.
type Kernel struct {
	// FuncName is the Function's name: its graph node is "<FuncName>Backward".
	FuncName string
	// Source is the CUDA C text of both kernels.
	Source string
	// ForwardKernel and BackwardKernel are kernel names without the dtype suffix.
	ForwardKernel, BackwardKernel string
	// Params are scalar parameters passed to both kernels after the pointers.
	Params []float64
	// Backend runs the kernels: gpu.New() on a GPU, emu.NewBackend() elsewhere.
	Backend *gpu.Backend
}

// Name implements agx.Named.
func (k Kernel) Name() string {
	if k.FuncName == "" {
		return "CUDAKernel"
	}
	return k.FuncName
}

var (
	modMu   sync.Mutex
	modules = map[modKey]gpu.Module{}
)

type modKey struct {
	be  *gpu.Backend
	src string
}

// Module compiles (once per backend and source) and returns the kernels' module.
func (k Kernel) Module() (gpu.Module, error) {
	if k.Backend == nil {
		return nil, fmt.Errorf("cudafn: %s: no Backend (use gpu.New() or emu.NewBackend())", k.Name())
	}
	key := modKey{k.Backend, k.Source}
	modMu.Lock()
	defer modMu.Unlock()
	if m, ok := modules[key]; ok {
		return m, nil
	}
	var m gpu.Module
	var err error
	k.Backend.Do(func(d gpu.Driver) {
		m, err = d.LoadModule(k.Name(), kernels.Header()+"\n"+k.Source, nil)
	})
	if err != nil {
		return nil, err
	}
	modules[key] = m
	return m, nil
}

var suffix = map[tensor.DType]string{tensor.Float32: "_f32", tensor.Float64: "_f64"}

// onDevice returns a contiguous copy of t on be and its buffer.
func onDevice(be *gpu.Backend, t *tensor.Tensor) (*tensor.Tensor, *gpu.Buffer) {
	d := t.ToBackend(be).Contiguous()
	return d, d.Raw().Buf.(*gpu.Buffer)
}

// launch runs kernel over n elements with the buffers then Params as arguments.
func (k Kernel) launch(kernel string, n int, bufs []*gpu.Buffer) {
	m, err := k.Module()
	if err != nil {
		tensor.Panicf(k.Name(), tensor.ErrDevice, "%v", err)
	}
	args := []any{n}
	for _, b := range bufs {
		args = append(args, b)
	}
	for _, p := range k.Params {
		args = append(args, p)
	}
	k.Backend.Do(func(d gpu.Driver) {
		err = d.Launch(m, kernel, gpu.Dim3{X: max((n+Threads-1)/Threads, 1)}, gpu.Dim3{X: Threads}, 0, gpu.Args(args...))
		if err == nil {
			err = d.Synchronize()
		}
	})
	if err != nil {
		tensor.Panicf(k.Name(), tensor.ErrDevice, "%s: %v", kernel, err)
	}
}

func (k Kernel) dtype(ts []*agx.Tensor) tensor.DType {
	dt := ts[0].DType()
	if suffix[dt] == "" {
		tensor.Panicf(k.Name(), tensor.ErrDType, "CUDA kernels are defined for Float32 and Float64, got %v", dt)
	}
	for _, t := range ts[1:] {
		if t.DType() != dt || !sameShape(t.Shape(), ts[0].Shape()) {
			tensor.Panicf(k.Name(), tensor.ErrShape, "inputs must share shape and dtype: %v %v and %v %v",
				ts[0].Shape(), dt, t.Shape(), t.DType())
		}
	}
	return dt
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Forward runs the forward kernel; the output comes back on the inputs' backend.
func (k Kernel) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	if _, err := k.Module(); err != nil {
		tensor.Panicf(k.Name(), tensor.ErrDevice, "%v", err)
	}
	dt := k.dtype(in)
	home := in[0].Data().Backend()
	n := in[0].Numel()
	var bufs []*gpu.Buffer
	for _, x := range in {
		_, b := onDevice(k.Backend, x.Data())
		bufs = append(bufs, b)
	}
	y := tensor.EmptyOn(k.Backend, dt, in[0].Shape()...)
	bufs = append(bufs, y.Raw().Buf.(*gpu.Buffer))
	k.launch(k.ForwardKernel+suffix[dt], n, bufs)
	out := agx.New(y.ToBackend(home))
	ctx.SaveForBackward(append(append([]*agx.Tensor{}, in...), out)...)
	return agx.Outputs(out)
}

// Backward runs the backward kernel and returns one gradient per input.
func (k Kernel) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	saved := ctx.SavedTensors()
	in, y := saved[:len(saved)-1], saved[len(saved)-1]
	dt := k.dtype(in)
	home := in[0].Data().Backend()
	n := in[0].Numel()
	var bufs []*gpu.Buffer
	for _, t := range append(append(append([]*agx.Tensor{}, in...), y), g[0]) {
		_, b := onDevice(k.Backend, t.Data().To(dt))
		bufs = append(bufs, b)
	}
	grads := make([]*tensor.Tensor, len(in))
	for i := range grads {
		grads[i] = tensor.EmptyOn(k.Backend, dt, in[0].Shape()...)
		bufs = append(bufs, grads[i].Raw().Buf.(*gpu.Buffer))
	}
	k.launch(k.BackwardKernel+suffix[dt], n, bufs)
	out := make([]*agx.Tensor, len(in))
	for i, gi := range grads {
		out[i] = agx.New(gi.ToBackend(home))
	}
	return out
}
