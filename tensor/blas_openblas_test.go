//go:build openblas

package tensor

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/goagx/agx/tensor/internal/openblas"
)

// The openblas build must route MatMul through OpenBLAS and agree with the
// plain-loop product for every layout matmulT hands to GEMM.
func TestOpenBLASMatMul(t *testing.T) {
	if !strings.Contains(BLAS(), "OpenBLAS") {
		t.Fatalf("BLAS() = %q in an openblas build", BLAS())
	}
	if n := openblas.Threads(); !strings.Contains(BLAS(), fmt.Sprintf(", %d thread", n)) {
		t.Errorf("BLAS() = %q does not give OpenBLAS's %d threads", BLAS(), n)
	}
	if want := os.Getenv("AGX_TEST_OPENBLAS_KERNELS"); want != "" && !strings.Contains(BLAS(), want) {
		t.Errorf("BLAS() = %q, want it to name %q", BLAS(), want)
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
			{"large", 130, 257, 67, false, false},
			{"large_a_transposed", 257, 129, 100, true, false},
			{"large_b_transposed", 96, 300, 131, false, true},
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

// TestOpenBLASMatMul again in child processes, on OpenBLAS's AVX2 kernels
// (OPENBLAS_CORETYPE=Haswell) and on the kernels it picks for the CPU
// (OPENBLAS_CORETYPE unset), each of which BLAS() must name.
func TestOpenBLASKernels(t *testing.T) {
	if os.Getenv("AGX_TEST_OPENBLAS_KERNELS") != "" {
		t.Skip("in a child process")
	}
	for _, c := range []struct{ coretype, want string }{
		{"Haswell", "Haswell kernels (OPENBLAS_CORETYPE=Haswell)"},
		{"", " kernels"},
	} {
		t.Run("coretype="+c.coretype, func(t *testing.T) {
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "OPENBLAS_CORETYPE=") {
					env = append(env, kv)
				}
			}
			if c.coretype != "" {
				env = append(env, "OPENBLAS_CORETYPE="+c.coretype)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestOpenBLASMatMul$", "-test.v")
			cmd.Env = append(env, "AGX_TEST_OPENBLAS_KERNELS="+c.want)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestOpenBLASMatMul") {
				t.Fatalf("child: %v\n%s", err, out)
			}
		})
	}
}
