//go:build cudaemu

package emu_test

import (
	"testing"

	"github.com/goagx/agx/gpu/emu"
	"github.com/goagx/agx/tensor/tensortest"
)

// The whole gpu Backend, with its CUDA kernels compiled for the host, against
// the conformance suite every backend passes.
func TestConformance(t *testing.T) {
	be, err := emu.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	tensortest.RunAll(t, be)
}
