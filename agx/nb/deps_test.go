package nb_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/testenv"
)

// TestCoreDoesNotImportDisplay keeps the dependency rule: only this package
// talks to GoNB and draws plots; tensor and agx build without them.
func TestCoreDoesNotImportDisplay(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "go command not found")
	}
	forbidden := []string{"github.com/janpfeifer/gonb", "gonum.org/v1/plot", "github.com/goagx/agx/agx/nb"}
	for _, pkg := range []string{"github.com/goagx/agx/tensor", "github.com/goagx/agx/agx"} {
		t.Run(pkg[strings.LastIndex(pkg, "/")+1:], func(t *testing.T) {
			out, err := exec.Command(goBin, "list", "-deps", pkg).CombinedOutput()
			if err != nil {
				t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
			}
			for _, dep := range strings.Fields(string(out)) {
				for _, f := range forbidden {
					if dep == f || strings.HasPrefix(dep, f+"/") {
						t.Errorf("%s imports %s", pkg, dep)
					}
				}
			}
		})
	}
}
