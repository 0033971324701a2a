package gemm

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestISAEnv runs this test binary with AGX_GEMM_ISA set and checks which
// kernels and packing it picks (the variable is read at start-up).
func TestISAEnv(t *testing.T) {
	if os.Getenv("AGX_GEMM_ISA_CHILD") == "1" {
		f32, f64 := Kernels()
		os.Stdout.WriteString("kernels " + f32 + " " + f64 + " " + asmPack.String() + "\n")
		return
	}
	avx2 := "avx2-6x16 avx2-6x8 avx2pack"
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		avx2 = "go-4x4 go-4x4 gopack"
	}
	for _, c := range []struct{ isa, want string }{
		{"avx2", avx2},
		{"go", "go-4x4 go-4x4 gopack"},
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

// TestPackAVX2Takes checks that the AVX2 packing takes the panels of the
// AVX2 kernels (A: 6 rows, strided or not; B: two vectors of columns), so
// that TestPack compares assembly there and not the Go code with itself.
func TestPackAVX2Takes(t *testing.T) {
	if !slices.Contains(packings(), packAVX2) {
		t.Skip("no AVX2 on this CPU")
	}
	for _, w := range []int{kernelsF32[1].mr, kernelsF32[1].nr} {
		src, dst := make([]float32, 64*w), make([]float32, 64*w)
		if !packStridedAVX2(dst, src, 64, w, w, 64, 1) || !packContigAVX2(dst, src, w, w, w, 64, 1) {
			t.Errorf("float32: the AVX2 packing does not take panels %d wide", w)
		}
	}
	for _, w := range []int{kernelsF64[1].mr, kernelsF64[1].nr} {
		src, dst := make([]float64, 64*w), make([]float64, 64*w)
		if !packStridedAVX2(dst, src, 64, w, w, 64, 1) || !packContigAVX2(dst, src, w, w, w, 64, 1) {
			t.Errorf("float64: the AVX2 packing does not take panels %d wide", w)
		}
	}
}
