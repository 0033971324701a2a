package functions_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

func TestFakeQuantize(t *testing.T) {
	int8q := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.FakeQuantize(in[0], 0.01, 0, -128, 127) })
	fntest.RunCases(t, int8q, []fntest.Case{
		// 0.026/0.01 = 2.6 → 3 → 0.03; 1.5 → 150 clamps to 127; -1.3 → -130 clamps to -128.
		{Name: "int8", In: [][]float64{{0.026, -0.013, 1.5, -1.3, 0}},
			Want: [][]float64{{0.03, -0.01, 1.27, -1.28, 0}}, Grad: [][]float64{{1, 1, 0, 0, 1}}},
	})
	uint8q := fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.FakeQuantize(in[0], 0.5, 10, 0, 255) })
	fntest.RunCases(t, uint8q, []fntest.Case{
		// v = x/0.5 + 10: -6 → -2 clamps to 0 → -5; 1.2 → 12.4 → 12 → 1; 200 → 410 → 255 → 122.5
		{Name: "zero-point", In: [][]float64{{-6, 1.2, 200, -4.9}},
			Want: [][]float64{{-5, 1, 122.5, -5}}, Grad: [][]float64{{0, 1, 0, 1}}},
	})
}

// Example A4: x randn(8,64), scale 0.01, zero point 0: the gradient flows
// (to the elements inside the int8 range).
func TestFakeQuantizeA4(t *testing.T) {
	x := fntest.Randn(47, agx.Float32, 8, 64).SetRequiresGrad(true)
	functions.FakeQuantize(x, 0.01, 0, -128, 127).Sum().Backward()
	if x.Grad() == nil {
		t.Fatal("no gradient")
	}
	inRange := x.Detach().Abs().Le(1.27).To(agx.Float32)
	fntest.Close(t, "gradient", x.Grad(), inRange, 0)
	if n := x.Grad().Sum().Item(); n == 0 || n == 512 {
		t.Fatalf("%v of 512 elements got a gradient; want some but not all", n)
	}
}

func TestFakeQuantizeMisuse(t *testing.T) {
	x := agx.FromSlice([]float64{1})
	for _, tc := range []struct {
		name string
		f    functions.FakeQuantizeFunction
		msg  string
	}{
		{"zero-scale", functions.FakeQuantizeFunction{Scale: 0, QMin: -1, QMax: 1}, "scale must be positive"},
		{"qmin>qmax", functions.FakeQuantizeFunction{Scale: 1, QMin: 2, QMax: 1}, "greater than qmax"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fntest.PanicsWith(t, func() { agx.Apply(tc.f, x) }, tc.msg)
		})
	}
}

func ExampleFakeQuantize() {
	x := agx.FromSlice([]float32{0.026, -0.013, 1.5, -1.3}).SetRequiresGrad(true)
	y := functions.FakeQuantize(x, 0.01, 0, -128, 127)
	y.Sum().Backward()
	fmt.Println(y)
	fmt.Println(x.Grad())
	// Output:
	// tensor([ 0.0300, -0.0100,  1.2700, -1.2800], grad_fn=<FakeQuantizeBackward>)
	// tensor([1., 1., 0., 0.])
}
