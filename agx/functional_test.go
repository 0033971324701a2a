package agx

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/goagx/agx/tensor"
)

// fdJacobian is the central-difference Jacobian of output o with respect to
// input j, in float64, as a [numel(out)][numel(in)] matrix.
func fdJacobian(f func(...*Tensor) []*Tensor, xs []*Tensor, o, j int, eps float64) [][]float64 {
	base := make([]*Tensor, len(xs))
	for i, x := range xs {
		base[i] = New(x.Data().To(Float64))
	}
	nOut := f(base...)[o].Numel()
	n := base[j].Numel()
	m := make([][]float64, nOut)
	for r := range m {
		m[r] = make([]float64, n)
	}
	for c := range n {
		at := func(d float64) []float64 {
			in := append([]*Tensor{}, base...)
			vals := base[j].Float64s()
			vals[c] += d
			in[j] = New(tensor.FromSlice(vals, len(vals)).Reshape(base[j].Shape()...))
			return f(in...)[o].Float64s()
		}
		plus, minus := at(eps), at(-eps)
		for r := range nOut {
			m[r][c] = (plus[r] - minus[r]) / (2 * eps)
		}
	}
	return m
}

func closeVals(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("%s[%d] = %.10g, finite differences %.10g", what, i, got[i], want[i])
		}
	}
}

func flat(m [][]float64) []float64 {
	var out []float64
	for _, r := range m {
		out = append(out, r...)
	}
	return out
}

func randInputs(dt DType, seed uint64, shapes [][]int) []*Tensor {
	g := tensor.NewGenerator(seed)
	var xs []*Tensor
	for _, s := range shapes {
		xs = append(xs, New(g.Randn(Float64, s...).Mul(tensor.Scalar(0.5)).To(dt)))
	}
	return xs
}

// TestFunctionalFiniteDifferences checks every transform against central
// differences of f, in float64 and float32 (whose results are compared
// loosely), including a function that runs through Checkpoint.
func TestFunctionalFiniteDifferences(t *testing.T) {
	fns := map[string]struct {
		f      func(...*Tensor) []*Tensor
		shapes [][]int
	}{
		"vec":    functionalFns["vec"],
		"two":    functionalFns["two"],
		"scalar": functionalFns["scalar"],
		"checkpointed": {func(in ...*Tensor) []*Tensor {
			return Outputs(Checkpoint(func(a ...*Tensor) *Tensor { return a[0].Tanh().Mul(a[1]).Exp() }, in...).Sum())
		}, [][]int{{4}, {4}}},
	}
	for _, dt := range []DType{Float64, Float32} {
		tol := 1e-6
		if dt == Float32 {
			tol = 2e-3
		}
		for name, fc := range fns {
			t.Run(fmt.Sprintf("%s/%v", name, dt), func(t *testing.T) {
				xs := randInputs(dt, 3, fc.shapes)
				outs := fc.f(xs...)
				jac := Jacobian(fc.f, xs)
				for o := range outs {
					for j := range xs {
						want := fdJacobian(fc.f, xs, o, j, 1e-6)
						closeVals(t, fmt.Sprintf("J[%d][%d]", o, j), jac[o][j].Float64s(), flat(want), tol)
						if s := jac[o][j].Shape(); fmt.Sprint(s) != fmt.Sprint(append(outs[o].Shape(), xs[j].Shape()...)) {
							t.Errorf("J[%d][%d] shape %v", o, j, s)
						}
					}
				}
				// JVP and VJP against the finite-difference Jacobian.
				vIn := randInputs(dt, 4, fc.shapes)
				var vOut []*Tensor
				for k, o := range outs {
					vOut = append(vOut, randInputs(dt, 5+uint64(k), [][]int{o.Shape()})[0])
				}
				_, jvp := JVP(fc.f, xs, vIn)
				_, vjp := VJP(fc.f, xs, vOut)
				for o := range outs {
					want := make([]float64, outs[o].Numel())
					for j := range xs {
						m, v := fdJacobian(fc.f, xs, o, j, 1e-6), vIn[j].Float64s()
						for r := range m {
							for c := range m[r] {
								want[r] += m[r][c] * v[c]
							}
						}
					}
					closeVals(t, fmt.Sprintf("JVP %d", o), jvp[o].Float64s(), want, tol)
				}
				for j := range xs {
					want := make([]float64, xs[j].Numel())
					for o := range outs {
						m, v := fdJacobian(fc.f, xs, o, j, 1e-6), vOut[o].Float64s()
						for r := range m {
							for c := range m[r] {
								want[c] += v[r] * m[r][c]
							}
						}
					}
					closeVals(t, fmt.Sprintf("VJP %d", j), vjp[j].Float64s(), want, tol)
				}
				if len(outs) != 1 || outs[0].Numel() != 1 {
					return
				}
				// Second order: the Hessian is the finite-difference Jacobian of
				// the gradient; HVP and VHP are its products with v.
				grad := func(in ...*Tensor) []*Tensor { _, g := VJP(fc.f, in, nil); return g }
				h := Hessian(fc.f, xs)
				_, hvp := HVP(fc.f, xs, vIn)
				_, vhp := VHP(fc.f, xs, vIn)
				for i := range xs {
					want := make([]float64, xs[i].Numel())
					for j := range xs {
						m := fdJacobian(grad, xs, i, j, 1e-5)
						closeVals(t, fmt.Sprintf("H[%d][%d]", i, j), h[i][j].Float64s(), flat(m), tol*10)
						v := vIn[j].Float64s()
						for r := range m {
							for c := range m[r] {
								want[r] += m[r][c] * v[c]
							}
						}
					}
					closeVals(t, fmt.Sprintf("HVP %d", i), hvp[i].Float64s(), want, tol*10)
					closeVals(t, fmt.Sprintf("VHP %d", i), vhp[i].Float64s(), want, tol*10)
				}
			})
		}
	}
}

