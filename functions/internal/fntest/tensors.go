package fntest

import (
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// DTypes are the dtypes the tests run in.
var DTypes = []agx.DType{agx.Float32, agx.Float64}

// Tol is the comparison tolerance for values computed in dt.
func Tol(dt agx.DType) float64 {
	if dt == agx.Float32 {
		return 1e-5
	}
	return 1e-12
}

// Randn returns a seeded standard-normal tensor (a private generator, so
// tests do not depend on each other's use of the default one).
func Randn(seed uint64, dt agx.DType, shape ...int) *agx.Tensor {
	if len(shape) == 0 { // a scalar: Randn with no shape gives one element in 1-D
		return agx.New(tensor.NewGenerator(seed).Randn(dt, 1).Reshape())
	}
	return agx.New(tensor.NewGenerator(seed).Randn(dt, shape...))
}

// Vec builds a tensor of dtype dt from float64 values with the given shape
// (1-D when no shape is given).
func Vec(dt agx.DType, v []float64, shape ...int) *agx.Tensor {
	if len(shape) == 0 {
		shape = []int{len(v)}
	}
	return agx.New(tensor.FromSlice(v, shape...).To(dt))
}

// One adapts a Function of one output to the many-output form of Gradients,
// Match and RunCases.
func One(f func(...*agx.Tensor) *agx.Tensor) func(...*agx.Tensor) []*agx.Tensor {
	return func(in ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(f(in...)) }
}

// Leaves returns fresh leaf copies of inputs (same requires-grad flags).
func Leaves(inputs []*agx.Tensor) []*agx.Tensor {
	out := make([]*agx.Tensor, len(inputs))
	for i, in := range inputs {
		if in == nil {
			continue
		}
		c := agx.New(in.Data().Clone())
		if in.RequiresGrad() {
			c.SetRequiresGrad(true)
		}
		out[i] = c
	}
	return out
}

// Close fails t when got and want differ beyond tol (relative, with the
// same absolute floor).
func Close(t *testing.T, what string, got, want *agx.Tensor, tol float64) {
	t.Helper()
	var g, w *tensor.Tensor
	if got != nil {
		g = got.Data()
	}
	if want != nil {
		w = want.Data()
	}
	if d := oracle.Close(g, w, tol, tol); d != "" {
		t.Errorf("%s: %s\n got: %v\nwant: %v", what, d, got, want)
	}
}

// Values fails t when x's elements differ from want beyond tol.
func Values(t *testing.T, what string, x *agx.Tensor, want []float64, tol float64) {
	t.Helper()
	if x == nil {
		t.Errorf("%s: nil, want %v", what, want)
		return
	}
	Close(t, what, x.To(agx.Float64).Reshape(-1), Vec(agx.Float64, want), tol)
}

// Gradients runs fn on fresh leaves, then the backward pass of all
// differentiable outputs with fixed pseudo-random upstream gradients ups, and
// returns the outputs and the gradient of every input (nil where none).
func Gradients(fn func(...*agx.Tensor) []*agx.Tensor, inputs []*agx.Tensor, seed uint64) (outs, grads, ups []*agx.Tensor) {
	leaves := Leaves(inputs)
	outs = fn(leaves...)
	var diffOut []*agx.Tensor
	for i, o := range outs {
		if o.RequiresGrad() {
			diffOut = append(diffOut, o)
			ups = append(ups, Randn(seed+uint64(i), o.DType(), o.Shape()...))
		}
	}
	var diffIn []*agx.Tensor
	var idx []int
	for i, l := range leaves {
		if l != nil && l.RequiresGrad() {
			diffIn = append(diffIn, l)
			idx = append(idx, i)
		}
	}
	grads = make([]*agx.Tensor, len(inputs))
	if len(diffOut) == 0 || len(diffIn) == 0 {
		return outs, grads, ups
	}
	gs := agx.Grad(diffOut, diffIn, agx.GradOutputs(ups...), agx.AllowUnused())
	for k, i := range idx {
		grads[i] = gs[k]
	}
	return outs, grads, ups
}

// Match checks that fn and ref agree on outputs and on gradients for the
// same upstream gradients.
func Match(t *testing.T, fn, ref func(...*agx.Tensor) []*agx.Tensor, inputs []*agx.Tensor, tol float64) {
	t.Helper()
	o1, g1, _ := Gradients(fn, inputs, 7)
	o2, g2, _ := Gradients(ref, inputs, 7)
	if len(o1) != len(o2) {
		t.Fatalf("%d outputs, composite has %d", len(o1), len(o2))
	}
	for i := range o1 {
		Close(t, "output", o1[i], o2[i], tol)
	}
	for i := range g1 {
		Close(t, "gradient of input", g1[i], g2[i], tol)
	}
}

// Case is a forward table case: 1-D (or scalar, shape []) inputs that all
// require grad, the expected outputs, and the expected gradient of the sum of
// all outputs with respect to each input.
type Case struct {
	Name  string
	In    [][]float64
	Shape [][]int // per input; nil means 1-D
	Want  [][]float64
	Grad  [][]float64
}

// RunCases runs the cases for every dtype.
func RunCases(t *testing.T, apply func(...*agx.Tensor) []*agx.Tensor, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		for _, dt := range DTypes {
			t.Run(tc.Name+"/"+dt.String(), func(t *testing.T) {
				tol := Tol(dt)
				if dt == agx.Float64 {
					tol = 1e-14
				}
				in := make([]*agx.Tensor, len(tc.In))
				for i, v := range tc.In {
					var shape []int
					if tc.Shape != nil {
						shape = tc.Shape[i]
					}
					in[i] = Vec(dt, v).Reshape(shapeOr1D(shape, len(v))...).SetRequiresGrad(true)
				}
				outs := apply(in...)
				if len(outs) != len(tc.Want) {
					t.Fatalf("%d outputs, want %d", len(outs), len(tc.Want))
				}
				var loss *agx.Tensor
				for i, o := range outs {
					if o.DType() != dt {
						t.Errorf("output %d has dtype %v, want %v", i, o.DType(), dt)
					}
					Values(t, "output", o, tc.Want[i], tol)
					if loss == nil {
						loss = o.Sum()
					} else {
						loss = loss.Add(o.Sum())
					}
				}
				loss.Backward()
				for i, g := range tc.Grad {
					if g == nil {
						continue
					}
					Values(t, "gradient", in[i].Grad(), g, tol)
				}
			})
		}
	}
}

// shapeOr1D is shape, or the 1-D shape of n elements when shape is nil.
func shapeOr1D(shape []int, n int) []int {
	if shape == nil {
		return []int{n}
	}
	return shape
}

// PanicsWith fails t unless f panics with an agx error containing msg.
func PanicsWith(t *testing.T, f func(), msg string) {
	t.Helper()
	err := agx.Try(f)
	if err == nil || !strings.Contains(err.Error(), msg) {
		t.Fatalf("got %v, want an error containing %q", err, msg)
	}
}
