// Package kernels holds agx's CUDA C kernels as .cu sources. The CUDA backend
// compiles them at run time with NVRTC for the device it finds; the host
// emulator (package gpu/emu) compiles the same text as C++; and
// gpu/scripts/check-kernels.sh compiles them for sm_80 and sm_90 with nvcc or
// NVRTC where those are installed.
package kernels

import (
	"embed"
	"strings"
)

//go:embed agx_cuda.h *.cu
var files embed.FS

// Files lists the kernel sources in the order Source concatenates them.
var Files = []string{"elementwise.cu", "reduce.cu", "index.cu", "matmul.cu", "attention.cu"}

// Header is the shared header every kernel source starts with.
func Header() string { return read("agx_cuda.h") }

// Source returns the header followed by every kernel file: one translation unit,
// one module.
func Source() string {
	var b strings.Builder
	b.WriteString(Header())
	for _, f := range Files {
		b.WriteString("\n// ---- " + f + " ----\n")
		b.WriteString(read(f))
	}
	return b.String()
}

func read(name string) string {
	data, err := files.ReadFile(name)
	if err != nil {
		panic("kernels: missing embedded source " + name)
	}
	return string(data)
}
