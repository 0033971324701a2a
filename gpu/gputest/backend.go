//go:build cuda || cudaemu

package gputest

import (
	"testing"

	"github.com/goagx/agx/gpu"
)

// Backend is the backend the build tags select (see open). A test binary built
// with -tags cuda does not start without a GPU, so failing to open it is an
// error, not a reason to skip.
func Backend(tb testing.TB) *gpu.Backend {
	tb.Helper()
	be, err := open()
	if err != nil {
		tb.Fatal(err)
	}
	return be
}
