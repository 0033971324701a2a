//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/goagx/agx/tensor"
	"gonum.org/v1/gonum/blas"
	"gorgonia.org/cu"
	cublas "gorgonia.org/cu/blas"
	"gorgonia.org/cu/nvrtc"
)

// Available reports whether a CUDA device can be used. (A binary linked with
// gorgonia.org/cu already exits at start-up when the driver finds no device;
// use Probe in scripts that must not crash.)
func Available() error {
	n, err := cu.NumDevices()
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if n == 0 {
		return errors.New("gpu: no CUDA device")
	}
	return nil
}

// New returns the CUDA backend on device 0. The backend is made on the first
// call, and later calls return the same one: like PyTorch, a program has one
// context per device, and its memory cache serves every tensor on it.
func New() (*Backend, error) { return device0() }

var device0 = sync.OnceValues(func() (*Backend, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	return NewBackend("cuda", func() (Driver, error) { return OpenCUDA(0) })
})

// CUDADriver is the Driver on gorgonia.org/cu: driver API memory and launches,
// NVRTC for modules and cuBLAS for Gemm. Its context is current on the thread
// that opened it and, after Bind, on the calling thread.
type CUDADriver struct {
	dev  cu.Device
	ctx  cu.CUContext
	arch string
	blas *cublas.Standard
}

type cudaModule struct {
	name string
	mod  cu.Module
	fns  map[string]cu.Function
}

// OpenCUDA creates a context on device ordinal and makes it current on the
// calling thread.
func OpenCUDA(ordinal int) (*CUDADriver, error) {
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, fmt.Errorf("gpu: device %d: %w", ordinal, err)
	}
	major, err := dev.Attribute(cu.ComputeCapabilityMajor)
	if err != nil {
		return nil, err
	}
	minor, err := dev.Attribute(cu.ComputeCapabilityMinor)
	if err != nil {
		return nil, err
	}
	ctx, err := dev.MakeContext(cu.SchedAuto)
	if err != nil {
		return nil, fmt.Errorf("gpu: creating a context: %w", err)
	}
	if err := cu.SetCurrentContext(ctx); err != nil {
		return nil, err
	}
	return &CUDADriver{dev: dev, ctx: ctx, arch: fmt.Sprintf("compute_%d%d", major, minor), blas: cublas.New()}, nil
}

// Name is "cuda".
func (d *CUDADriver) Name() string { return "cuda" }

// Bind makes the driver's context current on the calling thread.
func (d *CUDADriver) Bind() error { return cu.SetCurrentContext(d.ctx) }

// Arch is the virtual architecture NVRTC compiles for (e.g. compute_80).
func (d *CUDADriver) Arch() string { return d.arch }

// Alloc returns zeroed device memory.
func (d *CUDADriver) Alloc(bytes int) (Ptr, error) {
	p, err := cu.MemAlloc(int64(max(bytes, 1)))
	if err != nil {
		return 0, err
	}
	if err := cu.MemsetD8(p, 0, int64(max(bytes, 1))); err != nil {
		return 0, err
	}
	return Ptr(p), nil
}

// Free releases device memory.
func (d *CUDADriver) Free(p Ptr) error { return cu.MemFree(cu.DevicePtr(p)) }

// CopyHtoD copies host memory to the device.
func (d *CUDADriver) CopyHtoD(dst Ptr, src unsafe.Pointer, bytes int) error {
	return cu.MemcpyHtoD(cu.DevicePtr(dst), src, int64(bytes))
}

// CopyDtoH copies device memory to the host.
func (d *CUDADriver) CopyDtoH(dst unsafe.Pointer, src Ptr, bytes int) error {
	return cu.MemcpyDtoH(dst, cu.DevicePtr(src), int64(bytes))
}

// CopyDtoD copies between device buffers.
func (d *CUDADriver) CopyDtoD(dst, src Ptr, bytes int) error {
	return cu.MemcpyDtoD(cu.DevicePtr(dst), cu.DevicePtr(src), int64(bytes))
}

