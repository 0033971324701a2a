package gotool

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/sandbox"
)

func TestMissingModule(t *testing.T) {
	for _, tc := range []struct {
		name, out, want string
	}{
		{"lookup disabled", "go get: exit status 1\ngo: github.com/ajstarks/svgo@v0.0.0-2021: requires\n\tgithub.com/ajstarks/deck/generate@v0.0.0-2021: module lookup disabled by GOPROXY=off",
			"github.com/ajstarks/deck/generate@v0.0.0-2021"},
		{"package", "go: downloading github.com/janpfeifer/gonb v0.11.4\ngo: gonb_y imports\n\tgithub.com/janpfeifer/gonb/gonbui: module lookup disabled by GOPROXY=off\ngo: gonb_y imports\n\tgonum.org/v1/plot: module lookup disabled by GOPROXY=off",
			"the module providing package github.com/janpfeifer/gonb/gonbui"},
		{"other error", "go: gonum.org/v1/plot@v0.16.0: missing go.sum entry", "gonum.org/v1/plot@v0.16.0"},
		{"no module named", "go: something odd\nmore", "a module (go: something odd)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := missingModule(tc.out); got != tc.want {
				t.Errorf("missingModule = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNewModuleProbe: the probe finds the agx checkout of an agx kernelspec
// as agx-kernel does, takes its build tags, imports what a notebook can
// import, and leaves other kernels alone.
func TestNewModuleProbe(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "docker", "scripts", "agx-kernel")
	for _, tc := range []struct {
		name     string
		spec     sandbox.KernelSpec
		agx      bool     // a probe is made
		goflags  string   // substring of its GOFLAGS
		imports  []string // among its packages
		excludes []string // not among them
	}{
		{"kernelspec with AGX_ROOT", sandbox.KernelSpec{Argv: []string{"/elsewhere/agx-kernel", "{connection_file}"}, Env: map[string]string{"AGX_ROOT": root}}, true, "",
			[]string{"github.com/goagx/agx/agx", "github.com/goagx/agx/agx/nb", "github.com/goagx/agx/grade", "github.com/goagx/agx/tensor", "github.com/janpfeifer/gonb/gonbui"},
			[]string{"github.com/goagx/agx/cmd/agx", "github.com/goagx/agx/internal/autograde", "github.com/goagx/agx/tensor/internal/gemm"}},
		{"agx-kernel without AGX_ROOT", sandbox.KernelSpec{Argv: []string{script, "{connection_file}"}}, true, "",
			[]string{"github.com/goagx/agx/nn"}, nil},
		{"cuda", sandbox.KernelSpec{Argv: []string{script, "{connection_file}"}, Env: map[string]string{"AGX_CUDA": "1"}}, true, "-tags=cuda",
			[]string{"github.com/goagx/agx/gpu"}, nil},
		{"another kernel", sandbox.KernelSpec{Argv: []string{"/usr/bin/python3", "-m", "ipykernel_launcher"}}, false, "", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AGX_ROOT", "")
			t.Setenv("AGX_CUDA", "")
			p, err := newModuleProbe(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if (p != nil) != tc.agx {
				t.Fatalf("probe %+v, want one: %v", p, tc.agx)
			}
			if p == nil {
				return
			}
			if p.module != "github.com/goagx/agx" || filepath.Clean(p.root) != root {
				t.Errorf("module %q at %q, want github.com/goagx/agx at %q", p.module, p.root, root)
			}
			env := "\n" + strings.Join(p.env, "\n") + "\n"
			if !strings.Contains(env, "\nGOWORK=off\n") || tc.goflags != "" && !regexp.MustCompile(`\nGOFLAGS=.*`+tc.goflags).MatchString(env) {
				t.Errorf("environment lacks GOWORK=off or GOFLAGS with %q:\n%s", tc.goflags, env)
			}
			for _, pkg := range tc.imports {
				if !slices.Contains(p.packages, pkg) {
					t.Errorf("packages lack %s: %v", pkg, p.packages)
				}
			}
			for _, pkg := range tc.excludes {
				if slices.Contains(p.packages, pkg) {
					t.Errorf("packages hold %s, which a notebook cannot import", pkg)
				}
			}
		})
	}
}
