package agx

import (
	"errors"
	"testing"

	"github.com/goagx/agx/tensor"
)

// A size beyond the allocation limit is an error Try returns, not the end of
// the process.
func TestTryAllocLimit(t *testing.T) {
	for _, dt := range []DType{tensor.Float32, tensor.Float64, tensor.Int64, tensor.Bool} {
		t.Run(dt.String(), func(t *testing.T) {
			err := Try(func() { Zeros(dt, 1<<40, 1<<20) })
			if !errors.Is(err, tensor.ErrAlloc) {
				t.Fatalf("got %v, want ErrAlloc", err)
			}
			err = Try(func() { Zeros(dt, 1<<62, 4) })
			if !errors.Is(err, tensor.ErrShape) {
				t.Fatalf("got %v, want ErrShape", err)
			}
		})
	}
}
