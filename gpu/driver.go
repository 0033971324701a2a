package gpu

import (
	"math"
	"unsafe"

	"github.com/goagx/agx/tensor"
)

// Ptr is a device address.
type Ptr uintptr

// Add returns p advanced by bytes.
func (p Ptr) Add(bytes int) Ptr { return p + Ptr(bytes) }

// Dim3 is a grid or block shape; zero fields count as 1.
type Dim3 struct{ X, Y, Z int }

// Norm returns d with zero fields set to 1.
func (d Dim3) Norm() Dim3 {
	return Dim3{max(d.X, 1), max(d.Y, 1), max(d.Z, 1)}
}

// Module is a loaded set of kernels, as returned by Driver.LoadModule.
type Module any

// Driver is the small device interface the Backend is written against. The
// CUDA implementation (build tag cuda) sits on gorgonia.org/cu, cu/blas and
// cu/nvrtc; the emulator (package gpu/emu, build tag cudaemu) compiles the
// same CUDA C sources for the host. The Backend calls the methods one at a
// time, under its lock, from a goroutine locked to its OS thread, after Bind.
type Driver interface {
	// Name identifies the driver ("cuda", "cuda-emu").
	Name() string
	// Bind makes the device current on the calling OS thread (CUDA:
	// cuCtxSetCurrent); the Backend calls it before every sequence of calls.
	Bind() error
	// Alloc returns bytes of zeroed device memory.
	Alloc(bytes int) (Ptr, error)
	// Free releases memory from Alloc.
	Free(p Ptr) error
	// CopyHtoD, CopyDtoH and CopyDtoD copy bytes between host and device.
	CopyHtoD(dst Ptr, src unsafe.Pointer, bytes int) error
	CopyDtoH(dst unsafe.Pointer, src Ptr, bytes int) error
	CopyDtoD(dst, src Ptr, bytes int) error
	// LoadModule compiles CUDA C source (extern "C" kernels) and loads it.
	// kernels names the kernels the caller will launch.
	LoadModule(name, source string, kernels []string) (Module, error)
	// Launch runs a kernel of m. Each argument is one 8-byte slot holding the
	// parameter's bits (see Args).
	Launch(m Module, kernel string, grid, block Dim3, sharedBytes int, args []uint64) error
	// Gemm computes c = a·b for contiguous row-major a [m,k], b [k,n], c [m,n]
	// of dtype dt (Float32 or Float64).
	Gemm(dt tensor.DType, m, n, k int, a, b, c Ptr) error
	// Synchronize waits for all queued device work.
	Synchronize() error
}

// Args encodes kernel arguments into 8-byte slots: Ptr and *Buffer become
// pointers, int and int64 become long long, uint64 unsigned long long, int32 becomes int, float32 and
// float64 keep their C types, bool becomes int (0 or 1).
func Args(vals ...any) []uint64 {
	out := make([]uint64, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case Ptr:
			out[i] = uint64(x)
		case *Buffer:
			out[i] = uint64(x.ptr)
		case int:
			out[i] = uint64(int64(x))
		case int64:
			out[i] = uint64(x)
		case uint64:
			out[i] = x
		case int32:
			out[i] = uint64(uint32(x))
		case float32:
			out[i] = uint64(math.Float32bits(x))
		case float64:
			out[i] = math.Float64bits(x)
		case bool:
			if x {
				out[i] = 1
			}
		default:
			tensor.Panicf("gpu.Args", tensor.ErrDevice, "unsupported kernel argument %T (argument %d)", v, i)
		}
	}
	return out
}
