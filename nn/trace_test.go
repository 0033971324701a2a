package nn

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/internal/oracle"
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

// A custom Function used as a layer is traced, saved with its fields, loaded
// after registration, and the loaded graph is differentiable like the module.
func TestTraceCustomFunctionLayer(t *testing.T) {
	RegisterFunction(functions.ScaledActivationFunction{})
	g := tensor.NewGenerator(2)
	m := NewSequential(NewLinear(4, 6, WithGenerator(g), WithDType(tensor.Float64)), Func("ScaledTanh", func(x *agx.Tensor) *agx.Tensor { return functions.ScaledActivation(x, 1.5, false) }),
		NewLinear(6, 2, WithGenerator(g), WithDType(tensor.Float64)))
	gr, err := Trace(m, agx.New(g.Randn(tensor.Float64, 1, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gr.String(), `ScaledActivation{"Scale":1.5,"UseReLU":false}`) {
		t.Errorf("graph:\n%v", gr)
	}
	var buf bytes.Buffer
	if err := WriteGraph(&buf, gr); err != nil {
		t.Fatal(err)
	}
	back, err := ReadGraph(&buf)
	if err != nil {
		t.Fatal(err)
	}
	x1 := agx.New(g.Randn(tensor.Float64, 5, 4)).SetRequiresGrad(true)
	x2 := agx.New(x1.Data()).SetRequiresGrad(true)
	m.Forward(x1).Sum().Backward()
	out, err := back.Run(x2)
	if err != nil {
		t.Fatal(err)
	}
	out[0].Sum().Backward()
	if d := oracle.Close(x2.Grad().Data(), x1.Grad().Data(), 1e-12, 1e-12); d != "" {
		t.Errorf("input gradient through the loaded graph: %s", d)
	}
}
