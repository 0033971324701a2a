package nn

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

func TestTraceLinearReLU(t *testing.T) {
	g := tensor.NewGenerator(1)
	m := NewSequential(NewLinear(10, 5, WithGenerator(g)), ReLU(), NewLinear(5, 3, WithGenerator(g)), Softmax(-1))
	x := agx.New(g.Randn(tensor.Float32, 1, 10))
	gr, err := Trace(m, x)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(gr)
	var buf bytes.Buffer
	if err := WriteGraph(&buf, gr); err != nil {
		t.Fatal(err)
	}
	g2, err := ReadGraph(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{1, 7} {
		xb := agx.New(g.Randn(tensor.Float32, b, 10))
		out, err := g2.Run(xb)
		if err != nil {
			t.Fatal(err)
		}
		if !allClose(out[0].Data(), m.Forward(xb).Data()) {
			t.Fatalf("batch %d differs", b)
		}
	}
	if !strings.Contains(gr.String(), "Softmax[axis=-1]") {
		t.Fatal(gr)
	}
}
