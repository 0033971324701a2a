//go:build cudaemu

// Package emu is a host emulator of the gpu.Driver: it compiles CUDA C
// sources as C++ with cuda_emu.h (g++ must be installed), loads them as shared
// libraries and runs each kernel launch with one OS thread per CUDA thread of
// a block. Device memory is host memory. It exists to test kernel logic and
// the gpu Backend on machines without a GPU; it is slow and not a CUDA
// implementation (no warps, no concurrent blocks, no GPU memory model).
//
// Build with -tags cudaemu.
package emu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int (*agx_launcher)(unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, size_t, void**);
typedef agx_launcher (*agx_lookup_fn)(const char*);

static void* agx_dlopen(const char* path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static const char* agx_dlerror(void) { const char* e = dlerror(); return e ? e : "unknown dlopen error"; }

static void* agx_find(void* lib, const char* kernel) {
	agx_lookup_fn f = (agx_lookup_fn)dlsym(lib, "agx_emu_lookup");
	if (!f) return NULL;
	return (void*)f(kernel);
}

static int agx_launch(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                      size_t shmem, uint64_t* slots, int n) {
	void* args[64];
	if (n > 64) return 2;
	for (int i = 0; i < n; i++) args[i] = &slots[i];
	return ((agx_launcher)fn)(gx, gy, gz, bx, by, bz, shmem, args);
}

static uintptr_t agx_alloc(size_t n) { return (uintptr_t)calloc(1, n); }
static void agx_free(uintptr_t p) { free((void*)p); }
static void agx_to_dev(uintptr_t dst, const void* src, size_t n) { memcpy((void*)dst, src, n); }
static void agx_from_dev(void* dst, uintptr_t src, size_t n) { memcpy(dst, (const void*)src, n); }
static void agx_dev_to_dev(uintptr_t dst, uintptr_t src, size_t n) { memmove((void*)dst, (const void*)src, n); }
*/
import "C"

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unsafe"

	"github.com/goagx/agx/gpu"
	"github.com/goagx/agx/gpu/kernels"
	"github.com/goagx/agx/tensor"
)

//go:embed cuda_emu.h
var header string

// Flags are the compiler flags for emulated modules (CXX, default g++, compiles).
var Flags = []string{"-std=c++17", "-O1", "-g", "-fPIC", "-shared", "-fvisibility=hidden", "-pthread", "-DAGX_EMU"}

// Driver is the emulator's gpu.Driver.
type Driver struct {
	mu      sync.Mutex
	builtin *module // for Gemm
}

type module struct {
	name string
	lib  unsafe.Pointer
	fns  map[string]unsafe.Pointer
}

// New returns an emulator driver.
func New() *Driver { return &Driver{} }

// NewBackend returns the gpu Backend running on a new emulator, named "cuda-emu".
func NewBackend() (*gpu.Backend, error) {
	return gpu.NewBackend("cuda-emu", func() (gpu.Driver, error) { return New(), nil })
}

// Name is "cuda-emu".
func (d *Driver) Name() string { return "cuda-emu" }

// Bind does nothing: emulated device memory is host memory, on every thread.
func (d *Driver) Bind() error { return nil }

// Alloc returns zeroed host memory standing for device memory.
func (d *Driver) Alloc(bytes int) (gpu.Ptr, error) {
	p := C.agx_alloc(C.size_t(max(bytes, 1)))
	if p == 0 {
		return 0, fmt.Errorf("emu: out of memory allocating %d bytes", bytes)
	}
	return gpu.Ptr(p), nil
}

// Free releases memory from Alloc.
func (d *Driver) Free(p gpu.Ptr) error {
	C.agx_free(C.uintptr_t(p))
	return nil
}

// CopyHtoD copies host memory to the device.
func (d *Driver) CopyHtoD(dst gpu.Ptr, src unsafe.Pointer, bytes int) error {
	C.agx_to_dev(C.uintptr_t(dst), src, C.size_t(bytes))
	return nil
}

// CopyDtoH copies device memory to the host.
func (d *Driver) CopyDtoH(dst unsafe.Pointer, src gpu.Ptr, bytes int) error {
	C.agx_from_dev(dst, C.uintptr_t(src), C.size_t(bytes))
	return nil
}

// CopyDtoD copies between device buffers.
func (d *Driver) CopyDtoD(dst, src gpu.Ptr, bytes int) error {
	C.agx_dev_to_dev(C.uintptr_t(dst), C.uintptr_t(src), C.size_t(bytes))
	return nil
}

// Synchronize does nothing: emulated launches are synchronous.
func (d *Driver) Synchronize() error { return nil }

