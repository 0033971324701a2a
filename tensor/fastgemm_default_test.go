//go:build !openblas

package tensor

import (
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/goagx/agx/tensor/internal/gemm"
)

// TestDefaultGEMM checks that the default build installs agx's GEMM.
func TestDefaultGEMM(t *testing.T) {
	for _, c := range []struct {
		name string
		impl any
	}{{"float32", blas32.Implementation()}, {"float64", blas64.Implementation()}} {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := c.impl.(gemm.Implementation); !ok {
				t.Errorf("installed BLAS is %T, want gemm.Implementation", c.impl)
			}
		})
	}
}
