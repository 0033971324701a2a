//go:build cuda && !cudaemu

package cudafn_test

import (
	"testing"

	"github.com/goagx/agx/gpu"
)

// backend is the GPU. A binary built with -tags cuda does not start without
// one, so failing to open it is an error, not a reason to skip.
func backend(t testing.TB) *gpu.Backend {
	t.Helper()
	be, err := gpu.New()
	if err != nil {
		t.Fatal(err)
	}
	return be
}
