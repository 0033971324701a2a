package vmath

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestNoFusedMultiplyAdd compiles this package for two targets whose
// compilers fuse a product into the next addition unless a conversion
// forbids it (arm64, and amd64 at GOAMD64=v3) and fails on any fused
// multiply-add in the listing: the Go kernels must round every product, as
// the assembly kernels do, to give the same bits on every CPU. (An erf64
// and a cos step once fused on arm64: a product assigned to a variable is
// not rounded by the assignment.)
func TestNoFusedMultiplyAdd(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Fatalf("the go tool is needed to compile the listings: %v", err)
	}
	fused := regexp.MustCompile(`\t(V?F[N]?M(ADD|SUB)[A-Z0-9]*)\t`)
	for _, env := range [][]string{{"GOARCH=arm64"}, {"GOARCH=amd64", "GOAMD64=v3"}} {
		cmd := exec.Command(goTool, "build", "-gcflags=-S", "-o", os.DevNull, ".")
		cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v go build -gcflags=-S: %v\n%s", env, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if fused.MatchString(line) {
				t.Errorf("%v: a fused multiply-add: %s", env, line)
			}
		}
	}
}
