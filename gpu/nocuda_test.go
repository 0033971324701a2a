//go:build !cuda

package gpu_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/goagx/agx/gpu"
)

func TestWithoutCUDA(t *testing.T) {
	if err := gpu.Available(); !errors.Is(err, gpu.ErrNoCUDA) {
		t.Fatalf("Available() = %v, want ErrNoCUDA", err)
	}
	if be, err := gpu.New(); be != nil || !errors.Is(err, gpu.ErrNoCUDA) {
		t.Fatalf("New() = %v, %v, want nil, ErrNoCUDA", be, err)
	}
}

func ExampleAvailable() {
	if err := gpu.Available(); err != nil {
		fmt.Println("running on the CPU:", err)
	}
	// Output: running on the CPU: gpu: built without CUDA (rebuild with -tags cuda on a machine with the CUDA toolkit)
}
