//go:build cudaemu

package cudafn_test

import (
	"testing"

	"github.com/goagx/agx/gpu"
	"github.com/goagx/agx/gpu/emu"
)

// backend is the emulated GPU: the kernels compiled for the host.
func backend(t testing.TB) *gpu.Backend {
	t.Helper()
	be, err := emu.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	return be
}