// Synchronize waits for the context's queued work.
func (d *CUDADriver) Synchronize() error { return cu.Synchronize() }

// CompilePTX compiles CUDA C source to PTX with NVRTC for arch (e.g. "compute_80").
// It needs libnvrtc but no GPU.
func CompilePTX(name, source, arch string) (string, error) {
	prog, err := nvrtc.CreateProgram(source, name)
	if err != nil {
		return "", err
	}
	defer prog.Destroy()
	if err := prog.Compile("--gpu-architecture="+arch, "--std=c++17"); err != nil {
		log, _ := prog.GetLog()
		return "", fmt.Errorf("nvrtc: %s: %w\n%s", name, err, log)
	}
	return prog.GetPTX()
}

// LoadModule compiles source with NVRTC for this device and loads the PTX.
func (d *CUDADriver) LoadModule(name, source string, kernels []string) (Module, error) {
	ptx, err := CompilePTX(name+".cu", source, d.arch)
	if err != nil {
		return nil, err
	}
	mod, err := cu.LoadData(ptx)
	if err != nil {
		return nil, fmt.Errorf("gpu: loading module %s: %w", name, err)
	}
	m := &cudaModule{name: name, mod: mod, fns: map[string]cu.Function{}}
	for _, k := range kernels {
		if _, err := m.function(k); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *cudaModule) function(kernel string) (cu.Function, error) {
	if f, ok := m.fns[kernel]; ok {
		return f, nil
	}
	f, err := m.mod.Function(kernel)
	if err != nil {
		return f, fmt.Errorf("gpu: module %s has no kernel %q (kernels must be extern \"C\"): %w", m.name, kernel, err)
	}
	m.fns[kernel] = f
	return f, nil
}

// Launch queues a kernel launch on the default stream.
func (d *CUDADriver) Launch(mod Module, kernel string, grid, block Dim3, sharedBytes int, args []uint64) error {
	m, ok := mod.(*cudaModule)
	if !ok {
		return fmt.Errorf("gpu: Launch: module %T is not a CUDA module", mod)
	}
	f, err := m.function(kernel)
	if err != nil {
		return err
	}
	params := make([]unsafe.Pointer, len(args))
	for i := range args {
		params[i] = unsafe.Pointer(&args[i])
	}
	g, b := grid.Norm(), block.Norm()
	return f.Launch(g.X, g.Y, g.Z, b.X, b.Y, b.Z, sharedBytes, cu.Stream{}, params)
}

// devSlice views device memory as a Go slice, only to hand it to cu/blas,
// which takes the address of element 0 and never reads it on the host.
func devSlice[T float32 | float64](p Ptr, n int) []T {
	var up unsafe.Pointer
	*(*uintptr)(unsafe.Pointer(&up)) = uintptr(p)
	return unsafe.Slice((*T)(up), n)
}

// Gemm computes row-major c = a·b with cuBLAS, which is column-major: a
// row-major matrix is its transpose in column-major order, so it computes
// cᵀ = bᵀ·aᵀ.
func (d *CUDADriver) Gemm(dt tensor.DType, m, n, k int, a, b, c Ptr) error {
	switch dt {
	case tensor.Float32:
		d.blas.Sgemm(blas.NoTrans, blas.NoTrans, n, m, k, 1,
			devSlice[float32](b, k*n), n, devSlice[float32](a, m*k), k, 0, devSlice[float32](c, m*n), n)
	case tensor.Float64:
		d.blas.Dgemm(blas.NoTrans, blas.NoTrans, n, m, k, 1,
			devSlice[float64](b, k*n), n, devSlice[float64](a, m*k), k, 0, devSlice[float64](c, m*n), n)
	default:
		return fmt.Errorf("gpu: Gemm: dtype %v", dt)
	}
	return d.blas.Err()
}

var _ Driver = (*CUDADriver)(nil)
