package gemm

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestISAEnv runs this test binary with AGX_GEMM_ISA set and checks which
// kernels it picks (the variable is read at start-up).
func TestISAEnv(t *testing.T) {
	if os.Getenv("AGX_GEMM_ISA_CHILD") == "1" {
		f32, f64 := Kernels()
		os.Stdout.WriteString("kernels " + f32 + " " + f64 + "\n")
		return
	}
	avx2 := "avx2-6x16 avx2-6x8"
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		avx2 = "go-4x4 go-4x4"
	}
	for _, c := range []struct{ isa, want string }{
		{"avx2", avx2},
		{"go", "go-4x4 go-4x4"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestISAEnv$")
		cmd.Env = append(os.Environ(), "AGX_GEMM_ISA="+c.isa, "AGX_GEMM_ISA_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("AGX_GEMM_ISA=%s: %v\n%s", c.isa, err, out)
		}
		if !strings.Contains(string(out), "kernels "+c.want+"\n") {
			t.Errorf("AGX_GEMM_ISA=%s: got %q, want kernels %s", c.isa, out, c.want)
		}
	}
}
