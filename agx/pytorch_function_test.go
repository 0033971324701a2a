package agx_test

// Behaviour ported from PyTorch's own tests of custom autograd Functions
// (test_autograd.py: the Function, ctx and saved-tensor cases). The values and
// the key phrases of the error messages are PyTorch's; the code is agx's.

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// ---- helpers (prefixed pt to keep clear of other test files) ----

func ptVec(v ...float64) *agx.Tensor { return agx.FromSlice(slices.Clone(v), len(v)) }

func ptLeaf(v ...float64) *agx.Tensor { return ptVec(v...).SetRequiresGrad(true) }

func ptClose(t *testing.T, what string, got *agx.Tensor, want ...float64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: got nil, want %v", what, want)
	}
	g := got.Float64s()
	if len(g) != len(want) {
		t.Fatalf("%s: got %d values %v, want %v", what, len(g), g, want)
	}
	for i := range g {
		if math.Abs(g[i]-want[i]) > 1e-9*(1+math.Abs(want[i])) {
			t.Fatalf("%s: got %v, want %v", what, g, want)
		}
	}
}

// ptPanics runs f, expects an agx panic wrapping sentinel (when not nil) whose
// message contains every phrase, and returns the error.
func ptPanics(t *testing.T, f func(), sentinel error, phrases ...string) error {
	t.Helper()
	err := agx.Try(f)
	if err == nil {
		t.Fatalf("no panic; want one containing %q", phrases)
	}
	if sentinel != nil && !errors.Is(err, sentinel) {
		t.Fatalf("error %q does not wrap %v", err, sentinel)
	}
	for _, p := range phrases {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q lacks %q", err, p)
		}
	}
	return err
}

// ---- Functions used by the tests ----

// ptSquare: y = x², dy/dx = 2x (saves its input).
type ptSquare struct{}

func (ptSquare) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

func (ptSquare) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(x).Mul(2.0))
}

// ptExp saves its OUTPUT (example E1).
type ptExp struct{}

func (ptExp) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	y := in[0].Exp()
	ctx.SaveForBackward(y)
	return agx.Outputs(y)
}

func (ptExp) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(ctx.SavedTensors()[0]))
}

// ptMul: x·y, computing only the gradients that NeedsInputGrad asks for, and
// recording which ones it computed.
type ptMul struct{ computed *[]int }

func (ptMul) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0], in[1])
	return agx.Outputs(in[0].Mul(in[1]))
}

func (f ptMul) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	var gx, gy *agx.Tensor
	if ctx.NeedsInputGrad(0) {
		*f.computed = append(*f.computed, 0)
		gx = g[0].Mul(s[1])
	}
	if ctx.NeedsInputGrad(1) {
		*f.computed = append(*f.computed, 1)
		gy = g[0].Mul(s[0])
	}
	return agx.Outputs(gx, gy)
}

// ptTwoOut: (x²+y², x·y), example E2.
type ptTwoOut struct{}

func (ptTwoOut) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	x, y := in[0], in[1]
	ctx.SaveForBackward(x, y)
	return agx.Outputs(x.Mul(x).Add(y.Mul(y)), x.Mul(y))
}

func (ptTwoOut) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	x, y := s[0], s[1]
	gx := g[0].Mul(x).Mul(2.0).Add(g[1].Mul(y))
	gy := g[0].Mul(y).Mul(2.0).Add(g[1].Mul(x))
	return agx.Outputs(gx, gy)
}

// ptAddOne adds 1 to its input in place and marks it dirty.
type ptAddOne struct{}

func (ptAddOne) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	in[0].AddInPlace(1.0)
	ctx.MarkDirty(in[0])
	return agx.Outputs(in[0])
}

func (ptAddOne) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0]) }

// ptGradFn returns whatever grads says for the given gradient outputs; it lets a
// test choose what Backward returns.
type ptGradFn struct {
	nIn   int
	grads func(g []*agx.Tensor) []*agx.Tensor
}

func (f ptGradFn) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Mul(2.0))
}

func (f ptGradFn) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return f.grads(g) }

// ptOnceSquare is ptSquare marked once-differentiable.
type ptOnceSquare struct {
	agx.Once
	ptSquare
}

// ptNamed chooses its display name.
type ptNamed struct{ ptSquare }

func (ptNamed) Name() string { return "Quadratic" }

