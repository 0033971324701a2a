package gotool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goagx/agx/internal/lazyre"
	"github.com/goagx/agx/internal/sandbox"
)

// The kernel runs without network (package sandbox), so every Go module that its
// scratch module needs must already be in the module cache. GoNB writes each
// cell into main.go of a scratch module, runs goimports and `go get` (which
// resolves the whole module graph and writes go.sum), then builds.
// kernel-bin/go makes that module require the agx module and replace it with
// the checkout. The module cache that `go test ./...` leaves behind is not
// enough: building agx's packages needs only the zips of the modules that
// provide them, but the scratch module's `go get` also reads go.mod files
// further down the graph (modules without graph pruning pull in all of
// theirs). Grade therefore resolves such a scratch module before it grades
// anyone: offline first, as the kernel will; with the network when that
// fails; then offline again, to prove that the kernel can.

// gonbPackages are the GoNB packages a notebook may import besides agx's:
// gonbui and the packages on top of it that need no module beyond GoNB's
// own (agx/nb imports gonbui; gonbui/plotly needs go-plotly, which agx does
// not require, so it is left out).
var gonbPackages = []string{
	"github.com/janpfeifer/gonb/gonbui",
	"github.com/janpfeifer/gonb/gonbui/comms",
	"github.com/janpfeifer/gonb/gonbui/dom",
	"github.com/janpfeifer/gonb/gonbui/protocol",
	"github.com/janpfeifer/gonb/gonbui/widgets",
}

// ModulesError means that the module cache cannot serve the kernel and the
// missing modules could not be fetched: nobody can be graded.
type ModulesError struct {
	Missing  string // the module the offline resolution stopped at, as go printed it
	Cache    string // GOMODCACHE
	Proxy    string // GOPROXY used for the fetch
	Offline  string // the offline resolution's error
	Fetch    string // the fetch's error; "" when the fetch worked but offline still fails
	Checkout string // the agx checkout of the kernel
}

func (e *ModulesError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the Go module cache %s cannot serve the kernel, which runs without network: it lacks %s, needed by the kernel's scratch module (agx's packages from %s and GoNB's gonbui).\n",
		e.Cache, e.Missing, e.Checkout)
	if e.Fetch != "" {
		fmt.Fprintf(&b, "Fetching it with GOPROXY=%s failed:\n%s\n", e.Proxy, indent(e.Fetch))
	} else {
		fmt.Fprintf(&b, "It was fetched, but the offline resolution still fails:\n%s\n", indent(e.Offline))
	}
	b.WriteString("Nobody was graded. Fix: run agx autograde once where the Go module proxy is reachable " +
		"(it fetches what is missing; later runs need no network), or run `make deps` (docker/scripts/install-kernel.sh) with network; then grade again.")
	return b.String()
}

// indent indents the go command's output s, without its progress lines,
// cut to a few lines.
func indent(s string) string {
	var lines []string
	for l := range strings.Lines(strings.TrimSpace(s)) {
		if !strings.HasPrefix(l, "go: downloading ") {
			lines = append(lines, strings.TrimRight(l, "\n"))
		}
	}
	if len(lines) > 8 {
		lines = append(lines[:3], append([]string{"…"}, lines[len(lines)-4:]...)...)
	}
	return "    " + strings.Join(lines, "\n    ")
}

// moduleProbe resolves a scratch module made as the kernel makes it.
type moduleProbe struct {
	goBin    string
	root     string   // the agx checkout (AGX_ROOT)
	module   string   // its module path
	env      []string // the environment of the kernel's go commands
	packages []string // what the scratch main.go imports
}

// newModuleProbe returns the probe for an agx kernelspec, or nil for a
// kernel that is not agx's (no AGX_ROOT with a go.mod), whose needs are not
// known.
func newModuleProbe(spec sandbox.KernelSpec) (*moduleProbe, error) {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for k, v := range spec.Env {
		env[k] = v
	}
	root := env["AGX_ROOT"]
	if root == "" && filepath.Base(spec.Argv[0]) == "agx-kernel" {
		root = filepath.Join(filepath.Dir(spec.Argv[0]), "..", "..") // as agx-kernel works it out
	}
	if root == "" {
		return nil, nil
	}
	module, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, nil
	}
	goBin := env["AGX_GO"]
	if goBin == "" {
		if goBin, err = exec.LookPath("go"); err != nil {
			return nil, errors.New("checking the Go module cache for the kernel: no go on PATH (set AGX_GO in the kernelspec)")
		}
	}
	// The build tags agx-kernel adds (AGX_CUDA, AGX_OPENBLAS) decide which
	// files, and so which modules, the packages use.
	var tags []string
	if env["AGX_CUDA"] == "1" {
		tags = append(tags, "cuda")
	}
	if env["AGX_OPENBLAS"] == "1" {
		tags = append(tags, "openblas")
	}
	if len(tags) > 0 {
		env["GOFLAGS"] = strings.TrimSpace(env["GOFLAGS"] + " -tags=" + strings.Join(tags, ","))
	}
	env["GOWORK"] = "off"
	pkgs, err := importablePackages(root, module, tags)
	if err != nil {
		return nil, err
	}
	p := &moduleProbe{goBin: goBin, root: root, module: module, packages: append(pkgs, gonbPackages...)}
	for k, v := range env {
		p.env = append(p.env, k+"="+v)
	}
	slices.Sort(p.env)
	return p, nil
}

