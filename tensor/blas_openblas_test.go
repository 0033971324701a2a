//go:build openblas

package tensor

import (
	"math"
	"strings"
	"testing"
)

// The openblas build must route MatMul through OpenBLAS and agree with the
// plain-loop product for every layout matmulT hands to GEMM.
func TestOpenBLASMatMul(t *testing.T) {
	if !strings.Contains(BLAS(), "OpenBLAS") {
		t.Fatalf("BLAS() = %q in an openblas build", BLAS())
	}
	g := NewGenerator(11)
	for _, dt := range []DType{Float32, Float64} {
		tol := 1e-4
		if dt == Float64 {
			tol = 1e-12
		}
		for _, c := range []struct {
			name    string
			m, k, n int
			transA  bool
			transB  bool
		}{
			{"square", 64, 64, 64, false, false},
			{"rect", 33, 70, 17, false, false},
			{"a_transposed", 40, 24, 31, true, false},
			{"b_transposed", 40, 24, 31, false, true},
			{"both_transposed", 19, 50, 23, true, true},
		} {
			t.Run(dt.String()+"/"+c.name, func(t *testing.T) {
				a := g.Randn(dt, c.m, c.k)
				b := g.Randn(dt, c.k, c.n)
				if c.transA {
					a = g.Randn(dt, c.k, c.m).T()
				}
				if c.transB {
					b = g.Randn(dt, c.n, c.k).T()
				}
				got := MatMul(a, b).Float64s()
				want, _ := naiveMatMul(a.Contiguous().Float64s(), a.Shape(), b.Contiguous().Float64s(), b.Shape())
				for i := range want {
					if d := math.Abs(got[i] - want[i]); d > tol*(1+math.Abs(want[i])) {
						t.Fatalf("element %d: got %v, want %v", i, got[i], want[i])
					}
				}
			})
		}
	}
}
