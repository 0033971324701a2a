package arch

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/testenv"
)

const mod = "github.com/goagx/agx"

// A build is one set of build flags the project can build with.
type build struct {
	name  string
	flags []string
}

// tags is the build tags of b, the race detector's included.
func (b build) tags() []string {
	var tags []string
	for _, f := range b.flags {
		if f == "-race" {
			tags = append(tags, "race")
		}
		if t, ok := strings.CutPrefix(f, "-tags="); ok {
			tags = append(tags, strings.Split(t, ",")...)
		}
	}
	return tags
}

// projectTags are the build tags of the project: openblas (make openblas,
// the Docker image's cells), cuda (the CUDA image, make gpu-test), cudaemu
// (make gpu-test's host emulator), race (the race detector, set by -race)
// and agx_goid_stack (agx's portable goroutine id).
var projectTags = []string{"openblas", "cuda", "cudaemu", "race", "agx_goid_stack"}

// builds is every combination of projectTags, the default build (none)
// first.
var builds = func() []build {
	var bs []build
	for set := 0; set < 1<<len(projectTags); set++ {
		var tags, flags []string
		for i, tag := range projectTags {
			if set&(1<<i) == 0 {
				continue
			}
			tags = append(tags, tag)
			if tag == "race" {
				flags = append(flags, "-race")
			}
		}
		b := build{name: "default"}
		if len(tags) > 0 {
			b.name = strings.Join(tags, ",")
		}
		if t := slices.DeleteFunc(slices.Clone(tags), func(s string) bool { return s == "race" }); len(t) > 0 {
			flags = append(flags, "-tags="+strings.Join(t, ","))
		}
		b.flags = flags
		bs = append(bs, b)
	}
	return bs
}()

// A rule is about one package of the module, which must exist in every
// build. Its lists hold import paths and, as in go list, patterns p/... for
// p and the packages below it.
type rule struct {
	pkg string
	// notDeps: what pkg must not depend on, directly or indirectly;
	// except: what notDeps matches that pkg may depend on all the same.
	notDeps, except []string
	// onlyDeps, when set: the only packages of the module pkg may depend on
	// (besides itself).
	onlyDeps []string
}

// GoNB, gonum's plots and the CUDA binding, with the packages below them.
// No package of the module uses gonum's plots: agx/nb draws its own SVG.
// gonum's plot package parses its fonts at start-up, about 0.2 MB of heap
// that every collection of a notebook cell's program (which links agx/nb
// and grade) would mark.
const (
	gonb = "github.com/janpfeifer/gonb/..."
	plot = "gonum.org/v1/plot/..."
	cu   = "gorgonia.org/cu/..."
)

// The direction is tensor ← agx ← functions, nn, grade ← cmd; gpu builds on
// tensor alone; GoNB only through agx/nb.
var rules = []rule{
	{pkg: mod + "/agx/nb", notDeps: []string{plot}},
	{pkg: mod + "/grade", notDeps: []string{plot}},
	{pkg: mod + "/tensor", notDeps: []string{mod + "/agx/...", mod + "/functions/...", mod + "/gpu/...", mod + "/nn/...", mod + "/grade/...", gonb, plot, cu}},
	{pkg: mod + "/agx", notDeps: []string{mod + "/functions/...", mod + "/gpu/...", mod + "/nn/...", mod + "/grade/...", mod + "/agx/nb/...", gonb, plot, cu}},
	// grade and the exchange stay clear of the grader's internals; agx's
	// recycling promise (internal/gradpromise, a marker type) comes with agx.
	{pkg: mod + "/grade", notDeps: []string{mod + "/functions/...", mod + "/gpu/...", mod + "/nn/...", mod + "/cmd/...", mod + "/internal/..."}, except: []string{mod + "/internal/gradpromise"}},
	// The exchange is imported by notebook cells and by cmd/agx; it works on
	// the file system alone.
	{pkg: mod + "/grade/exchange", notDeps: []string{mod + "/functions/...", mod + "/gpu/...", mod + "/nn/...", mod + "/cmd/...", mod + "/internal/...", cu}, except: []string{mod + "/internal/gradpromise"}},
	{pkg: mod + "/functions", notDeps: []string{mod + "/gpu/...", mod + "/nn/...", mod + "/grade/...", mod + "/agx/nb/...", gonb, cu}},
	{pkg: mod + "/nn", notDeps: []string{mod + "/gpu/...", mod + "/grade/...", mod + "/agx/nb/...", gonb, cu}},
	// gpu depends on tensor (with its implementation packages) only, and
	// with the cuda tag on gorgonia.org/cu.
	{pkg: mod + "/gpu", onlyDeps: []string{mod + "/gpu/kernels", mod + "/tensor", mod + "/tensor/internal/..."}},
	// The OpenBLAS binding needs nothing of tensor but its GEMM checks and
	// the team of workers.
	{pkg: mod + "/tensor/internal/openblas", onlyDeps: []string{mod + "/tensor/internal/gemm", mod + "/tensor/internal/team"}},
	// The grader's steps sit under autograde, which orchestrates them:
	// gradebook (the record) knows nothing of how entries are made, rebuild
	// nothing of scoring, and the Go toolchain's care nothing of notebooks'
	// grades.
	{pkg: mod + "/internal/gradebook", notDeps: []string{mod + "/internal/autograde", mod + "/internal/rebuild", mod + "/internal/score", mod + "/internal/gotool", mod + "/internal/jupyter"}},
	{pkg: mod + "/internal/rebuild", notDeps: []string{mod + "/internal/autograde", mod + "/internal/score", mod + "/internal/gotool", mod + "/internal/jupyter"}},
	{pkg: mod + "/internal/score", notDeps: []string{mod + "/internal/autograde", mod + "/internal/gotool"}},
	{pkg: mod + "/internal/gotool", notDeps: []string{mod + "/internal/autograde", mod + "/internal/rebuild", mod + "/internal/score", mod + "/internal/gradebook"}},
}

