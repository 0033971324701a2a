//go:build cuda && !cudaemu

package gputest

import "github.com/goagx/agx/gpu"

// open returns the GPU (device 0).
func open() (*gpu.Backend, error) { return gpu.New() }

// Emulated reports that Backend is the emulator; with -tags cuda it is the GPU.
const Emulated = false
