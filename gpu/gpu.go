// Package gpu is agx's CUDA device backend: a tensor.Backend whose primitives
// run as CUDA kernels (.cu sources in gpu/kernels, compiled at run time with
// NVRTC) and cuBLAS GEMM, on gorgonia.org/cu.
//
// The CUDA code is behind the build tag cuda. Without it the package still
// builds, Available reports "built without CUDA", and Probe tells start-up
// scripts whether the machine has an NVIDIA GPU without linking the CUDA
// libraries (a binary that links gorgonia.org/cu exits at start-up on a
// machine without a GPU).
//
// The Backend is written against the small Driver interface. Besides the CUDA
// driver there is a host emulator (package gpu/emu, build tag cudaemu) that
// compiles the same kernel sources as C++ and runs one OS thread per CUDA
// thread, so the whole backend passes the tensor conformance suite on a
// machine without a GPU.
package gpu

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNoCUDA is returned by Available and New in a build without the cuda tag.
var ErrNoCUDA = errors.New("gpu: built without CUDA (rebuild with -tags cuda on a machine with the CUDA toolkit)")

// ProbeResult describes what Probe found.
type ProbeResult struct {
	// Found reports an NVIDIA GPU with a loaded driver.
	Found bool
	// Driver is the kernel driver's version line, when readable.
	Driver string
	// GPUs lists the GPU names nvidia-smi reported, when it is installed.
	GPUs []string
	// Reason explains a negative result.
	Reason string
}

func (p ProbeResult) String() string {
	if !p.Found {
		return "no NVIDIA GPU: " + p.Reason
	}
	s := "NVIDIA GPU found"
	if len(p.GPUs) > 0 {
		s += ": " + strings.Join(p.GPUs, ", ")
	}
	if p.Driver != "" {
		s += " (" + p.Driver + ")"
	}
	return s
}

// Probe looks for an NVIDIA GPU the way a start-up script would: the driver's
// /proc entry, the device nodes and nvidia-smi. It never loads CUDA, so it is
// safe in any build.
func Probe() ProbeResult {
	var r ProbeResult
	if b, err := os.ReadFile("/proc/driver/nvidia/version"); err == nil {
		r.Driver = strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	}
	_, devErr := os.Stat("/dev/nvidia0")
	if path, err := exec.LookPath("nvidia-smi"); err == nil {
		out, err := exec.Command(path, "--query-gpu=name", "--format=csv,noheader").Output()
		if err == nil {
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if l = strings.TrimSpace(l); l != "" {
					r.GPUs = append(r.GPUs, l)
				}
			}
		}
	}
	switch {
	case len(r.GPUs) > 0 || (devErr == nil && r.Driver != ""):
		r.Found = true
	case r.Driver == "":
		r.Reason = "the NVIDIA kernel driver is not loaded (/proc/driver/nvidia/version is missing)"
	default:
		r.Reason = fmt.Sprintf("no device node /dev/nvidia0 (%v)", devErr)
	}
	return r
}
