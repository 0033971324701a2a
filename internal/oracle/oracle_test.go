package oracle

import (
	"testing"

	"github.com/goagx/agx/tensor"
)

func TestRoundTrip(t *testing.T) {
	Skip(t)
	x := tensor.FromSlice([]float64{1, -2, 3.5, 4}, 2, 2)
	var out struct{ Y Tensor }
	script := `
import agx_oracle as o
inp = o.load()
x = o.tensor(inp["x"])
o.dump({"Y": x.exp()})
`
	if err := Run(script, map[string]any{"x": Encode(x)}, &out); err != nil {
		t.Fatal(err)
	}
	if d := Close(out.Y.Decode(), x.Exp(), 1e-12, 0); d != "" {
		t.Fatal(d)
	}
}
