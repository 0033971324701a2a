package vmath

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestNoFusedMultiplyAdd compiles this package for two targets whose
// compilers fuse a product into the next addition unless a conversion
// forbids it (arm64, and amd64 at GOAMD64=v3) and fails on any fused
// multiply-add in the listing but those of math.FMA calls: the Go kernels
// must round every other product, as the assembly kernels do, to give the
// same bits on every CPU. (An erf64 and a cos step once fused on arm64: a
// product assigned to a variable is not rounded by the assignment.)
func TestNoFusedMultiplyAdd(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Fatalf("the go tool is needed to compile the listings: %v", err)
	}
	fused := regexp.MustCompile(`\t(V?F[N]?M(ADD|SUB)[A-Z0-9]*)\t`)
	at := regexp.MustCompile(`\(([^()]*\.go):(\d+)\)`)
	explicit := func(line string) bool { // the source line calls math.FMA
		m := at.FindStringSubmatch(line)
		if m == nil {
			return false
		}
		src, err := os.ReadFile(m[1])
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(m[2])
		lines := strings.Split(string(src), "\n")
		return n >= 1 && n <= len(lines) && strings.Contains(lines[n-1], "math.FMA(")
	}
	for _, env := range [][]string{{"GOARCH=arm64"}, {"GOARCH=amd64", "GOAMD64=v3"}} {
		cmd := exec.Command(goTool, "build", "-gcflags=-S", "-o", os.DevNull, ".")
		cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v go build -gcflags=-S: %v\n%s", env, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if fused.MatchString(line) && !explicit(line) {
				t.Errorf("%v: a fused multiply-add: %s", env, line)
			}
		}
	}
}
