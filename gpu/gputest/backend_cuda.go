//go:build cuda && !cudaemu

package gputest

import (
	"testing"

	"github.com/goagx/agx/gpu"
)

// Backend is the GPU (device 0). A binary built with -tags cuda does not
// start without one, so failing to open it is an error, not a reason to skip.
func Backend(tb testing.TB) *gpu.Backend {
	tb.Helper()
	be, err := gpu.New()
	if err != nil {
		tb.Fatal(err)
	}
	return be
}
