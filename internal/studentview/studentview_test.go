package studentview

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/testenv"
)

const root = "../.."

func load(t *testing.T) []string {
	t.Helper()
	list, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func studentFiles(t *testing.T, list []string) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git (the student files are the tracked files)")
	}
	files, err := Files(root, list)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("only %d student files: not a checkout?", len(files))
	}
	return files
}

// TestList: the list names the exercises' sources and the reference
// solutions, and every path in it exists.
func TestList(t *testing.T) {
	list := load(t)
	for _, want := range []string{"notebooks/exercises/", "functions/solutions/"} {
		if !slices.Contains(list, want) {
			t.Errorf("%s does not list %s", ListPath, want)
		}
	}
	for _, p := range list {
		st, err := os.Stat(filepath.Join(root, p))
		switch {
		case err != nil:
			t.Errorf("%s lists %s: %v", ListPath, p, err)
		case st.IsDir() != strings.HasSuffix(p, "/"):
			t.Errorf("%s lists %s: a directory ends in / and only a directory does", ListPath, p)
		}
	}
	for _, bad := range []string{"/etc/x", "../x", "a/../b", "*.go", "."} {
		if _, err := Parse(bad + "\n"); err == nil {
			t.Errorf("Parse accepted %q", bad)
		}
	}
	for rel, want := range map[string]bool{
		"notebooks/exercises":            true,
		"notebooks/exercises/gelu.ipynb": true,
		"notebooks/00-welcome.ipynb":     false,
		"notebooks/reference.ipynb":      false, // the students' API reference
		"functions/solutions/gelu.go":    true,
		"functions/square.go":            false,
		"functions/solutionsx/a.go":      false,
		"bench/solution_workloads.go":    true,
		"bench/solution_workloads.go.x":  false,
	} {
		if got := Excluded(rel, list); got != want {
			t.Errorf("Excluded(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestNoSolutionReachesStudents is the check of issue #37: no file that
// students get (the student image's and the JupyterHub's copy of the module,
// the lesson notebooks, the docs) declares a reference solution's Function
// methods or functions, or holds a line of an exercise's solution.
func TestNoSolutionReachesStudents(t *testing.T) {
	list := load(t)
	sol, err := Collect(root, list)
	if err != nil {
		t.Fatal(err)
	}
	// The collection is not empty, and finds what it collected: the check
	// cannot pass for want of anything to look for.
	for _, m := range []string{"GELUFunction.Backward", "SoftRankFunction.Backward", "ScaledDotProductAttentionFunction.Backward",
		"AttentionFunction.Backward", "MySigmoid.Backward", "StableLogSumExp.Jvp", "BatchNormFunction.Backward"} {
		if _, ok := sol.Methods[m]; !ok {
			t.Errorf("no solution %s collected", m)
		}
	}
	for _, f := range []string{"normalCDF", "pairSigmoids", "TwoLayer", "GELUTanh"} {
		if _, ok := sol.Funcs[f]; !ok {
			t.Errorf("no solution function %s collected", f)
		}
	}
	if len(sol.Lines) < 20 {
		t.Errorf("only %d solution lines collected", len(sol.Lines))
	}
	found, err := sol.Find(root, []string{"functions/solutions/gelu.go", "notebooks/exercises/soft-rank.ipynb"})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 3 {
		t.Errorf("the instructor's own files show %d solutions: %q", len(found), found)
	}

	probs, err := sol.Find(root, studentFiles(t, list))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range probs {
		key := lineNumber.ReplaceAllString(p, "$1 ")
		if reason, ok := allowed[key]; ok {
			t.Logf("allowed: %s: %s", p, reason)
			seen[key] = true
			continue
		}
		t.Error(p)
	}
	for p := range allowed {
		if !seen[p] {
			t.Errorf("allowed is out of date: %s is no longer found", p)
		}
	}
}

// lineNumber is the line number of a finding, which allowed leaves out.
var lineNumber = regexp.MustCompile(`^(\S+?):\d+ `)

// allowed lists the findings that are no reference solution, each with the
// reason.
var allowed = map[string]string{
	"agx/ops_unary.go holds a line of a reference solution (gelu.ipynb (answer cell)): pdf := x.Mul(x).Mul(-0.5).Exp().Mul(1 / math.Sqrt(2*math.Pi))": "the engine's built-in Tensor.GELU (design.md: the built-in ops include gelu), " +
		"which the exercise's checks compare with; its backward computes the same density φ",
}

// TestFind: a copied method, function or solution line is found, in Go and
// in a notebook; other code is not.
func TestFind(t *testing.T) {
	sol := &Solutions{Methods: map[string]string{}, Funcs: map[string]string{}, Lines: map[string]string{}}
	sol.addCell("type F struct{}\n\nfunc (f F) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {\n"+
		"\t// BEGIN SOLUTION\n\treturn agx.Outputs(g[0].Mul(ctx.SavedTensors()[0]).Mul(2))\n\t// END SOLUTION\n}\n\n"+
		"func (f F) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor { return in }\n\n"+
		"func helper(x *agx.Tensor) *agx.Tensor {\n\t// BEGIN SOLUTION\n\treturn x\n\t// END SOLUTION\n}\n", "test")
	if len(sol.Methods) != 1 || len(sol.Funcs) != 1 || len(sol.Lines) != 1 {
		t.Fatalf("collected %v %v %v", sol.Methods, sol.Funcs, sol.Lines)
	}
	dir := t.TempDir()
	files := map[string]string{
		"a.go":    "package a\n\nfunc (*F) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {\n\treturn nil\n}\n",
		"b.go":    "package b\n\nfunc helper[T any](x T) T { return x }\n",
		"c.md":    "    return   agx.Outputs(g[0].Mul(ctx.SavedTensors()[0]).Mul(2))\n",
		"d.ipynb": `{"cells": [{"cell_type": "code", "metadata": {}, "source": ["func (F) Backward(ctx *agx.Ctx) {}\n"], "outputs": []}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`,
		"ok.go":   "package ok\n\nfunc (F) Forward() {}\nfunc (G) Backward() {}\nfunc helper2() {}\n",
	}
	var names []string
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	probs, err := sol.Find(dir, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		n := 0
		for _, p := range probs {
			if strings.HasPrefix(p, name) {
				n++
			}
		}
		if want := name != "ok.go"; (n > 0) != want {
			t.Errorf("%s: %d problems, want some: %v (%q)", name, n, want, probs)
		}
	}
}

// TestStudentModuleImportsNoSolution: no Go file that students get imports a
// package under an instructor-only directory, so the students' module builds
// (and vets) without them.
func TestStudentModuleImportsNoSolution(t *testing.T) {
	list := load(t)
	mod := "github.com/goagx/agx/"
	for _, rel := range studentFiles(t, list) {
		if !strings.HasSuffix(rel, ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, rel), nil, parser.ImportsOnly)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, mod); ok && Excluded(rest, list) {
				t.Errorf("%s imports %s, which students do not get", rel, p)
			}
		}
	}
}

// TestStudentFilesScript: docker/scripts/student-files.sh, which makes the
// JupyterHub's copy, prints exactly Files.
func TestStudentFilesScript(t *testing.T) {
	list := load(t)
	want := studentFiles(t, list)
	out, err := exec.Command("bash", filepath.Join(root, "docker/scripts/student-files.sh"), root).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	slices.Sort(got)
	if !slices.Equal(got, want) {
		for _, f := range got {
			if !slices.Contains(want, f) {
				t.Errorf("student-files.sh prints %s", f)
			}
		}
		for _, f := range want {
			if !slices.Contains(got, f) {
				t.Errorf("student-files.sh leaves out %s", f)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "docker/scripts/install-hub.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"$AGX_SCRIPTS_DIR/student-files.sh" "$AGX_ROOT" | (cd "$AGX_ROOT" && tar --null -T - -cf -)`) {
		t.Error("install-hub.sh no longer makes the students' copy from student-files.sh")
	}
}

// TestStudentCopyBuilds builds and vets a copy of exactly the files students
// get: the agx command and every package must build without what
// docker/instructor-only leaves out (the image and the hub build from such a
// copy).
func TestStudentCopyBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module (-short)")
	}
	files := studentFiles(t, load(t))
	dst := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"build", "-o", os.DevNull, "./cmd/agx"}, {"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dst
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s in the students' copy: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
