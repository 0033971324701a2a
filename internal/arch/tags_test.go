package arch

import (
	"bufio"
	"go/build/constraint"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/testenv"
)

// platformTags are the build tags that name no build of the project: the
// toolchain sets them from the platform and compiler (GOOS and GOARCH
// values, listed by go tool dist list, come on top), and ignore keeps a
// file out of every build.
var platformTags = []string{"unix", "cgo", "gc", "gccgo", "ignore"}

// TestBuildsCoverEveryTag checks that every build tag a file of the module
// uses is one of projectTags (or the platform's), so that a file behind a new
// tag cannot escape the layering rules.
func TestBuildsCoverEveryTag(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "go command not found")
	}
	out, err := exec.Command(goBin, "tool", "dist", "list").Output()
	if err != nil {
		t.Fatalf("go tool dist list: %v", err)
	}
	platform := slices.Clone(platformTags)
	for _, osArch := range strings.Fields(string(out)) {
		goos, goarch, _ := strings.Cut(osArch, "/")
		platform = append(platform, goos, goarch)
	}
	var covered []string
	for _, b := range builds {
		covered = append(covered, b.tags()...)
	}

	used := map[string][]string{} // tag → the files that use it
	root := filepath.Join("..", "..")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		expr, err := buildConstraint(path)
		if err != nil || expr == nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, tag := range tagsOf(expr) {
			used[tag] = append(used[tag], rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(used) == 0 {
		t.Fatal("no file of the module has a build constraint; the walk looked in the wrong place")
	}
	for tag, files := range used {
		if strings.HasPrefix(tag, "go1.") || slices.Contains(platform, tag) || slices.Contains(covered, tag) {
			continue
		}
		t.Errorf("build tag %s (in %s) is not one of projectTags, whose combinations TestLayering checks; add it there", tag, strings.Join(files, ", "))
	}
}

// buildConstraint returns the //go:build expression of the Go file at path,
// or nil if it has none.
func buildConstraint(path string) (constraint.Expr, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if constraint.IsGoBuild(line) {
			return constraint.Parse(line)
		}
		if strings.HasPrefix(line, "package ") {
			break
		}
	}
	return nil, sc.Err()
}

// tagsOf returns every tag that expr names. (Eval would not do: it stops at
// the first operand that decides an && or an ||.)
func tagsOf(expr constraint.Expr) []string {
	switch x := expr.(type) {
	case *constraint.TagExpr:
		return []string{x.Tag}
	case *constraint.NotExpr:
		return tagsOf(x.X)
	case *constraint.AndExpr:
		return append(tagsOf(x.X), tagsOf(x.Y)...)
	case *constraint.OrExpr:
		return append(tagsOf(x.X), tagsOf(x.Y)...)
	}
	panic("unknown constraint expression")
}
