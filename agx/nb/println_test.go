package nb_test

import (
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/agx/nb"
	"github.com/goagx/agx/tensor"
)

func TestPrintlnHTML(t *testing.T) {
	x := agx.FromSlice([]float64{1.5, -2}).SetRequiresGrad(true)
	tests := []struct {
		name    string
		args    []any
		want    []string // substrings, in order
		notWant []string
	}{
		{"text only", []any{"a < b", 3}, []string{`<span style="white-space:pre">a &lt; b</span>`, `<span style="white-space:pre">3</span>`}, []string{"<table"}},
		{"agx tensor as a table", []any{"x =", x}, []string{"x =", `<div class="agx-tensor">`, "<table", "requires_grad=True", "1.5", "-2"}, []string{"tensor(["}},
		{"plain tensor", []any{tensor.FromSlice([]float32{7, 8}, 2)}, []string{"<table", "float32 [2]", "7", "8"}, nil},
		{"nil tensor", []any{(*agx.Tensor)(nil)}, []string{"nil tensor"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := nb.PrintlnHTML(tc.args...)
			if !strings.HasPrefix(got, `<div class="agx-println"`) || !strings.HasSuffix(got, "</div>") {
				t.Errorf("not wrapped in the agx-println div: %s", got)
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%q missing (or out of order) in %s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("%q should not appear in %s", w, got)
				}
			}
		})
	}
}
