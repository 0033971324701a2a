package nb_test

import (
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/agx/nb"
)

func TestTensorHTML(t *testing.T) {
	const (
		th = `<th style="color:#888;font-weight:normal;padding:1px 6px;text-align:right">`
		td = `<td style="border:1px solid #ddd;padding:1px 6px;text-align:right">`
	)
	tests := []struct {
		name string
		t    func() *agx.Tensor
		want []string // substrings, in order
		not  []string
	}{
		{"f64/1d", func() *agx.Tensor { return agx.FromSlice([]float64{1, 2.5, -3}) },
			[]string{`<div class="agx-tensor"><table`, `>float64 [3]</caption><tr>` + th + "0</th>", th + "2</th></tr><tr>" + td + "1.0000</td>", td + "2.5000</td>", td + "-3.0000</td>", "</table></div>"},
			[]string{"requires_grad", "grad_fn"}},
		{"f32/2d", func() *agx.Tensor { return agx.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3) },
			[]string{">float32 [2 3]</caption>", "<tr>" + th + "0</th>" + td + "1.0000</td>" + td + "2.0000</td>" + td + "3.0000</td></tr>",
				"<tr>" + th + "1</th>" + td + "4.0000</td>"},
			nil},
		{"f64/scalar", func() *agx.Tensor { return agx.Scalar(2.0) },
			[]string{">float64 []</caption><tr>" + td + "2.0000</td></tr></table>"}, []string{"<th"}},
		{"i64", func() *agx.Tensor { return agx.FromSlice([]int64{7, -8}) },
			[]string{">int64 [2]</caption>", td + "7</td>", td + "-8</td>"}, nil},
		{"bool", func() *agx.Tensor { return agx.FromSlice([]float64{1, -1}).Gt(0) },
			[]string{">bool [2]</caption>", td + "True</td>", td + "False</td>"}, nil},
		{"f64/sci", func() *agx.Tensor { return agx.FromSlice([]float64{1e-6, 2e6}) },
			[]string{td + "1.0000e-06</td>", td + "2.0000e+06</td>"}, nil},
		{"f64/nonfinite", func() *agx.Tensor { return agx.FromSlice([]float64{1, 0}).Div(0) },
			[]string{td + "inf</td>", td + "nan</td>"}, nil},
		{"requires_grad", func() *agx.Tensor { return agx.FromSlice([]float64{1}).SetRequiresGrad(true).SetName("w") },
			[]string{">w · float64 [1] · requires_grad=True</caption>"}, nil},
		{"grad_fn", func() *agx.Tensor {
			x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
			return x.Mul(x)
		}, []string{">float64 [2] · grad_fn=MulBackward0</caption>"}, nil},
		{"summarised", func() *agx.Tensor { return agx.Arange(agx.Float64, 0, 100, 1) },
			[]string{th + "2</th>" + th + "…</th>" + th + "97</th>", td + "2.0000</td>" + td + "…</td>" + td + "97.0000</td>"},
			[]string{td + "3.0000</td>", td + "96.0000</td>"}},
		{"3d", func() *agx.Tensor { return agx.Arange(agx.Float64, 0, 12, 1).Reshape(3, 2, 2) },
			[]string{"<div>float64 [3 2 2]</div>", ">[0, :, :]</caption>", ">[1, :, :]</caption>", ">[2, :, :]</caption>", td + "11.0000</td>"}, nil},
		{"4d/summarised", func() *agx.Tensor { return agx.Arange(agx.Float64, 0, 40, 1).Reshape(10, 2, 2, 1) },
			[]string{">[0, 0, :, :]</caption>", ">[1, 0, :, :]</caption>", "… 14 more …", ">[8, 1, :, :]</caption>", ">[9, 1, :, :]</caption>"},
			[]string{">[5, 0, :, :]</caption>"}},
		{"empty", func() *agx.Tensor { return agx.Zeros(agx.Float64, 2, 0, 3) }, []string{"(empty)"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := nb.TensorHTML(tc.t())
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("missing (or out of order) %q in\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("unexpected %q in\n%s", w, got)
				}
			}
			if again := nb.TensorHTML(tc.t()); again != got {
				t.Errorf("output is not deterministic")
			}
		})
	}
}

func TestTensorHTMLEscapesName(t *testing.T) {
	got := nb.TensorHTML(agx.FromSlice([]float64{1}).SetName("<x&y>"))
	if !strings.Contains(got, "&lt;x&amp;y&gt; · float64 [1]") {
		t.Errorf("name not escaped: %s", got)
	}
}

func TestTensorWithGradHTML(t *testing.T) {
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	if got := nb.TensorWithGradHTML(x); !strings.Contains(got, "grad: None") {
		t.Errorf("no gradient yet, want 'grad: None' in %s", got)
	}
	x.Mul(x).Sum().Backward()
	got := nb.TensorWithGradHTML(x)
	for _, w := range []string{"display:flex", "requires_grad=True</caption>", ">grad · float64 [3]</caption>", ">6.0000</td>"} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in %s", w, got)
		}
	}
	if nb.TensorHTML(nil) == "" || nb.TensorWithGradHTML(nil) != nb.TensorHTML(nil) {
		t.Errorf("nil tensor should render a note")
	}
}

func ExampleTensor() {
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	nb.Tensor(x) // outside a notebook: the tensor's String
	y := x.Mul(x).Sum()
	y.Backward()
	nb.TensorWithGrad(x)
	// Output:
	// tensor([1., 2., 3.], dtype=float64, requires_grad=True)
	// tensor([1., 2., 3.], dtype=float64, requires_grad=True)
	// grad: tensor([2., 4., 6.], dtype=float64)
}
