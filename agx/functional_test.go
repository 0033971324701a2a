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
		{"forward_create_graph", func() { Jacobian(sq, []*Tensor{x3}, JacobianStrategy(ForwardMode), CreateGraph()) }, tensor.ErrArg, "`create_graph=True` and `strategy=\"forward-mode\"` are not supported together"},
		{"forward_outer_create_graph", func() { Hessian(sum, []*Tensor{x3}, OuterJacobianStrategy(ForwardMode), CreateGraph()) }, tensor.ErrArg, "functional.hessian: `create_graph=True`"},
		{"outer_strategy_on_jacobian", func() { Jacobian(sq, []*Tensor{x3}, OuterJacobianStrategy(ForwardMode)) }, tensor.ErrArg, "applies to Hessian only"},
		{"strategy_on_hessian", func() { Hessian(sum, []*Tensor{x3}, JacobianStrategy(ForwardMode)) }, tensor.ErrArg, "applies to Jacobian only"},
		{"unknown_strategy", func() { Jacobian(sq, []*Tensor{x3}, JacobianStrategy(Strategy(7))) }, tensor.ErrArg, "unknown strategy 7"},
		{"forward_int_input", func() { Jacobian(sum, []*Tensor{FromSlice([]int64{1, 2})}, JacobianStrategy(ForwardMode)) }, tensor.ErrDType, "floating point"},
		{"forward_strict_independent", func() {
			Jacobian(func(x, y *Tensor) *Tensor { return x.Exp() }, []*Tensor{x3, x3}, JacobianStrategy(ForwardMode), Strict())
		}, ErrGraph, "Output 0 of the user-provided function is independent of input 1"},
		{"forward_strict_linear_hessian", func() {
			Hessian(func(x *Tensor) *Tensor { return x.Mul(2).Sum() }, []*Tensor{x3}, Strict(), OuterJacobianStrategy(ForwardMode))
		}, ErrGraph, "twice differentiable"},
		{"forward_hessian_once_differentiable", func() {
			Hessian(func(x *Tensor) *Tensor { return Apply(onceSquareJvp{}, x).Sum() }, []*Tensor{x3}, OuterJacobianStrategy(ForwardMode))
		}, ErrForwardAD, "marked as once-differentiable (onceSquareJvpBackward): forward over reverse needs the tangents of its backward"},
		{"forward_function_without_jvp", func() { Jacobian(Function(noJvpSquare{}), []*Tensor{x3}, JacobianStrategy(ForwardMode)) }, ErrForwardAD, ""},
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

// noJvpSquare is a custom Function without Jvp: forward mode cannot use it.
type noJvpSquare struct{}

func (noJvpSquare) Forward(ctx *Ctx, in ...*Tensor) []*Tensor {
	ctx.SaveForBackward(in[0])
	return Outputs(in[0].Mul(in[0]))
}

func (noJvpSquare) Backward(ctx *Ctx, g ...*Tensor) []*Tensor {
	return Outputs(g[0].Mul(ctx.SavedTensors()[0]).Mul(2))
}

