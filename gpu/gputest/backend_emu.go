//go:build cudaemu

package gputest

import (
	"github.com/goagx/agx/gpu"
	"github.com/goagx/agx/gpu/emu"
)

// open returns the emulated GPU: the kernels compiled for the host.
func open() (*gpu.Backend, error) { return emu.NewBackend() }

// Emulated reports that Backend is the emulator: tests size their work to it
// (a launch runs one OS thread per CUDA thread of a block).
const Emulated = true