// importedBy lists import paths (or patterns) that only the given packages
// of the module may import directly; with a tag, only in builds with that
// tag, where each of them must import path.
var importedBy = []struct {
	path string
	by   []string
	tag  string
}{
	{gonb, []string{mod + "/agx/nb"}, ""},
	{mod + "/tensor/internal/openblas", []string{mod + "/tensor"}, "openblas"},
}

// cgo lists, per build tag, the packages outside the standard library that
// may have cgo files in a build with that tag (they must exist there); no
// other package has any, and in the default build none does.
var cgo = map[string][]string{
	"openblas": {mod + "/tensor/internal/openblas", "gonum.org/v1/netlib/blas/netlib"},
	"cuda":     {"gorgonia.org/cu", "gorgonia.org/cu/blas", "gorgonia.org/cu/nvrtc"},
	"cudaemu":  {mod + "/gpu/emu"},
}

// A pkg is what go list says about one package of a build.
type pkg struct {
	std     bool
	cgo     bool
	imports []string
}

// list returns the packages of the module in build b and everything they
// depend on, by import path.
func list(t *testing.T, goBin string, b build) map[string]pkg {
	args := append([]string{"list", "-deps"}, b.flags...)
	args = append(args, "-f", "{{.ImportPath}}\t{{.Standard}}\t{{len .CgoFiles}}\t{{join .Imports \" \"}}", mod+"/...")
	cmd := exec.Command(goBin, args...)
	// Listing does not compile, but without cgo go list leaves the cgo
	// files out (and refuses the C files of the openblas build).
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if e, ok := err.(*exec.ExitError); ok {
			msg = string(e.Stderr)
		}
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	pkgs := map[string]pkg{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		pkgs[f[0]] = pkg{std: f[1] == "true", cgo: f[2] != "0", imports: strings.Fields(f[3])}
	}
	return pkgs
}

// matches reports whether import path p matches one of patterns: equals
// it, or for a pattern q/..., equals q or lies below it.
func matches(p string, patterns ...string) bool {
	for _, q := range patterns {
		if base, ok := strings.CutSuffix(q, "/..."); ok {
			if p == base || strings.HasPrefix(p, base+"/") {
				return true
			}
		} else if p == q {
			return true
		}
	}
	return false
}

// deps returns what p depends on, directly or indirectly, sorted.
func deps(pkgs map[string]pkg, p string) []string {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		for _, q := range pkgs[p].imports {
			if !seen[q] {
				seen[q] = true
				visit(q)
			}
		}
	}
	visit(p)
	var out []string
	for q := range seen {
		out = append(out, q)
	}
	slices.Sort(out)
	return out
}

// TestLayering checks the rules above in every build the project uses.
func TestLayering(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "go command not found")
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			pkgs := list(t, goBin, b)
			exists := func(p string) bool {
				_, ok := pkgs[p]
				return ok
			}
			tags := b.tags()
			for _, r := range rules {
				if !exists(r.pkg) {
					t.Errorf("%s does not exist in this build", r.pkg)
					continue
				}
				var bad, outside []string
				for _, d := range deps(pkgs, r.pkg) {
					if matches(d, r.notDeps...) && !matches(d, r.except...) {
						bad = append(bad, d)
					}
					if r.onlyDeps != nil && matches(d, mod+"/...") && d != r.pkg && !matches(d, r.onlyDeps...) {
						outside = append(outside, d)
					}
				}
				if bad != nil {
					t.Errorf("%s must not depend on %s; it depends on %s", r.pkg, strings.Join(r.notDeps, ", "), strings.Join(bad, ", "))
				}
				if outside != nil {
					t.Errorf("%s depends on %s; of the module it may depend on %s only", r.pkg, strings.Join(outside, ", "), strings.Join(r.onlyDeps, ", "))
				}
			}
			for _, ib := range importedBy {
				with := ib.tag == "" || slices.Contains(tags, ib.tag)
				only := strings.Join(ib.by, ", ")
				if ib.tag != "" {
					only += " with the " + ib.tag + " tag"
				}
				for _, p := range ib.by {
					if !exists(p) {
						t.Errorf("%s does not exist in this build", p)
					} else if ib.tag != "" && with && !slices.Contains(pkgs[p].imports, ib.path) {
						t.Errorf("%s does not import %s", p, ib.path)
					}
				}
				for p, info := range pkgs {
					if !matches(p, mod+"/...") {
						continue
					}
					for _, imp := range info.imports {
						if matches(imp, ib.path) && (!with || !slices.Contains(ib.by, p)) {
							t.Errorf("%s imports %s; only %s may", p, imp, only)
						}
					}
				}
			}
			var allowed []string
			for _, tag := range tags {
				for _, p := range cgo[tag] {
					if !exists(p) {
						t.Errorf("%s (cgo with the %s tag) does not exist in this build", p, tag)
					}
					allowed = append(allowed, p)
				}
			}
			for p, info := range pkgs {
				if info.cgo && !info.std && !slices.Contains(allowed, p) {
					t.Errorf("%s has cgo files in this build", p)
				}
			}
		})
	}
}
