package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestModuleView: the kernel's copy of the checkout holds what builds the
// module's packages and the kernel's scripts, and no instructor material.
func TestModuleView(t *testing.T) {
	root, dst := t.TempDir(), filepath.Join(t.TempDir(), "view")
	files := map[string]bool{ // path -> in the view
		"go.mod":                                true,
		"go.sum":                                true,
		"agx/tensor.go":                         true,
		"agx/nb/nb.go":                          true,
		"gpu/kernels/k.cu":                      true,
		"gpu/kernels/agx_cuda.h":                true,
		"internal/jupyter/driver.py":            true,
		"docker/scripts/agx-kernel":             true,
		"docker/scripts/kernel-bin/go":          true,
		"agx/tensor_test.go":                    false,
		"agx/testdata/golden.txt":               false,
		"internal/nbgrader/testdata/gelu.ipynb": false,
		"notebooks/01-function-basics.ipynb":    false,
		"notebooks/exercises/gelu.ipynb":        false,
		"notebooks/exercises/helper.go":         false,
		"docs/grading.md":                       false,
		".git/config":                           false,
		"_scratch/x.go":                         false,
		"README.md":                             false,
		"docker/Dockerfile":                     false,
		"docker/instructor-only":                false,
		"functions/square.go":                   true,
		"functions/solutions/gelu.go":           false,
		"bench/solution_workloads.go":           false,
		"bench/workloads.go":                    true,
	}
	for p := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(p), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	list := "# instructor-only\nnotebooks/exercises/\nfunctions/solutions/\nbench/solution_workloads.go\n"
	if err := os.WriteFile(filepath.Join(root, "docker/instructor-only"), []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := moduleView(root, dst, []string{filepath.Join(root, "docker/scripts")}); err != nil {
		t.Fatal(err)
	}
	for p, want := range files {
		st, err := os.Stat(filepath.Join(dst, p))
		if got := err == nil; got != want {
			t.Errorf("%s in the view: %v, want %v", p, got, want)
		}
		if err == nil && st.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("%s is not readable by all: %v", p, st.Mode())
		}
	}
	if err := moduleView(root, filepath.Join(t.TempDir(), "v"), []string{t.TempDir()}); err == nil {
		t.Error("a kept directory outside the checkout was accepted")
	}
}