// ptGeneric checks that a generic type's name loses its type arguments.
type ptGeneric[T any] struct{ ptSquare }

// ptCubeFunction, ptGenericFunction and ptSourceFunction check the trailing
// "Function": dropped from a type name, kept in a chosen Name.
type ptCubeFunction struct{ ptSquare }

type ptGenericFunction[T any] struct{ ptSquare }

type ptSourceFunction struct{ ptSquare }

func (ptSourceFunction) Name() string { return "SourceFunction" }

// ---- tests ----

func TestPortFunctionMechanics(t *testing.T) {
	t.Run("forward_backward_values_A1", func(t *testing.T) {
		x := ptLeaf(2, 3)
		y := agx.Apply(ptSquare{}, x)
		ptClose(t, "y", y, 4, 9)
		y.Sum().Backward()
		ptClose(t, "x.grad", x.Grad(), 4, 6)
	})
	for _, dt := range []agx.DType{agx.Float32, agx.Float64} {
		t.Run("dtype_preserved/"+dt.String(), func(t *testing.T) {
			x := ptVec(2, -3).To(dt).SetRequiresGrad(true)
			y := agx.Apply(ptSquare{}, x)
			if y.DType() != dt {
				t.Fatalf("output dtype %v", y.DType())
			}
			y.Sum().Backward()
			if x.Grad().DType() != dt {
				t.Fatalf("grad dtype %v", x.Grad().DType())
			}
			ptClose(t, "x.grad", x.Grad(), 4, -6)
		})
	}
	t.Run("node_name_is_type_without_Function_plus_Backward", func(t *testing.T) {
		x := ptLeaf(1)
		cases := []struct {
			f    agx.Function
			want string
		}{
			{ptSquare{}, "ptSquareBackward"},
			{&ptExp{}, "ptExpBackward"},
			{ptNamed{}, "QuadraticBackward"},
			{ptGeneric[float64]{}, "ptGenericBackward"},
			{ptCubeFunction{}, "ptCubeBackward"},
			{&ptCubeFunction{}, "ptCubeBackward"},
			{ptGenericFunction[float32]{}, "ptGenericBackward"},
			{ptSourceFunction{}, "SourceFunctionBackward"},
		}
		for _, c := range cases {
			y := agx.Apply(c.f, x)
			if got := y.GradFn().Name(); got != c.want {
				t.Errorf("%T: node %q, want %q", c.f, got, c.want)
			}
			if !strings.Contains(y.String(), "grad_fn=<"+c.want+">") {
				t.Errorf("%T: String() = %q", c.f, y.String())
			}
		}
	})
	t.Run("func_closure_style", func(t *testing.T) {
		cube := agx.Func{FuncName: "Cube",
			Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				ctx.SaveForBackward(in[0])
				return agx.Outputs(in[0].Pow(3.0))
			},
			Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
				x := ctx.SavedTensors()[0]
				return agx.Outputs(g[0].Mul(x.Mul(x)).Mul(3.0))
			}}
		x := ptLeaf(1, 2)
		y := agx.Apply(cube, x)
		if y.GradFn().Name() != "CubeBackward" {
			t.Fatalf("name %q", y.GradFn().Name())
		}
		y.Sum().Backward()
		ptClose(t, "x.grad", x.Grad(), 3, 12)
		unnamed := agx.Func{Fwd: cube.Fwd, Bwd: cube.Bwd}
		if n := agx.Apply(unnamed, x).GradFn().Name(); n != "FuncBackward" {
			t.Fatalf("unnamed Func node %q", n)
		}
	})
	t.Run("no_node_when_no_input_requires_grad", func(t *testing.T) {
		y := agx.Apply(ptSquare{}, ptVec(2))
		if y.RequiresGrad() || y.GradFn() != nil {
			t.Fatalf("output of constant inputs records a node: %v", y)
		}
	})
	t.Run("forward_sees_detached_inputs", func(t *testing.T) {
		var sawReq, sawRecord bool
		f := agx.Func{FuncName: "Peek",
			Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				sawReq = in[0].RequiresGrad()
				y := in[0].Mul(3.0)
				sawRecord = y.GradFn() != nil
				return agx.Outputs(y)
			},
			Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0].Mul(3.0)) }}
		agx.Apply(f, ptLeaf(1))
		if sawReq || sawRecord {
			t.Fatalf("inside Forward: requires grad %v, recorded %v; want both false", sawReq, sawRecord)
		}
	})
	t.Run("apply_rejects_several_outputs", func(t *testing.T) {
		ptPanics(t, func() { agx.Apply(ptTwoOut{}, ptLeaf(1), ptLeaf(2)) }, tensor.ErrArg, "ApplyN")
	})
	t.Run("multiple_outputs_E2", func(t *testing.T) {
		x, y := ptLeaf(1, 2), ptLeaf(3, 4)
		outs := agx.ApplyN(ptTwoOut{}, x, y)
		ptClose(t, "x²+y²", outs[0], 10, 20)
		ptClose(t, "x·y", outs[1], 3, 8)
		if outs[0].OutputNr() != 0 || outs[1].OutputNr() != 1 || outs[0].GradFn() != outs[1].GradFn() {
			t.Fatalf("outputs should share one node at slots 0 and 1")
		}
		outs[0].Sum().Add(outs[1].Sum()).Backward()
		ptClose(t, "x.grad = 2x+y", x.Grad(), 5, 8)
		ptClose(t, "y.grad = 2y+x", y.Grad(), 7, 10)
	})
	t.Run("one_of_two_outputs_used_gets_zeros", func(t *testing.T) {
		x, y := ptLeaf(1, 2), ptLeaf(3, 4)
		outs := agx.ApplyN(ptTwoOut{}, x, y)
		outs[1].Sum().Backward()
		ptClose(t, "x.grad = y", x.Grad(), 3, 4)
		ptClose(t, "y.grad = x", y.Grad(), 1, 2)
	})
	t.Run("same_input_twice_double_backward", func(t *testing.T) {
		// x·x through a two-input Function: both saved inputs must keep x's
		// history, or the second derivative loses a term.
		var computed []int
		x := ptLeaf(3)
		y := agx.Apply(ptMul{&computed}, x, x)
		g := agx.Grad1(y, x, agx.CreateGraph())
		ptClose(t, "dy/dx", g, 6)
		ptClose(t, "d²y/dx²", agx.Grad1(g, x), 2)
	})
	t.Run("returned_input_without_mark_dirty_is_new_tensor", func(t *testing.T) {
		ident := agx.Func{FuncName: "Ident",
			Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(in[0]) },
			Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0].Mul(5.0)) }}
		x := ptLeaf(1, 2)
		y := agx.Apply(ident, x)
		if y == x || !x.IsLeaf() || y.GradFn().Name() != "IdentBackward" {
			t.Fatalf("y == x: %v, x leaf: %v, y node: %v", y == x, x.IsLeaf(), y.GradFn())
		}
		y.Sum().Backward()
		ptClose(t, "x.grad", x.Grad(), 5, 5)
	})
	t.Run("duplicated_outputs", func(t *testing.T) {
		var got []*agx.Tensor
		dup := agx.Func{FuncName: "Dup",
			Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				y := in[0].Mul(1.0)
				return agx.Outputs(y, y)
			},
			Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
				got = g
				return agx.Outputs(g[0].Add(g[1]))
			}}
		x := ptLeaf(1, 2)
		outs := agx.ApplyN(dup, x)
		// PyTorch 1.13: one object, at the last slot it was returned in.
		if outs[0] != outs[1] || outs[1].OutputNr() != 1 {
			t.Fatalf("duplicated outputs should be one tensor at slot 1")
		}
		outs[0].Sum().Add(outs[1].Mul(2.0).Sum()).Backward()
		ptClose(t, "g0", got[0], 0, 0)
		ptClose(t, "g1", got[1], 3, 3)
		ptClose(t, "x.grad", x.Grad(), 3, 3)
	})
}

