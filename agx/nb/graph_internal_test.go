package nb

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/testenv"
)

// withoutDot simulates a machine without Graphviz for the rest of the test.
func withoutDot(t *testing.T) {
	t.Helper()
	saved := lookPath
	lookPath = func(string) (string, error) { return "", exec.ErrNotFound }
	t.Cleanup(func() { lookPath = saved })
}

func TestGraphWithoutGraphviz(t *testing.T) {
	withoutDot(t)
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := x.Mul(x).Sum()
	if _, err := GraphSVG(y); !errors.Is(err, ErrNoGraphviz) {
		t.Fatalf("GraphSVG error = %v, want ErrNoGraphviz", err)
	}
	got := GraphHTML(y)
	for _, w := range []string{"Install Graphviz", "apt-get install graphviz", "<pre>digraph agx {", "MulBackward0", "SumBackward"} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in %s", w, got)
		}
	}
	if strings.Contains(got, "<svg") {
		t.Errorf("no SVG expected without Graphviz: %s", got)
	}
}

func TestGraphDotFailure(t *testing.T) {
	saved := lookPath
	lookPath = func(string) (string, error) { return "/bin/false", nil }
	t.Cleanup(func() { lookPath = saved })
	if _, err := exec.LookPath("false"); err != nil {
		testenv.Missing(t, "no false(1) here (coreutils)")
	}
	x := agx.FromSlice([]float64{1}).SetRequiresGrad(true)
	got := GraphHTML(x.Exp())
	if !strings.Contains(got, "Graphviz failed") || !strings.Contains(got, "ExpBackward0") {
		t.Errorf("want the failure note and the DOT text, got %s", got)
	}
}
