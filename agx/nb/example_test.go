package nb_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/agx/nb"
)

// The HTML twins return what the display helpers show, for tests or files.
func ExampleTensorHTML() {
	x := agx.FromSlice([]float64{1.5, -2}).SetRequiresGrad(true).SetName("w")
	h := nb.TensorHTML(x)
	fmt.Println(strings.Contains(h, ">w · float64 [2] · requires_grad=True</caption>"))
	fmt.Println(strings.Count(h, "<td"), strings.Contains(h, ">-2.0000</td>"))
	// Output:
	// true
	// 2 true
}

// A failing GradCheck carries both Jacobians; JacobianMismatchSVG draws them.
func ExampleJacobianMismatchSVG() {
	x := agx.FromSlice([]float64{0.5, -1, 2}).SetRequiresGrad(true)
	err := agx.GradCheck(badSquare{}, []*agx.Tensor{x})
	svg, e := nb.JacobianMismatchSVG(err)
	fmt.Println(e, strings.HasPrefix(svg, "<svg"), strings.Contains(svg, "|numerical − analytical|"))
	_, e = nb.JacobianMismatchSVG(errors.New("not a gradcheck failure"))
	fmt.Println(errors.Is(e, nb.ErrNoJacobians))
	// Output:
	// <nil> true true
	// true
}

func ExamplePlotActivationSVG() {
	svg, err := nb.PlotActivationSVG("SiLU", (*agx.Tensor).SiLU, -5, 5)
	fmt.Println(err, strings.HasPrefix(svg, "<svg"), strings.Contains(svg, "dSiLU/dx"))
	// Output:
	// <nil> true true
}
