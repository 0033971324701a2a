//go:build cuda || cudaemu

package gpu_test

import (
	"testing"

	"github.com/goagx/agx/gpu/gputest"
	"github.com/goagx/agx/tensor/tensortest"
)

// The whole gpu Backend against the conformance suite every backend passes:
// on the GPU with -tags cuda, on the emulator (the same kernels compiled for
// the host) with -tags cudaemu.
func TestConformance(t *testing.T) {
	tensortest.RunAll(t, gputest.Backend(t))
}
