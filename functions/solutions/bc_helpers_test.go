package solutions

import (
	"errors"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// Test helpers for the B/C Functions (prefixed bc to stay out of the way of
// the other files in this package).

var bcDTypes = []tensor.DType{tensor.Float32, tensor.Float64}

// bcTol is the comparison tolerance for values computed in dt.
func bcTol(dt tensor.DType) float64 {
	if dt == tensor.Float32 {
		return 1e-5
	}
	return 1e-12
}

// bcLeaf returns a seeded randn leaf that requires grad.
func bcLeaf(seed uint64, dt tensor.DType, shape ...int) *agx.Tensor {
	return agx.New(tensor.NewGenerator(seed).Randn(dt, shape...)).SetRequiresGrad(true)
}

// bcLeafOf returns a float64 leaf with the given values that requires grad.
func bcLeafOf(vals []float64, shape ...int) *agx.Tensor {
	return agx.FromSlice(vals, shape...).SetRequiresGrad(true)
}

// bcClose fails t unless got and want agree within rtol/atol.
func bcClose(t *testing.T, what string, got, want *tensor.Tensor, rtol, atol float64) {
	t.Helper()
	if d := oracle.Close(got, want, rtol, atol); d != "" {
		t.Errorf("%s: %s", what, d)
	}
}

// bcValues fails t unless x holds exactly want (within 1e-12 for floats).
func bcValues(t *testing.T, what string, x *agx.Tensor, want ...float64) {
	t.Helper()
	if x == nil {
		t.Fatalf("%s: nil tensor", what)
	}
	bcClose(t, what, x.Data().To(tensor.Float64).Flatten(), tensor.FromSlice(want, len(want)), 1e-6, 1e-12)
}

// bcGrads runs f on fresh copies of the inputs that require grad, backpropagates
// a seeded random upstream gradient and returns the output and the gradients.
func bcGrads(f func(in ...*agx.Tensor) *agx.Tensor, inputs []*agx.Tensor) (*tensor.Tensor, []*tensor.Tensor) {
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

// bcCompare checks that custom and ref (the same op composed from agx's
// built-ins) agree in values and in the gradients of every input.
func bcCompare(t *testing.T, custom, ref func(in ...*agx.Tensor) *agx.Tensor, inputs []*agx.Tensor, tol float64) {
	t.Helper()
	y1, g1 := bcGrads(custom, inputs)
	y2, g2 := bcGrads(ref, inputs)
	bcClose(t, "value", y1, y2, tol, tol)
	for i := range g1 {
		if (g1[i] == nil) != (g2[i] == nil) {
			t.Errorf("grad %d: custom %v, composite %v", i, g1[i], g2[i])
			continue
		}
		if g1[i] != nil {
			bcClose(t, "grad", g1[i], g2[i], tol, tol)
		}
	}
}

// bcCheck runs GradCheck and GradGradCheck in float64.
func bcCheck(t *testing.T, f any, inputs []*agx.Tensor, opts ...agx.GradCheckOption) {
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

// bcPanics fails t unless f panics with an error matching target.
func bcPanics(t *testing.T, target error, f func()) {
	t.Helper()
	err := agx.Try(f)
	if err == nil {
		t.Fatal("expected a panic")
	}
	if !errors.Is(err, target) {
		t.Fatalf("got %v, want an error matching %v", err, target)
	}
}
