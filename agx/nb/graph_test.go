package nb_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/agx/nb"
	"github.com/goagx/agx/internal/testenv"
)

func TestGraphSVG(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		testenv.Missing(t, "Graphviz is not installed (apt-get install graphviz; docker/scripts/install-jupyter.sh does)")
	}
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true).SetName("x")
	w := agx.FromSlice([]float64{0.5, -1, 2}).SetRequiresGrad(true).SetName("w")
	y := x.Mul(w).Sum()
	svg, err := nb.GraphSVG(y)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg, "<svg") || !strings.HasSuffix(strings.TrimSpace(svg), "</svg>") {
		t.Errorf("want a bare <svg> element, got %.80q ... %.40q", svg, svg[max(0, len(svg)-40):])
	}
	for _, name := range []string{"MulBackward0", "SumBackward", "AccumulateGrad", "output 0"} {
		if !strings.Contains(svg, name) {
			t.Errorf("node %q missing from the SVG", name)
		}
	}
	if got := nb.GraphHTML(y); got != svg {
		t.Errorf("GraphHTML should be the SVG when dot works")
	}
}

func ExampleGraph() {
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	w := agx.FromSlice([]float64{0.5, -1, 2}).SetRequiresGrad(true)
	y := x.Mul(w).Sum()
	nb.Graph(y) // outside a notebook: a one-line summary
	// Output:
	// [autograd graph of 1 output(s): 4 nodes: SumBackward0, MulBackward0, AccumulateGrad]
}
