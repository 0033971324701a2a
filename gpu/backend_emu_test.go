//go:build cudaemu

package gpu_test

import (
	"testing"

	"github.com/goagx/agx/gpu"
	"github.com/goagx/agx/gpu/emu"
)

// testBackend is the emulated GPU: the kernels compiled for the host.
func testBackend(tb testing.TB) *gpu.Backend {
	tb.Helper()
	be, err := emu.NewBackend()
	if err != nil {
		tb.Fatal(err)
	}
	return be
}
