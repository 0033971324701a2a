package arch

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/goagx/agx"

// forbidden lists, per package, import paths (prefixes) it must not depend on,
// directly or indirectly.
var forbidden = map[string][]string{
	mod + "/tensor": {mod + "/agx", mod + "/functions", mod + "/gpu", mod + "/nn", mod + "/grade", "github.com/janpfeifer/gonb", "gorgonia.org/cu"},
	mod + "/agx":    {mod + "/functions", mod + "/gpu", mod + "/nn", mod + "/grade", mod + "/agx/nb", "github.com/janpfeifer/gonb", "gorgonia.org/cu"},
	mod + "/grade":  {mod + "/functions", mod + "/gpu", mod + "/nn", mod + "/cmd", mod + "/internal"},
	// The exchange is imported by notebook cells and by cmd/agx; it works on
	// the file system alone.
	mod + "/grade/exchange": {mod + "/functions", mod + "/gpu", mod + "/nn", mod + "/cmd", mod + "/internal", "gorgonia.org/cu"},
	mod + "/functions":      {mod + "/gpu", mod + "/nn", mod + "/grade", mod + "/agx/nb", "github.com/janpfeifer/gonb", "gorgonia.org/cu"},
	mod + "/nn":             {mod + "/gpu", mod + "/grade", mod + "/agx/nb", "github.com/janpfeifer/gonb", "gorgonia.org/cu"},
}

// direct lists, per package, import paths it must not import itself (it may
// reach them through an allowed package): display code goes through agx/nb.
var direct = map[string][]string{
	mod + "/grade":          {"github.com/janpfeifer/gonb"},
	mod + "/grade/exchange": {"github.com/janpfeifer/gonb"},
}

func TestDirectImports(t *testing.T) {
	for pkg, bad := range direct {
		out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, imp := range strings.Fields(string(out)) {
			for _, b := range bad {
				if imp == b || strings.HasPrefix(imp, b+"/") {
					t.Errorf("%s must not import %s directly (use agx/nb)", pkg, imp)
				}
			}
		}
	}
}

func TestDependencyDirection(t *testing.T) {
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "cannot find package") || strings.Contains(string(out), "no required module provides") {
				continue // the package does not exist yet
			}
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bad {
				if dep == b || strings.HasPrefix(dep, b+"/") {
					t.Errorf("%s must not depend on %s (it imports %s)", pkg, b, dep)
				}
			}
		}
	}
}
