package tensor

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/goagx/agx/tensor/internal/gemm"
)

// TestUseFastGEMM checks that UseFastGEMM switches the BLAS behind MatMul and
// that both give the same products, for plain, transposed and batched
// operands (the fast GEMM also skips MatMul's copy of B into Bᵀ).
func TestUseFastGEMM(t *testing.T) {
	old32, old64 := blas32.Implementation(), blas64.Implementation()
	defer func() { blas32.Use(old32); blas64.Use(old64) }()

	g := NewGenerator(7)
	type pair struct {
		name string
		a, b func(DType) *Tensor
	}
	cases := []pair{
		{"square", func(dt DType) *Tensor { return g.Randn(dt, 33, 47) }, func(dt DType) *Tensor { return g.Randn(dt, 47, 29) }},
		{"bT", func(dt DType) *Tensor { return g.Randn(dt, 70, 64) }, func(dt DType) *Tensor { return g.Randn(dt, 31, 64).T() }},
		{"aT", func(dt DType) *Tensor { return g.Randn(dt, 50, 17).T() }, func(dt DType) *Tensor { return g.Randn(dt, 50, 90) }},
		{"batched", func(dt DType) *Tensor { return g.Randn(dt, 2, 3, 20, 16) }, func(dt DType) *Tensor { return g.Randn(dt, 2, 3, 20, 16).MT() }},
		{"broadcast", func(dt DType) *Tensor { return g.Randn(dt, 4, 19, 8) }, func(dt DType) *Tensor { return g.Randn(dt, 8, 40) }},
		{"large", func(dt DType) *Tensor { return g.Randn(dt, 150, 300) }, func(dt DType) *Tensor { return g.Randn(dt, 300, 130) }},
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%v/%s", dt, c.name), func(t *testing.T) {
				a, b := c.a(dt), c.b(dt)
				UseFastGEMM(false)
				if _, ok := blas64.Implementation().(gonum.Implementation); !ok {
					t.Fatalf("UseFastGEMM(false) installed %T", blas64.Implementation())
				}
				want := MatMul(a, b).Float64s()
				UseFastGEMM(true)
				if _, ok := blas32.Implementation().(gemm.Implementation); !ok {
					t.Fatalf("UseFastGEMM(true) installed %T", blas32.Implementation())
				}
				got := MatMul(a, b).Float64s()
				tol := 1e-10
				if dt == Float32 {
					tol = 1e-4
				}
				for i := range want {
					if d := math.Abs(got[i] - want[i]); d > tol*(1+math.Abs(want[i])) {
						t.Fatalf("element %d: fast GEMM %v, gonum %v", i, got[i], want[i])
					}
				}
			})
		}
	}
}
