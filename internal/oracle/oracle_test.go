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

// 0-d tensors keep their shape both ways (JSON [] rather than null, and not
// [1] after decoding).
func TestScalarRoundTrip(t *testing.T) {
	Skip(t)
	x := tensor.Scalar(2.5)
	var out struct{ Y Tensor }
	script := `
import agx_oracle as o
x = o.tensor(o.load()["x"])
o.dump({"Y": x * 2})
`
	if err := Run(script, map[string]any{"x": Encode(x)}, &out); err != nil {
		t.Fatal(err)
	}
	y := out.Y.Decode()
	if y.Dim() != 0 || y.Item() != 5 {
		t.Fatalf("got %v (shape %v), want tensor(5.) with shape []", y, y.Shape())
	}
}
