package fntest

import (
	"errors"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// Leaf returns a seeded randn leaf that requires grad.
func Leaf(seed uint64, dt tensor.DType, shape ...int) *agx.Tensor {
	return agx.New(tensor.NewGenerator(seed).Randn(dt, shape...)).SetRequiresGrad(true)
}

// LeafOf returns a float64 leaf with the given values that requires grad.
func LeafOf(vals []float64, shape ...int) *agx.Tensor {
	return agx.FromSlice(vals, shape...).SetRequiresGrad(true)
}

// CloseData fails t unless got and want agree within rtol/atol.
func CloseData(t *testing.T, what string, got, want *tensor.Tensor, rtol, atol float64) {
	t.Helper()
	if d := oracle.Close(got, want, rtol, atol); d != "" {
		t.Errorf("%s: %s", what, d)
	}
}

// Elements fails t unless x's elements, flattened, are want (within rtol
// 1e-6, atol 1e-12).
func Elements(t *testing.T, what string, x *agx.Tensor, want ...float64) {
	t.Helper()
	if x == nil {
		t.Fatalf("%s: nil tensor", what)
	}
	CloseData(t, what, x.Data().To(tensor.Float64).Flatten(), tensor.FromSlice(want, len(want)), 1e-6, 1e-12)
}

// Grads runs f on fresh copies of the inputs that require grad, backpropagates
// a seeded random upstream gradient and returns the output and the gradients.
func Grads(f func(in ...*agx.Tensor) *agx.Tensor, inputs []*agx.Tensor) (*tensor.Tensor, []*tensor.Tensor) {
	ins := make([]*agx.Tensor, len(inputs))
	for i, x := range inputs {
		if x != nil && x.RequiresGrad() {
			ins[i] = agx.New(x.Data().Clone()).SetRequiresGrad(true)
		} else {
			ins[i] = x
		}
	}
	y := f(ins...)
	w := agx.New(tensor.NewGenerator(99).Randn(y.DType(), y.Shape()...))
	y.Mul(w).Sum().Backward()
	grads := make([]*tensor.Tensor, len(ins))
	for i, x := range ins {
		if x != nil && x.Grad() != nil {
			grads[i] = x.Grad().Data()
		}
	}
	return y.Data(), grads
}

// Compare checks that custom and ref (the same op composed from agx's
// built-ins) agree in values and in the gradients of every input.
func Compare(t *testing.T, custom, ref func(in ...*agx.Tensor) *agx.Tensor, inputs []*agx.Tensor, tol float64) {
	t.Helper()
	y1, g1 := Grads(custom, inputs)
	y2, g2 := Grads(ref, inputs)
	CloseData(t, "value", y1, y2, tol, tol)
	for i := range g1 {
		if (g1[i] == nil) != (g2[i] == nil) {
			t.Errorf("grad %d: custom %v, composite %v", i, g1[i], g2[i])
			continue
		}
		if g1[i] != nil {
			CloseData(t, "grad", g1[i], g2[i], tol, tol)
		}
	}
}

// GradChecks runs GradCheck and GradGradCheck (in subtests gradcheck and
// gradgradcheck); give it float64 inputs.
func GradChecks(t *testing.T, f any, inputs []*agx.Tensor, opts ...agx.GradCheckOption) {
	t.Helper()
	t.Run("gradcheck", func(t *testing.T) {
		if err := agx.GradCheck(f, inputs, opts...); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("gradgradcheck", func(t *testing.T) {
		if err := agx.GradGradCheck(f, inputs, opts...); err != nil {
			t.Fatal(err)
		}
	})
}

// PanicsIs fails t unless f panics with an error matching target.
func PanicsIs(t *testing.T, target error, f func()) {
	t.Helper()
	err := agx.Try(f)
	if err == nil {
		t.Fatal("expected a panic")
	}
	if !errors.Is(err, target) {
		t.Fatalf("got %v, want an error matching %v", err, target)
	}
}