// kernelDecl matches the kernels a source defines by name (not those a macro
// pastes together, which register themselves with AGX_EXPORT).
var kernelDecl = regexp.MustCompile(`extern\s+"C"\s+__global__\s+void\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// LoadModule compiles source as C++ under cuda_emu.h (cached by content in the
// user cache directory) and loads it. Every kernel declared
// `extern "C" __global__ void name(` is launchable, as are those registered with
// AGX_EXPORT and the names in kernelNames.
func (d *Driver) LoadModule(name, source string, kernelNames []string) (gpu.Module, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var b strings.Builder
	b.WriteString(source)
	b.WriteString("\n")
	seen := map[string]bool{}
	for _, m := range kernelDecl.FindAllStringSubmatch(source, -1) {
		kernelNames = append(kernelNames, m[1])
	}
	for _, k := range kernelNames {
		if !seen[k] {
			seen[k] = true
			fmt.Fprintf(&b, "AGX_EMU_EXPORT(%s)\n", k)
		}
	}
	src := b.String()
	so, err := compile(src)
	if err != nil {
		return nil, fmt.Errorf("emu: module %s: %w", name, err)
	}
	cpath := C.CString(so)
	defer C.free(unsafe.Pointer(cpath))
	lib := C.agx_dlopen(cpath)
	if lib == nil {
		return nil, fmt.Errorf("emu: module %s: %s", name, C.GoString(C.agx_dlerror()))
	}
	m := &module{name: name, lib: lib, fns: map[string]unsafe.Pointer{}}
	if d.builtin == nil && name == "agx" {
		d.builtin = m
	}
	return m, nil
}

func compile(src string) (string, error) {
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "g++"
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", cxx, strings.Join(Flags, " "), header, src)
	key := hex.EncodeToString(h.Sum(nil))[:24]
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "agx-cuda-emu")
	so := filepath.Join(dir, key+".so")
	if _, err := os.Stat(so); err == nil {
		return so, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "cuda_emu.h"), []byte(header), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(work, "module.cu"), []byte(src), 0o644); err != nil {
		return "", err
	}
	tmp := filepath.Join(work, "module.so")
	args := append(append([]string{}, Flags...), "-include", "cuda_emu.h", "-x", "c++", "module.cu", "-o", tmp)
	cmd := exec.Command(cxx, args...)
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling with %s: %v\n%s", cxx, err, out)
	}
	// Rename into place so a concurrent compile never sees a partial file.
	if err := os.Rename(tmp, so); err != nil {
		return "", err
	}
	return so, nil
}

// Launch runs a kernel of m on the emulator and returns when it has finished.
func (d *Driver) Launch(mod gpu.Module, kernel string, grid, block gpu.Dim3, sharedBytes int, args []uint64) error {
	m, ok := mod.(*module)
	if !ok {
		return fmt.Errorf("emu: Launch: module %T is not an emulator module", mod)
	}
	d.mu.Lock()
	fn := m.fns[kernel]
	if fn == nil {
		ck := C.CString(kernel)
		fn = C.agx_find(m.lib, ck)
		C.free(unsafe.Pointer(ck))
		if fn == nil {
			d.mu.Unlock()
			return fmt.Errorf("emu: module %s has no kernel %q (kernels must be extern \"C\" and exported)", m.name, kernel)
		}
		m.fns[kernel] = fn
	}
	d.mu.Unlock()
	g, b := grid.Norm(), block.Norm()
	slots := (*C.uint64_t)(C.malloc(C.size_t(max(len(args), 1) * 8)))
	defer C.free(unsafe.Pointer(slots))
	copy(unsafe.Slice((*uint64)(unsafe.Pointer(slots)), max(len(args), 1)), args)
	rc := C.agx_launch(fn, C.uint(g.X), C.uint(g.Y), C.uint(g.Z), C.uint(b.X), C.uint(b.Y), C.uint(b.Z),
		C.size_t(sharedBytes), slots, C.int(len(args)))
	if rc != 0 {
		return fmt.Errorf("emu: launch of %s failed (invalid configuration grid %v block %v)", kernel, g, b)
	}
	return nil
}

// Gemm runs the gemm_<dtype> kernel of the built-in module.
func (d *Driver) Gemm(dt tensor.DType, m, n, k int, a, b, c gpu.Ptr) error {
	if d.builtin == nil {
		if _, err := d.LoadModule("agx", kernels.Source(), nil); err != nil {
			return err
		}
	}
	name := map[tensor.DType]string{tensor.Float32: "gemm_f32", tensor.Float64: "gemm_f64"}[dt]
	if name == "" {
		return fmt.Errorf("emu: Gemm: dtype %v", dt)
	}
	const tile = 16 // AGX_TILE in matmul.cu
	return d.Launch(d.builtin, name, gpu.Dim3{X: (n + tile - 1) / tile, Y: (m + tile - 1) / tile}, gpu.Dim3{X: tile, Y: tile}, 0,
		gpu.Args(m, n, k, a, b, c))
}

var _ gpu.Driver = (*Driver)(nil)
