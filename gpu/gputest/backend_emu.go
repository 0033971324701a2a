//go:build cudaemu

package gputest

import (
	"github.com/goagx/agx/gpu"
	"github.com/goagx/agx/gpu/emu"
)

// open returns the emulated GPU: the kernels compiled for the host.
func open() (*gpu.Backend, error) { return emu.NewBackend() }
