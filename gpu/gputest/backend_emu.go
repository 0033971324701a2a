//go:build cudaemu

package gputest

import (
	"testing"

	"github.com/goagx/agx/gpu"
	"github.com/goagx/agx/gpu/emu"
)

// Backend is the emulated GPU: the kernels compiled for the host.
func Backend(tb testing.TB) *gpu.Backend {
	tb.Helper()
	be, err := emu.NewBackend()
	if err != nil {
		tb.Fatal(err)
	}
	return be
}