// TestFunctionalCreateGraph: without CreateGraph, results are detached and
// the inputs untouched; with it, results differentiate back to the inputs
// and to v, and the inputs get no accumulated gradient in either case.
func TestFunctionalCreateGraph(t *testing.T) {
	f := func(x *Tensor) *Tensor { return x.Pow(3).Sum() }
	x := FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	v := FromSlice([]float64{0.5, -1}).SetRequiresGrad(true)
	out, hvp := HVP(f, []*Tensor{x}, []*Tensor{v})
	if out.RequiresGrad() || hvp[0].RequiresGrad() {
		t.Fatal("results without CreateGraph require grad")
	}
	closeVals(t, "hvp", hvp[0].Float64s(), []float64{6 * 1 * 0.5, 6 * 2 * -1}, 1e-12)
	_, hvp = HVP(f, []*Tensor{x}, []*Tensor{v}, CreateGraph())
	g := Grad([]*Tensor{hvp[0].Sum()}, []*Tensor{x, v})
	// hvp_i = 6 x_i v_i: d/dx = 6 v, d/dv = 6 x.
	closeVals(t, "d hvp/dx", g[0].Float64s(), []float64{3, -6}, 1e-12)
	closeVals(t, "d hvp/dv", g[1].Float64s(), []float64{6, 12}, 1e-12)
	if x.Grad() != nil || v.Grad() != nil {
		t.Error("the functional API accumulated into Grad()")
	}
}

// TestFunctionalErrors: misuse fails clearly.
func TestFunctionalErrors(t *testing.T) {
	sq := func(x *Tensor) *Tensor { return x.Mul(x) }
	sum := func(x *Tensor) *Tensor { return x.Mul(x).Sum() }
	x3 := FromSlice([]float64{1, 2, 3})
	cases := []struct {
		name string
		run  func()
		is   error
		msg  string
	}{
		{"forward_strategy", func() { Jacobian(sq, []*Tensor{x3}, JacobianStrategy(ForwardMode)) }, tensor.ErrArg, "forward-mode strategy is not available"},
		{"forward_outer", func() { Hessian(sum, []*Tensor{x3}, OuterJacobianStrategy(ForwardMode)) }, tensor.ErrArg, "forward-mode strategy"},
		{"retain_graph_option", func() { VJP(sum, []*Tensor{x3}, nil, RetainGraph()) }, tensor.ErrArg, "not RetainGraph"},
		{"bad_function", func() { VJP(42, []*Tensor{x3}, nil) }, tensor.ErrArg, "unsupported function type int"},
		{"no_inputs", func() { Jacobian(sum, nil) }, tensor.ErrArg, "no inputs"},
		{"nil_input", func() { Jacobian(sum, []*Tensor{nil}) }, tensor.ErrArg, "element 0 of inputs is nil"},
		{"int_input", func() { Jacobian(sum, []*Tensor{FromSlice([]int64{1, 2})}) }, tensor.ErrDType, "floating point"},
		{"vjp_v_nil_vector_output", func() { VJP(sq, []*Tensor{x3}, nil) }, tensor.ErrArg, "v can only be None"},
		{"jvp_v_length", func() { JVP(sq, []*Tensor{x3}, []*Tensor{x3, x3}) }, tensor.ErrArg, "should be 1 but got 2"},
		{"jvp_v_shape", func() { JVP(sq, []*Tensor{x3}, []*Tensor{FromSlice([]float64{1, 2})}) }, tensor.ErrShape, "Entry 0 in v has invalid size: should be [3] but got [2]"},
		{"hessian_vector_output", func() { Hessian(sq, []*Tensor{x3}) }, tensor.ErrShape, "should contain a single element"},
		{"hvp_two_outputs", func() {
			HVP(func(in ...*Tensor) []*Tensor { return Outputs(in[0].Sum(), in[0].Sum()) }, []*Tensor{x3}, []*Tensor{x3})
		}, tensor.ErrArg, "should return a single Tensor"},
		{"strict_linear_hessian", func() { Hessian(func(x *Tensor) *Tensor { return x.Mul(2).Sum() }, []*Tensor{x3}, Strict()) }, ErrGraph, "twice differentiable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Try(tc.run)
			if !errors.Is(err, tc.is) || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Fatalf("got %v, want %v containing %q", err, tc.is, tc.msg)
			}
		})
	}
}