// TestFunctionalForwardStrategy: Jacobian with JacobianStrategy(ForwardMode)
// and Hessian with OuterJacobianStrategy(ForwardMode) (forward over reverse)
// equal the reverse-mode results and finite differences, in float64 and
// float32, for several inputs and outputs of different shapes, an input the
// outputs do not depend on, and an empty input; forward mode leaves no
// gradients behind and its results do not require grad.
func TestFunctionalForwardStrategy(t *testing.T) {
	jacFns := []struct {
		name   string
		f      func(...*Tensor) []*Tensor
		shapes [][]int
	}{
		{"tall", func(in ...*Tensor) []*Tensor {
			return Outputs(in[1].MatMul(in[0]).Tanh(), in[0].Sin().Sum())
		}, [][]int{{3, 1}, {5, 3}}},
		{"two_outputs", func(in ...*Tensor) []*Tensor {
			return Outputs(in[0].Mul(in[1].Exp()), in[0].Sin().Mul(in[1]).Sum())
		}, [][]int{{4}, {4}}},
		{"independent_input", func(in ...*Tensor) []*Tensor { return Outputs(in[0].Exp().Reshape(2, 2)) }, [][]int{{4}, {3}}},
		{"empty_input", func(in ...*Tensor) []*Tensor { return Outputs(in[0].Sigmoid().Add(in[1].Sum())) }, [][]int{{2}, {0}}},
		// A custom Function takes part through its Jvp.
		{"custom_function", func(in ...*Tensor) []*Tensor { return ApplyN(fwdTwo{}, in[0], in[1].Exp()) }, [][]int{{3}, {3}}},
	}
	hesFns := []struct {
		name   string
		f      func(...*Tensor) []*Tensor
		shapes [][]int
	}{
		{"scalar", func(in ...*Tensor) []*Tensor {
			a := in[0].Exp().MatMul(in[1]).Pow(2).Sum()
			return Outputs(a.Add(in[0].Sin().Sum().Mul(in[1].Mul(in[1]).Sum())))
		}, [][]int{{2, 2}, {2, 1}}},
		{"rosenbrock", func(in ...*Tensor) []*Tensor {
			x, y := in[0].Narrow(0, 0, 1), in[0].Narrow(0, 1, 1)
			return Outputs(x.Neg().Add(1).Pow(2).Add(y.Sub(x.Mul(x)).Pow(2).Mul(100)).Sum())
		}, [][]int{{2}}},
		{"independent_input", func(in ...*Tensor) []*Tensor { return Outputs(in[0].Pow(3).Sum()) }, [][]int{{3}, {2}}},
		// Forward over reverse through a custom Function: its Jvp in the
		// forward pass, and its Backward's agx ops carry the tangents.
		{"custom_function", func(in ...*Tensor) []*Tensor { return Outputs(Apply(fwdCube{}, in[0].Sin()).Sum()) }, [][]int{{4}}},
	}
	for _, dt := range []DType{Float64, Float32} {
		tol := 1e-6
		if dt == Float32 {
			tol = 2e-2
		}
		inputs := func(name string, shapes [][]int) []*Tensor {
			gen := tensor.NewGenerator(seedOf(name))
			var xs []*Tensor
			for _, s := range shapes {
				xs = append(xs, New(gen.Randn(Float64, s...).Mul(tensor.Scalar(0.5)).To(dt)))
			}
			return xs
		}
		check := func(t *testing.T, kind string, fwd, rev [][]*Tensor, xs []*Tensor, fdOf func(o, j int) [][]float64) {
			t.Helper()
			if len(fwd) != len(rev) {
				t.Fatalf("%d rows, reverse mode %d", len(fwd), len(rev))
			}
			for o := range fwd {
				for j := range fwd[o] {
					got, want := fwd[o][j], rev[o][j]
					if !slicesEqual(got.Shape(), want.Shape()) || got.DType() != dt {
						t.Fatalf("%s[%d][%d]: shape %v dtype %v, reverse mode %v %v", kind, o, j, got.Shape(), got.DType(), want.Shape(), want.DType())
					}
					if got.RequiresGrad() {
						t.Errorf("%s[%d][%d] requires grad", kind, o, j)
					}
					closeVals(t, fmt.Sprintf("%s[%d][%d] vs reverse mode", kind, o, j), got.Float64s(), want.Float64s(), 1e-5)
					closeVals(t, fmt.Sprintf("%s[%d][%d] vs finite differences", kind, o, j), got.Float64s(), flat(fdOf(o, j)), tol)
				}
			}
			for _, x := range xs {
				if x.Grad() != nil || x.RequiresGrad() {
					t.Error("forward mode touched its inputs")
				}
			}
		}
		for _, c := range jacFns {
			t.Run(fmt.Sprintf("jacobian/%s/%v", c.name, dt), func(t *testing.T) {
				xs := inputs(c.name, c.shapes)
				fwd := Jacobian(c.f, xs, JacobianStrategy(ForwardMode))
				rev := Jacobian(c.f, xs)
				check(t, "J", fwd, rev, xs, func(o, j int) [][]float64 { return fdJacobian(c.f, xs, o, j, 1e-6) })
			})
		}
		for _, c := range hesFns {
			t.Run(fmt.Sprintf("hessian/%s/%v", c.name, dt), func(t *testing.T) {
				xs := inputs(c.name, c.shapes)
				fwd := Hessian(c.f, xs, OuterJacobianStrategy(ForwardMode))
				rev := Hessian(c.f, xs)
				// Finite differences of the gradient (computed in float64).
				grad := func(in ...*Tensor) []*Tensor {
					for i := range in {
						in[i] = in[i].Detach().SetRequiresGrad(true)
					}
					g := Grad(c.f(in...), in, AllowUnused())
					for i := range g {
						if g[i] == nil {
							g[i] = ZerosLike(in[i])
						}
					}
					return g
				}
				check(t, "H", fwd, rev, xs, func(o, j int) [][]float64 { return fdJacobian(grad, xs, o, j, 1e-5) })
			})
		}
	}
}

func slicesEqual(a, b []int) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// onceSquareJvp is x² with a Jvp, marked once-differentiable: forward over
// reverse through it is refused (its tangents would be lost otherwise).
type onceSquareJvp struct{ Once }

func (onceSquareJvp) Forward(ctx *Ctx, in ...*Tensor) []*Tensor {
	ctx.SaveForBackward(in[0])
	return Outputs(in[0].Mul(in[0]))
}

func (onceSquareJvp) Backward(ctx *Ctx, g ...*Tensor) []*Tensor {
	return Outputs(g[0].Mul(ctx.SavedTensors()[0]).Mul(2))
}

func (onceSquareJvp) Jvp(ctx *Ctx, t ...*Tensor) []*Tensor {
	return Outputs(t[0].Mul(ctx.SavedTensors()[0]).Mul(2))
}