func TestPortSavedTensors(t *testing.T) {
	t.Run("nil_entries_kept_in_order", func(t *testing.T) {
		var saved []*agx.Tensor
		f := agx.Func{FuncName: "SaveNil",
			Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				ctx.SaveForBackward(in[0], nil, in[1])
				return agx.Outputs(in[0].Mul(in[1]))
			},
			Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
				saved = ctx.SavedTensors()
				return agx.Outputs(g[0].Mul(saved[2]), g[0].Mul(saved[0]))
			}}
		x, y := ptLeaf(2), ptLeaf(5)
		agx.Apply(f, x, y).Backward()
		if len(saved) != 3 || saved[1] != nil {
			t.Fatalf("saved = %v, want [x nil y]", saved)
		}
		ptClose(t, "saved[0]", saved[0], 2)
		ptClose(t, "saved[2]", saved[2], 5)
		ptClose(t, "x.grad", x.Grad(), 5)
		ptClose(t, "y.grad", y.Grad(), 2)
	})
	t.Run("save_output_E1", func(t *testing.T) {
		x := ptLeaf(0, 1)
		agx.Apply(ptExp{}, x).Sum().Backward()
		ptClose(t, "x.grad = exp(x)", x.Grad(), 1, math.E)
	})
	t.Run("save_intermediate", func(t *testing.T) {
		// tanh saved as an intermediate: d tanh = 1 - tanh².
		f := agx.Func{FuncName: "Tanh2",
			Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				th := in[0].Tanh()
				ctx.SaveForBackward(th)
				return agx.Outputs(th.Mul(2.0))
			},
			Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
				th := ctx.SavedTensors()[0]
				return agx.Outputs(g[0].Mul(th.Mul(th).RSub(1.0)).Mul(2.0))
			}}
		x := ptLeaf(0, 0.5)
		agx.Apply(f, x).Sum().Backward()
		th := math.Tanh(0.5)
		ptClose(t, "x.grad", x.Grad(), 2, 2*(1-th*th))
	})
	t.Run("saved_input_modified_in_place", func(t *testing.T) {
		a := ptLeaf(1, 2)
		x := a.Mul(1.0)
		y := agx.Apply(ptSquare{}, x)
		x.AddInPlace(1.0)
		ptPanics(t, func() { y.Sum().Backward() }, agx.ErrInplace,
			"has been modified by an inplace operation", "ptSquareBackward", "is at version 1; expected version 0 instead")
	})
	t.Run("saved_leaf_modified_under_nograd", func(t *testing.T) {
		x := ptLeaf(1, 2)
		y := agx.Apply(ptSquare{}, x)
		agx.NoGrad(func() { x.MulInPlace(2.0) })
		ptPanics(t, func() { y.Sum().Backward() }, agx.ErrInplace,
			"has been modified by an inplace operation", "which is a leaf")
	})
	t.Run("saved_output_modified_in_place", func(t *testing.T) {
		x := ptLeaf(1, 2)
		y := agx.Apply(ptExp{}, x)
		y.AddInPlace(1.0)
		ptPanics(t, func() { y.Sum().Backward() }, agx.ErrInplace,
			"has been modified by an inplace operation", "output 0 of ptExpBackward")
	})
	t.Run("backward_twice_frees_saved", func(t *testing.T) {
		x := ptLeaf(3)
		y := agx.Apply(ptSquare{}, x)
		y.Backward()
		ptPanics(t, func() { y.Backward() }, agx.ErrGraph,
			"Trying to backward through the graph a second time", "RetainGraph")
	})
	t.Run("saved_tensors_access_after_free", func(t *testing.T) {
		var ctx *agx.Ctx
		f := agx.Func{FuncName: "Keep",
			Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				ctx = c
				c.SaveForBackward(in[0])
				return agx.Outputs(in[0].Mul(2.0))
			},
			Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0].Mul(2.0)) }}
		agx.Apply(f, ptLeaf(1)).Backward()
		ptPanics(t, func() { ctx.SavedTensors() }, agx.ErrGraph, "after they have already been freed")
	})
	t.Run("retain_graph_allows_second_backward", func(t *testing.T) {
		x := ptLeaf(3)
		y := agx.Apply(ptSquare{}, x)
		y.Backward(agx.RetainGraph())
		y.Backward()
		ptClose(t, "x.grad accumulated twice", x.Grad(), 12)
	})
	t.Run("save_outside_forward", func(t *testing.T) {
		f := agx.Func{FuncName: "Late",
			Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(in[0].Mul(2.0)) },
			Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
				c.SaveForBackward(g[0])
				return agx.Outputs(g[0])
			}}
		y := agx.Apply(f, ptLeaf(1))
		ptPanics(t, func() { y.Backward() }, agx.ErrGraph, "SaveForBackward can only be called in Forward")
	})
}

