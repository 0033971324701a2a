package nb_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/agx/nb"
	"github.com/goagx/agx/tensor"
)

func TestShowHTML(t *testing.T) {
	withGrad := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	withGrad.Mul(withGrad).Sum().Backward()
	tests := []struct {
		name  string
		value any
		want  []string
	}{
		{"agx", agx.FromSlice([]float32{1, 2}), []string{`<div class="agx-tensor"><table`, "float32 [2]</caption>"}},
		{"agx/grad", withGrad, []string{"display:flex", "grad · float64 [2]</caption>", ">4.0000</td>"}},
		{"tensor", tensor.FromNested([][]float64{{1, 2}, {3, 4}}), []string{"float64 [2 2]</caption>", ">4.0000</td>"}},
		{"string", "a < b", []string{`<div style="white-space:pre-wrap">a &lt; b</div>`}},
		{"error", errors.New("it <broke>"), []string{"background:#fdecea", "it &lt;broke&gt;</div>"}},
		{"nil", nil, []string{">nil</div>"}},
		{"other", []int{1, 2}, []string{"<pre>[1 2]</pre>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := nb.ShowHTML(tc.value)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in %s", w, got)
				}
			}
		})
	}
	t.Run("several", func(t *testing.T) {
		got := nb.ShowHTML("loss", agx.Scalar(0.5))
		if i, j := strings.Index(got, "loss"), strings.Index(got, "0.5000"); i < 0 || j < i {
			t.Errorf("values out of order: %s", got)
		}
	})
}

func TestErrorHTMLGradCheck(t *testing.T) {
	err := failingGradCheck()
	got := nb.ErrorHTML(err)
	for _, w := range []string{"background:#fdecea", "Jacobian mismatch for output 0 with respect to input 0", "<svg", "analytical"} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q", w)
		}
	}
}

func ExampleShow() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	nb.Show("x is", x, errors.New("something failed"), 42)
	// Output:
	// x is
	// tensor([1., 2.], dtype=float64, requires_grad=True)
	// error: something failed
	// 42
}

func TestErrorHTMLNil(t *testing.T) {
	if got := nb.ErrorHTML(nil); !strings.Contains(got, "no error") {
		t.Errorf("ErrorHTML(nil) = %s", got)
	}
}