// modulePath reads the module line of a go.mod file.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", fmt.Errorf("%s has no module line", gomod)
}

// importablePackages lists the packages of the module at root that another
// module can import: not main, not internal, not in testdata or a nested
// module.
func importablePackages(root, module string, tags []string) ([]string, error) {
	bctx := build.Default
	bctx.BuildTags = tags
	var pkgs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root {
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "internal" || name == "vendor" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		p, err := bctx.ImportDir(path, 0)
		if err != nil || p.Name == "main" {
			return nil // no Go files for these tags, or a command
		}
		rel, _ := filepath.Rel(root, path)
		if rel == "." {
			pkgs = append(pkgs, module)
		} else {
			pkgs = append(pkgs, module+"/"+filepath.ToSlash(rel))
		}
		return nil
	})
	return pkgs, err
}

// offlineEnv is how the sandbox runs the go command (offlineGoEnv).
var offlineEnv = []string{"GOPROXY=off", "GOSUMDB=off"}

// resolve makes a scratch module as kernel-bin/go does, with a main.go that
// imports every package in p.packages, and runs GoNB's `go get` in it, then
// lists the packages' dependencies (which needs their sources). With
// offline, the go command may not use the network, as in the sandbox. It
// returns the go command's output on failure.
func (p *moduleProbe) resolve(ctx context.Context, offline bool) error {
	dir, err := os.MkdirTemp("", "agx-modules-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env := p.env
	if offline {
		env = append(slices.Clone(env), offlineEnv...)
	}
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, p.goBin, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	var src strings.Builder
	src.WriteString("package main\n\nimport (\n")
	for _, pkg := range p.packages {
		fmt.Fprintf(&src, "\t_ %q\n", pkg)
	}
	src.WriteString(")\n\nfunc main() {}\n")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src.String()), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"mod", "init", "gonb_agxmodules"},
		{"mod", "edit", "-require=" + p.module + "@v0.0.0", "-replace=" + p.module + "=" + p.root},
		{"get"},
		{"list", "-deps", "."},
	} {
		if err := run(args...); err != nil {
			return err
		}
	}
	return nil
}

// goEnv returns one go env value in the kernel's environment.
func (p *moduleProbe) goEnv(ctx context.Context, key string) string {
	cmd := exec.CommandContext(ctx, p.goBin, "env", key)
	cmd.Env = p.env
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

// ensure makes sure the kernel can resolve its scratch module offline,
// fetching what is missing with the network when it cannot.
func (p *moduleProbe) ensure(ctx context.Context, logf func(string, ...any)) error {
	offErr := p.resolve(ctx, true)
	if offErr == nil || ctx.Err() != nil {
		return ctx.Err()
	}
	missing := missingModule(offErr.Error())
	logf("the Go module cache lacks %s (and maybe more) that the kernel needs; fetching the kernel's modules", missing)
	fetchErr := p.resolve(ctx, false)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if fetchErr == nil {
		if offErr = p.resolve(ctx, true); offErr == nil {
			logf("fetched; the module cache now serves the kernel offline")
			return nil
		}
		missing = missingModule(offErr.Error())
	}
	e := &ModulesError{Missing: missing, Cache: p.goEnv(ctx, "GOMODCACHE"), Proxy: p.goEnv(ctx, "GOPROXY"),
		Offline: offErr.Error(), Checkout: p.root}
	if fetchErr != nil {
		e.Fetch = fetchErr.Error()
	}
	return e
}

var (
	lookupDisabled = lazyre.New(`(?m)^\s*(\S+): module lookup disabled`)
	anyModule      = lazyre.New(`(\S+@v[^\s:]+)`)
)

// missingModule picks the module that an offline resolution lacked out of
// the go command's output: go names a module (path@version) or a package
// whose module it could not look up.
func missingModule(out string) string {
	if m := lookupDisabled().FindStringSubmatch(out); m != nil {
		if strings.Contains(m[1], "@") {
			return m[1]
		}
		return "the module providing package " + m[1]
	}
	if m := anyModule().FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return "a module (" + firstLine(out) + ")"
}

// EnsureKernelModules runs the probe for the kernelspec named kernel, when
// it is an agx kernel. A kernelspec that cannot be read is left for
// sandbox.New to report.
func EnsureKernelModules(ctx context.Context, python, kernel string, logf func(string, ...any)) error {
	spec, err := sandbox.ReadKernelSpec(ctx, python, kernel)
	if err != nil {
		return nil
	}
	p, err := newModuleProbe(spec)
	if err != nil || p == nil {
		return err
	}
	return p.ensure(ctx, logf)
}