func TestPortCtx(t *testing.T) {
	t.Run("needs_input_grad_only_needed_computed", func(t *testing.T) {
		for _, tc := range []struct {
			name       string
			reqX, reqY bool
			want       []int
		}{
			{"x_only", true, false, []int{0}},
			{"y_only", false, true, []int{1}},
			{"both", true, true, []int{0, 1}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var computed []int
				x, y := ptVec(2, 3).SetRequiresGrad(tc.reqX), ptVec(4, 5).SetRequiresGrad(tc.reqY)
				agx.Apply(ptMul{&computed}, x, y).Sum().Backward()
				if !slices.Equal(computed, tc.want) {
					t.Fatalf("computed %v, want %v", computed, tc.want)
				}
				if tc.reqX {
					ptClose(t, "x.grad", x.Grad(), 4, 5)
				} else if x.Grad() != nil {
					t.Fatalf("x.grad = %v, want nil", x.Grad())
				}
				if tc.reqY {
					ptClose(t, "y.grad", y.Grad(), 2, 3)
				} else if y.Grad() != nil {
					t.Fatalf("y.grad = %v, want nil", y.Grad())
				}
			})
		}
	})
	t.Run("mark_dirty_returns_callers_object", func(t *testing.T) {
		a := ptLeaf(1, 2)
		x := a.Mul(1.0)
		v0 := x.Version()
		r := agx.Apply(ptAddOne{}, x)
		if r != x {
			t.Fatalf("Apply returned a new tensor for a dirty input")
		}
		if x.Version() <= v0 {
			t.Fatalf("version %d not bumped from %d", x.Version(), v0)
		}
		if x.GradFn().Name() != "ptAddOneBackward" {
			t.Fatalf("history not rebased: %v", x.GradFn())
		}
		ptClose(t, "x", x, 2, 3)
		x.Mul(x).Sum().Backward()
		ptClose(t, "a.grad = 2(a+1)", a.Grad(), 4, 6)
	})
	t.Run("mark_dirty_leaf_requiring_grad", func(t *testing.T) {
		x := ptLeaf(1, 2)
		ptPanics(t, func() { agx.Apply(ptAddOne{}, x) }, agx.ErrGraph,
			"a leaf Variable that requires grad is being used in an in-place operation")
	})
	t.Run("mark_dirty_leaf_not_requiring_grad_with_other_input", func(t *testing.T) {
		// The dirty input is a constant leaf; another input requires grad.
		f := agx.Func{FuncName: "AddInto",
			Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				in[0].AddInPlace(in[1])
				c.MarkDirty(in[0])
				return agx.Outputs(in[0])
			},
			Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0], g[0]) }}
		buf, w := ptVec(10, 20), ptLeaf(1, 2)
		r := agx.Apply(f, buf, w)
		if r != buf || buf.GradFn() == nil || buf.GradFn().Name() != "AddIntoBackward" {
			t.Fatalf("r == buf %v, node %v", r == buf, buf.GradFn())
		}
		ptClose(t, "buf", buf, 11, 22)
		buf.Sum().Backward()
		ptClose(t, "w.grad", w.Grad(), 1, 1)
	})
	t.Run("mark_dirty_non_input", func(t *testing.T) {
		f := agx.Func{FuncName: "BadDirty",
			Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				y := in[0].Mul(2.0)
				c.MarkDirty(y)
				return agx.Outputs(y)
			},
			Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0]) }}
		ptPanics(t, func() { agx.Apply(f, ptLeaf(1)) }, agx.ErrGraph, "not an input")
	})
	for _, materialize := range []bool{true, false} {
		name := "mark_non_differentiable/materialize"
		if !materialize {
			name = "mark_non_differentiable/no_materialize"
		}
		t.Run(name, func(t *testing.T) {
			var got []*agx.Tensor
			f := agx.Func{FuncName: "WithMask",
				Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
					c.SetMaterializeGrads(materialize)
					mask := in[0].Gt(0.0).To(agx.Float64)
					c.MarkNonDifferentiable(mask)
					return agx.Outputs(in[0].Mul(mask), mask)
				},
				Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
					got = g
					return agx.Outputs(g[0])
				}}
			x := ptLeaf(-1, 2)
			outs := agx.ApplyN(f, x)
			if outs[1].RequiresGrad() || outs[1].GradFn() != nil {
				t.Fatalf("non-differentiable output requires grad: %v", outs[1])
			}
			if !outs[0].RequiresGrad() {
				t.Fatalf("differentiable output does not require grad")
			}
			outs[0].Sum().Backward()
			ptClose(t, "g0", got[0], 1, 1)
			if materialize {
				ptClose(t, "g1 (zeros)", got[1], 0, 0)
			} else if got[1] != nil {
				t.Fatalf("g1 = %v, want nil", got[1])
			}
		})
	}
	for _, materialize := range []bool{true, false} {
		name := "set_materialize_grads/true"
		if !materialize {
			name = "set_materialize_grads/false"
		}
		t.Run(name, func(t *testing.T) {
			var got []*agx.Tensor
			f := agx.Func{FuncName: "Pair",
				Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
					c.SetMaterializeGrads(materialize)
					return agx.Outputs(in[0].Mul(2.0), in[0].Mul(3.0))
				},
				Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
					got = g
					var gx *agx.Tensor
					if g[0] != nil {
						gx = g[0].Mul(2.0)
					}
					if g[1] != nil {
						gx = g[1].Mul(3.0).Add(gx)
					}
					return agx.Outputs(gx)
				}}
			x := ptLeaf(1, 2)
			outs := agx.ApplyN(f, x)
			outs[0].Sum().Backward()
			if materialize {
				ptClose(t, "g1 materialized", got[1], 0, 0)
			} else if got[1] != nil {
				t.Fatalf("g1 = %v, want nil", got[1])
			}
			ptClose(t, "x.grad", x.Grad(), 2, 2)
		})
	}
	t.Run("ctx_set_refuses_tensors", func(t *testing.T) {
		for _, v := range []any{ptVec(1), ptVec(1).Data(), []*agx.Tensor{ptVec(1)}} {
			f := agx.Func{FuncName: "Stash",
				Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
					c.Set("t", v)
					return agx.Outputs(in[0].Mul(1.0))
				},
				Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0]) }}
			ptPanics(t, func() { agx.Apply(f, ptLeaf(1)) }, tensor.ErrArg, "SaveForBackward", "refusing to store a tensor")
		}
	})
	t.Run("ctx_value_C1", func(t *testing.T) {
		var got int
		f := agx.Func{FuncName: "Template",
			Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				c.Set("constant", 42)
				c.SaveForBackward(in[0])
				return agx.Outputs(in[0].Mul(in[0]))
			},
			Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
				got = agx.CtxValue[int](c, "constant")
				return agx.Outputs(g[0].Mul(c.SavedTensors()[0]).Mul(2.0))
			}}
		x := ptLeaf(3)
		agx.Apply(f, x).Backward()
		ptClose(t, "x.grad", x.Grad(), 6)
		if got != 42 {
			t.Fatalf("ctx value %d, want 42", got)
		}
	})
	for _, tc := range []struct {
		name  string
		get   func(c *agx.Ctx)
		words []string
	}{
		{"ctx_value_missing", func(c *agx.Ctx) { agx.CtxValue[float64](c, "nope") }, []string{"no value stored under \"nope\""}},
		{"ctx_value_wrong_type", func(c *agx.Ctx) { agx.CtxValue[float64](c, "n") }, []string{"is a int, not a float64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := agx.Func{FuncName: "Typed",
				Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
					c.Set("n", 7)
					return agx.Outputs(in[0].Mul(1.0))
				},
				Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
					tc.get(c)
					return agx.Outputs(g[0])
				}}
			y := agx.Apply(f, ptLeaf(1))
			ptPanics(t, func() { y.Backward() }, tensor.ErrArg, tc.words...)
		})
	}
	t.Run("once_differentiable_C10", func(t *testing.T) {
		x := ptLeaf(3)
		y := agx.Apply(ptOnceSquare{}, x)
		y.Backward(agx.RetainGraph())
		ptClose(t, "first backward", x.Grad(), 6)
		g := agx.Grad1(y, x, agx.CreateGraph())
		ptClose(t, "first derivative with CreateGraph", g, 6)
		ptPanics(t, func() { g.Backward() }, agx.ErrOnceDifferentiable, "once-differentiable", "ptOnceSquareBackward")
	})
	t.Run("once_differentiable_func_flag", func(t *testing.T) {
		sq := agx.Func{FuncName: "OnceSq", Once: true, Fwd: ptSquare{}.Forward, Bwd: ptSquare{}.Backward}
		x := ptLeaf(2)
		g := agx.Grad1(agx.Apply(sq, x), x, agx.CreateGraph())
		ptClose(t, "dy/dx", g, 4)
		ptPanics(t, func() { agx.Grad1(g, x) }, agx.ErrOnceDifferentiable, "once-differentiable")
	})
}
