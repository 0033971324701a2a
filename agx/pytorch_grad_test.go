package agx_test

// Behaviour ported from PyTorch's tests of the engine and the grad API
// (test_autograd.py: backward/grad options, validation of returned gradients,
// hooks, no_grad, detach, in-place ops, anomaly mode).

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

func TestPortGradientValidation(t *testing.T) {
	t.Run("wrong_count", func(t *testing.T) {
		f := agx.Func{FuncName: "Short",
			Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(in[0].Mul(in[1])) },
			Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0]) }}
		y := agx.Apply(f, ptLeaf(1), ptLeaf(2))
		ptPanics(t, func() { y.Backward() }, agx.ErrGradient,
			"ShortBackward returned an incorrect number of gradients (expected 2, got 1)")
	})
	t.Run("too_many", func(t *testing.T) {
		f := ptGradFn{grads: func(g []*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0], g[0]) }}
		y := agx.Apply(f, ptLeaf(1))
		ptPanics(t, func() { y.Backward() }, agx.ErrGradient, "incorrect number of gradients (expected 1, got 2)")
	})
	t.Run("broadcastable_shape_summed_down", func(t *testing.T) {
		// Input [3], gradient [2,3]: summed over the leading dim.
		f := ptGradFn{grads: func(g []*agx.Tensor) []*agx.Tensor {
			return agx.Outputs(agx.FromSlice([]float64{1, 2, 3, 10, 20, 30}, 2, 3))
		}}
		x := ptLeaf(0, 0, 0)
		agx.Apply(f, x).Sum().Backward()
		ptClose(t, "x.grad", x.Grad(), 11, 22, 33)
	})
	t.Run("size_one_dim_broadcast", func(t *testing.T) {
		// Input [2,1], gradient [2,3]: summed over the size-1 dim.
		f := ptGradFn{grads: func(g []*agx.Tensor) []*agx.Tensor {
			return agx.Outputs(agx.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3))
		}}
		x := agx.FromSlice([]float64{1, 2}, 2, 1).SetRequiresGrad(true)
		agx.Apply(f, x).Sum().Backward()
		if s := x.Grad().Shape(); len(s) != 2 || s[0] != 2 || s[1] != 1 {
			t.Fatalf("grad shape %v", s)
		}
		ptClose(t, "x.grad", x.Grad(), 6, 15)
	})
	t.Run("non_broadcastable_shape_E3", func(t *testing.T) {
		// Backward returns the scalar upstream gradient for a vector input.
		e3 := agx.Func{FuncName: "E3",
			Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(in[0].Sum()) },
			Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0]) }}
		x := ptLeaf(1, 2, 3)
		y := agx.Apply(e3, x)
		ptPanics(t, func() { y.Backward() }, agx.ErrGradient,
			"invalid gradient at index 0 - got [] but expected shape compatible with [3]", "E3Backward")
		// The fix: expand the gradient to the input's shape.
		fixed := e3
		fixed.Bwd = func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
			return agx.Outputs(g[0].Expand(3))
		}
		x2 := ptLeaf(1, 2, 3)
		agx.Apply(fixed, x2).Backward()
		ptClose(t, "fixed x.grad", x2.Grad(), 1, 1, 1)
	})
	t.Run("wrong_shape_not_broadcastable", func(t *testing.T) {
		f := ptGradFn{grads: func(g []*agx.Tensor) []*agx.Tensor { return agx.Outputs(ptVec(1, 2)) }}
		y := agx.Apply(f, ptLeaf(1, 2, 3))
		ptPanics(t, func() { y.Sum().Backward() }, agx.ErrGradient, "got [2] but expected shape compatible with [3]")
	})
	t.Run("dtype_cast_to_input", func(t *testing.T) {
		f := ptGradFn{grads: func(g []*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0].To(agx.Float32).Mul(2.0)) }}
		x := ptLeaf(1, 2)
		agx.Apply(f, x).Sum().Backward()
		if x.Grad().DType() != agx.Float64 {
			t.Fatalf("grad dtype %v, want float64", x.Grad().DType())
		}
		ptClose(t, "x.grad", x.Grad(), 2, 2)
	})
	t.Run("integer_gradient_rejected", func(t *testing.T) {
		f := ptGradFn{grads: func(g []*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0].To(agx.Int64)) }}
		y := agx.Apply(f, ptLeaf(1, 2))
		ptPanics(t, func() { y.Sum().Backward() }, agx.ErrGradient, "invalid gradient at index 0", "floating point")
	})
	t.Run("grad_for_input_needing_none_dropped", func(t *testing.T) {
		f := agx.Func{FuncName: "Both",
			Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(in[0].Mul(in[1])) },
			// Even a wrongly shaped gradient for the constant input is ignored.
			Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0].Mul(4.0), ptVec(9, 9, 9)) }}
		x, k := ptLeaf(1, 2), ptVec(4, 4)
		agx.Apply(f, x, k).Sum().Backward()
		ptClose(t, "x.grad", x.Grad(), 4, 4)
		if k.Grad() != nil {
			t.Fatalf("constant input got a gradient %v", k.Grad())
		}
	})
	t.Run("nil_gradient_means_none", func(t *testing.T) {
		f := ptGradFn{grads: func(g []*agx.Tensor) []*agx.Tensor { return agx.Outputs(nil) }}
		x := ptLeaf(1, 2)
		agx.Apply(f, x).Sum().Backward()
		if x.Grad() != nil {
			t.Fatalf("x.grad = %v, want nil", x.Grad())
		}
	})
}

func TestPortBackwardAPI(t *testing.T) {
	t.Run("explicit_gradient", func(t *testing.T) {
		x := ptLeaf(1, 2, 3)
		x.Mul(2.0).Backward(agx.Gradient(ptVec(1, 10, 100)))
		ptClose(t, "x.grad", x.Grad(), 2, 20, 200)
	})
	t.Run("non_scalar_without_gradient", func(t *testing.T) {
		x := ptLeaf(1, 2)
		ptPanics(t, func() { x.Mul(2.0).Backward() }, agx.ErrGraph, "grad can be implicitly created only for scalar outputs")
	})
	t.Run("gradient_shape_mismatch", func(t *testing.T) {
		x := ptLeaf(1, 2)
		ptPanics(t, func() { x.Mul(2.0).Backward(agx.Gradient(ptVec(1, 2, 3))) }, agx.ErrGraph, "mismatch in shape")
	})
	t.Run("tensor_not_requiring_grad", func(t *testing.T) {
		ptPanics(t, func() { ptVec(1).Mul(2.0).Backward() }, agx.ErrGraph,
			"does not require grad and does not have a grad_fn")
	})
	t.Run("accumulates_over_two_backwards", func(t *testing.T) {
		x := ptLeaf(1, 2)
		for i := 0; i < 2; i++ {
			x.Mul(x).Sum().Backward()
		}
		ptClose(t, "x.grad = 2·2x", x.Grad(), 4, 8)
		x.ZeroGrad()
		if x.Grad() != nil {
			t.Fatalf("ZeroGrad left %v", x.Grad())
		}
	})
	t.Run("backward_twice_without_saved_tensors_ok", func(t *testing.T) {
		// Add and Sum save nothing, so a second pass needs no RetainGraph.
		x := ptLeaf(2)
		z := x.Add(1.0).Sum()
		z.Backward()
		z.Backward()
		ptClose(t, "x.grad", x.Grad(), 2)
	})
	t.Run("same_output_twice", func(t *testing.T) {
		x := ptLeaf(2)
		y := x.Mul(x)
		ptClose(t, "2·2x", agx.Grad([]*agx.Tensor{y, y}, []*agx.Tensor{x})[0], 8)
	})
	t.Run("accumulated_grad_does_not_alias_gradient_output", func(t *testing.T) {
		// The first gradient stored in .grad must not be mutated by the
		// second accumulation when it is the caller's tensor.
		x := ptLeaf(1, 2)
		g := ptVec(1, 1)
		x.Mul(1.0).Backward(agx.Gradient(g))
		x.Mul(1.0).Backward(agx.Gradient(g))
		ptClose(t, "x.grad", x.Grad(), 2, 2)
		ptClose(t, "caller's gradient untouched", g, 1, 1)
	})
}

func TestPortGradAPI(t *testing.T) {
	t.Run("grad_outputs", func(t *testing.T) {
		x := ptLeaf(1, 2)
		g := agx.Grad([]*agx.Tensor{x.Mul(x)}, []*agx.Tensor{x}, agx.GradOutputs(ptVec(3, 5)))
		ptClose(t, "dx", g[0], 6, 20)
	})
	t.Run("does_not_accumulate_into_grad", func(t *testing.T) {
		x := ptLeaf(1, 2)
		agx.Grad1(x.Mul(x).Sum(), x)
		if x.Grad() != nil {
			t.Fatalf("Grad accumulated into x.grad: %v", x.Grad())
		}
	})
	for _, tc := range []struct {
		name string
		f    func(x *agx.Tensor) *agx.Tensor
	}{
		{"builtin_mul", func(x *agx.Tensor) *agx.Tensor { return x.Mul(x) }},
		{"builtin_pow", func(x *agx.Tensor) *agx.Tensor { return x.Pow(2.0) }},
		{"custom_square", func(x *agx.Tensor) *agx.Tensor { return agx.Apply(ptSquare{}, x) }},
	} {
		t.Run("create_graph_C9/"+tc.name, func(t *testing.T) {
			x := ptLeaf(3)
			y := tc.f(x)
			g := agx.Grad1(y, x, agx.CreateGraph())
			ptClose(t, "dy/dx", g, 6)
			if !g.RequiresGrad() {
				t.Fatalf("gradient with CreateGraph does not require grad")
			}
			g2 := agx.Grad1(g, x)
			ptClose(t, "d²y/dx²", g2, 2)
		})
	}
	t.Run("create_graph_backward_accumulates_second_derivative", func(t *testing.T) {
		x := ptLeaf(2)
		y := x.Pow(3.0)
		g := agx.Grad1(y, x, agx.CreateGraph())
		g.Backward()
		ptClose(t, "x.grad = 6x", x.Grad(), 12)
	})
	t.Run("allow_unused", func(t *testing.T) {
		x, z := ptLeaf(1), ptLeaf(2)
		y := x.Mul(3.0)
		g := agx.Grad([]*agx.Tensor{y}, []*agx.Tensor{x, z}, agx.AllowUnused())
		ptClose(t, "dx", g[0], 3)
		if g[1] != nil {
			t.Fatalf("unused input got %v, want nil", g[1])
		}
	})
	t.Run("unused_input_error", func(t *testing.T) {
		x, z := ptLeaf(1), ptLeaf(2)
		y := x.Mul(3.0)
		ptPanics(t, func() { agx.Grad([]*agx.Tensor{y}, []*agx.Tensor{x, z}) }, agx.ErrGraph,
			"appears to not have been used in the graph", "AllowUnused")
	})
	t.Run("runs_only_nodes_on_a_path_to_inputs", func(t *testing.T) {
		x, z := ptLeaf(1), ptLeaf(2)
		side := z.Sin()
		calls := 0
		side.GradFn().RegisterPreHook(func(g []*agx.Tensor) []*agx.Tensor { calls++; return nil })
		y := x.Exp().Add(side)
		g := agx.Grad1(y, x, agx.RetainGraph())
		ptClose(t, "dx", g, math.E)
		if calls != 0 {
			t.Fatalf("unrelated branch ran %d times during Grad", calls)
		}
		y.Backward()
		if calls != 1 {
			t.Fatalf("Backward ran the branch %d times, want 1", calls)
		}
		ptClose(t, "z.grad", z.Grad(), math.Cos(2))
	})
	t.Run("captured_node_is_not_run_or_freed", func(t *testing.T) {
		// Grad with respect to h must not run (and free) h's own node:
		// a later backward through h still works.
		x := ptLeaf(1)
		h := x.Exp()
		calls := 0
		h.GradFn().RegisterPreHook(func(g []*agx.Tensor) []*agx.Tensor { calls++; return nil })
		ptClose(t, "dy/dh", agx.Grad1(h.Mul(2.0), h), 2)
		if calls != 0 {
			t.Fatalf("captured node ran %d times", calls)
		}
		h.Mul(3.0).Backward()
		ptClose(t, "x.grad", x.Grad(), 3*math.E)
	})
	t.Run("input_not_requiring_grad", func(t *testing.T) {
		x := ptLeaf(1)
		ptPanics(t, func() { agx.Grad1(x.Mul(2.0), ptVec(1)) }, agx.ErrGraph, "does not require grad")
	})
	t.Run("grad_outputs_count", func(t *testing.T) {
		x := ptLeaf(1)
		ptPanics(t, func() { agx.Grad([]*agx.Tensor{x.Sum()}, []*agx.Tensor{x}, agx.GradOutputs(ptVec(1), ptVec(1))) },
			agx.ErrGraph, "got 2 gradient outputs for 1 outputs")
	})
	t.Run("no_inputs", func(t *testing.T) {
		x := ptLeaf(1)
		ptPanics(t, func() { agx.Grad([]*agx.Tensor{x.Sum()}, nil) }, agx.ErrGraph, "at least one input")
	})
	t.Run("grad_wrt_non_leaf", func(t *testing.T) {
		x := ptLeaf(2)
		h := x.Mul(3.0)
		y := h.Mul(h)
		ptClose(t, "dy/dh", agx.Grad1(y, h), 12)
	})
	t.Run("multiple_outputs_summed", func(t *testing.T) {
		x := ptLeaf(2)
		g := agx.Grad([]*agx.Tensor{x.Mul(x), x.Mul(5.0)}, []*agx.Tensor{x})
		ptClose(t, "2x+5", g[0], 9)
	})
}

func TestPortHooks(t *testing.T) {
	t.Run("leaf_hook_sees_and_replaces", func(t *testing.T) {
		x := ptLeaf(1, 2)
		var seen *agx.Tensor
		h := x.RegisterHook(func(g *agx.Tensor) *agx.Tensor { seen = g; return g.Mul(10.0) })
		x.Mul(x).Sum().Backward()
		ptClose(t, "hook saw 2x", seen, 2, 4)
		ptClose(t, "x.grad replaced", x.Grad(), 20, 40)
		h.Remove()
		x.ZeroGrad()
		seen = nil
		x.Mul(x).Sum().Backward()
		if seen != nil {
			t.Fatalf("removed hook was called")
		}
		ptClose(t, "x.grad after Remove", x.Grad(), 2, 4)
	})
	t.Run("non_leaf_hook_replaces", func(t *testing.T) {
		x := ptLeaf(1, 2)
		h := x.Mul(2.0)
		var seen *agx.Tensor
		h.RegisterHook(func(g *agx.Tensor) *agx.Tensor { seen = g; return g.Mul(3.0) })
		h.Sum().Backward()
		ptClose(t, "hook saw ones", seen, 1, 1)
		ptClose(t, "x.grad = 3·2", x.Grad(), 6, 6)
	})
	for _, tc := range []struct {
		name   string
		hook   func(g *agx.Tensor) *agx.Tensor
		phrase string
	}{
		{"size", func(g *agx.Tensor) *agx.Tensor { return g.Sum() }, "hook has changed the size of value (was [2] got [])"},
		{"type", func(g *agx.Tensor) *agx.Tensor { return g.To(agx.Float32) }, "hook has changed the type of value (was float64 got float32)"},
	} {
		t.Run("hook_changes_"+tc.name+"/leaf", func(t *testing.T) {
			x := ptLeaf(1, 2)
			x.RegisterHook(tc.hook)
			ptPanics(t, func() { x.Mul(x).Sum().Backward() }, agx.ErrGradient, tc.phrase)
			if x.Grad() != nil {
				t.Fatalf("x.grad = %v after a rejected hook", x.Grad())
			}
		})
		t.Run("hook_changes_"+tc.name+"/non_leaf", func(t *testing.T) {
			a := ptLeaf(1, 2)
			h := a.Mul(2.0)
			h.RegisterHook(tc.hook)
			ptPanics(t, func() { h.Mul(h).Sum().Backward() }, agx.ErrGradient, tc.phrase)
		})
	}
	t.Run("hook_on_non_requiring_tensor", func(t *testing.T) {
		ptPanics(t, func() { ptVec(1).RegisterHook(func(g *agx.Tensor) *agx.Tensor { return nil }) },
			agx.ErrGraph, "doesn't require gradient")
	})
	t.Run("node_pre_hook_replaces_grad_outputs", func(t *testing.T) {
		x := ptLeaf(1, 2)
		y := agx.Apply(ptSquare{}, x)
		y.GradFn().RegisterPreHook(func(g []*agx.Tensor) []*agx.Tensor {
			return []*agx.Tensor{g[0].Mul(0.5)}
		})
		y.Sum().Backward()
		ptClose(t, "x.grad = x", x.Grad(), 1, 2)
	})
	t.Run("node_post_hook_sees_and_replaces", func(t *testing.T) {
		x := ptLeaf(1, 2)
		y := x.Mul(3.0)
		var in, out []*agx.Tensor
		y.GradFn().RegisterHook(func(gi, gout []*agx.Tensor) []*agx.Tensor {
			in, out = gi, gout
			return []*agx.Tensor{gi[0].Add(1.0), nil}
		})
		y.Sum().Backward()
		ptClose(t, "grad output", out[0], 1, 1)
		ptClose(t, "grad input", in[0], 3, 3)
		ptClose(t, "x.grad replaced", x.Grad(), 4, 4)
	})
	t.Run("node_hook_remove", func(t *testing.T) {
		x := ptLeaf(1)
		y := x.Mul(3.0)
		calls := 0
		h := y.GradFn().RegisterPreHook(func(g []*agx.Tensor) []*agx.Tensor { calls++; return nil })
		h.Remove()
		y.Backward()
		if calls != 0 {
			t.Fatalf("removed pre-hook called %d times", calls)
		}
	})
	t.Run("retain_grad_non_leaf", func(t *testing.T) {
		x := ptLeaf(1, 2)
		h := x.Mul(2.0).RetainGrad()
		k := x.Mul(2.0)
		h.Mul(h).Sum().Add(k.Sum()).Backward()
		ptClose(t, "h.grad = 2h", h.Grad(), 4, 8)
		if k.Grad() != nil {
			t.Fatalf("non-leaf without RetainGrad kept %v", k.Grad())
		}
	})
	t.Run("retain_grad_accumulates_over_two_backwards", func(t *testing.T) {
		// PyTorch 1.13: h.grad after two passes is 2·(2h) = [8, 16].
		a := ptLeaf(1, 2)
		h := a.Mul(2.0).RetainGrad()
		s := h.Mul(h).Sum()
		s.Backward(agx.RetainGraph())
		s.Backward()
		ptClose(t, "h.grad", h.Grad(), 8, 16)
		ptClose(t, "a.grad", a.Grad(), 16, 32)
	})
	t.Run("leaf_hook_not_applied_by_grad", func(t *testing.T) {
		// As in PyTorch 1.13, Grad returns the gradient before the leaf's
		// hooks (which run when it is accumulated into .grad).
		x := ptLeaf(1, 2)
		calls := 0
		x.RegisterHook(func(g *agx.Tensor) *agx.Tensor { calls++; return g.Mul(10.0) })
		ptClose(t, "dx", agx.Grad1(x.Mul(x).Sum(), x), 2, 4)
		if calls != 0 || x.Grad() != nil {
			t.Fatalf("hook calls %d, x.grad %v", calls, x.Grad())
		}
	})
	t.Run("retain_grad_then_in_place", func(t *testing.T) {
		// PyTorch 1.13: the retained gradient is that of the new value.
		a := ptLeaf(1, 2)
		h := a.Mul(2.0).RetainGrad()
		h.AddInPlace(1.0)
		h.Mul(h).Sum().Backward()
		ptClose(t, "h.grad = 2(2a+1)", h.Grad(), 6, 10)
		ptClose(t, "a.grad", a.Grad(), 12, 20)
	})
	t.Run("retain_grad_with_hook", func(t *testing.T) {
		x := ptLeaf(1)
		h := x.Mul(2.0).RetainGrad()
		h.RegisterHook(func(g *agx.Tensor) *agx.Tensor { return g.Mul(5.0) })
		h.Backward()
		ptClose(t, "h.grad sees hooked grad", h.Grad(), 5)
		ptClose(t, "x.grad", x.Grad(), 10)
	})
}

func TestPortTensorState(t *testing.T) {
	t.Run("no_grad_scope", func(t *testing.T) {
		x := ptLeaf(1, 2)
		var y, f *agx.Tensor
		agx.NoGrad(func() {
			if agx.IsGradEnabled() {
				t.Errorf("grad enabled inside NoGrad")
			}
			y = x.Mul(2.0)
			f = agx.Apply(ptSquare{}, x)
		})
		if !agx.IsGradEnabled() {
			t.Fatalf("grad still disabled after NoGrad")
		}
		if y.RequiresGrad() || y.GradFn() != nil || f.RequiresGrad() {
			t.Fatalf("ops under NoGrad recorded: %v %v", y, f)
		}
		ptClose(t, "values still computed", y, 2, 4)
	})
	t.Run("set_requires_grad_non_leaf", func(t *testing.T) {
		y := ptLeaf(1).Mul(2.0)
		ptPanics(t, func() { y.SetRequiresGrad(false) }, agx.ErrGraph,
			"you can only change requires_grad flags of leaf variables", "Detach")
	})
	t.Run("set_requires_grad_int64", func(t *testing.T) {
		ptPanics(t, func() { agx.FromSlice([]int64{1, 2}, 2).SetRequiresGrad(true) }, tensor.ErrDType,
			"only Tensors of floating point dtype can require gradients")
	})
	t.Run("detach_shares_data_and_version", func(t *testing.T) {
		x := ptLeaf(1, 2)
		y := x.Mul(x)
		d := x.Detach()
		if d.RequiresGrad() || !d.IsLeaf() {
			t.Fatalf("detached tensor requires grad")
		}
		v := x.Version()
		d.AddInPlace(1.0)
		ptClose(t, "x sees the write", x, 2, 3)
		if x.Version() != v+1 || d.Version() != x.Version() {
			t.Fatalf("versions x %d d %d, want %d", x.Version(), d.Version(), v+1)
		}
		ptPanics(t, func() { y.Sum().Backward() }, agx.ErrInplace, "has been modified by an inplace operation")
	})
	t.Run("matmul_1d_dot", func(t *testing.T) {
		x, y := ptLeaf(1, 2, 3), ptLeaf(4, 5, 6)
		d := x.MatMul(y)
		if d.Dim() != 0 || d.Item() != 32 {
			t.Fatalf("dot = %v (shape %v), want 0-d 32", d, d.Shape())
		}
		d.Backward()
		ptClose(t, "x.grad = y", x.Grad(), 4, 5, 6)
		ptClose(t, "y.grad = x", y.Grad(), 1, 2, 3)
	})
	t.Run("item_of_several_elements", func(t *testing.T) {
		ptPanics(t, func() { ptVec(1, 2).Item() }, nil, "a tensor with 2 elements", "cannot be converted to a scalar")
	})
	t.Run("item_and_grad_fn", func(t *testing.T) {
		x := ptLeaf(4)
		y := x.Mul(x)
		if y.Item() != 16 || y.GradFn().Name() != "MulBackward0" || !x.IsLeaf() || x.GradFn() != nil {
			t.Fatalf("item %v node %v", y.Item(), y.GradFn())
		}
		next := y.GradFn().NextFunctions()
		if len(next) != 2 || next[0].Node.Name() != "AccumulateGrad" || next[0].Node != next[1].Node {
			t.Fatalf("next functions %v", next)
		}
	})
}

func TestPortInPlace(t *testing.T) {
	t.Run("add_in_place_on_non_leaf_rebases_history", func(t *testing.T) {
		a := ptLeaf(1, 2)
		h := a.Mul(2.0)
		old := h.GradFn()
		h.AddInPlace(1.0)
		if h.GradFn() == old || h.GradFn().Name() != "AddBackward0" {
			t.Fatalf("history not rebased: %v", h.GradFn())
		}
		ptClose(t, "h", h, 3, 5)
		h.Mul(h).Sum().Backward()
		ptClose(t, "a.grad = 2h·2", a.Grad(), 12, 20)
	})
	t.Run("exp_output_modified_then_backward", func(t *testing.T) {
		x := ptLeaf(0, 1)
		y := x.Exp()
		y.AddInPlace(1.0)
		ptPanics(t, func() { y.Sum().Backward() }, agx.ErrInplace,
			"has been modified by an inplace operation", "output 0 of ExpBackward0", "is at version 1; expected version 0")
	})
	// Values from PyTorch 1.13: in-place ops whose backward needs the value
	// before the write (mul_, div_, clamp_) keep working.
	for _, tc := range []struct {
		name   string
		run    func() (got []*agx.Tensor)
		want   [][]float64
		labels []string
	}{
		{"mul_constant_by_param", func() []*agx.Tensor {
			c, w := ptVec(1, 2), ptLeaf(5, 5)
			c.MulInPlace(w)
			c.Sum().Backward()
			return []*agx.Tensor{c, w.Grad()}
		}, [][]float64{{5, 10}, {1, 2}}, []string{"c", "w.grad"}},
		{"clamp_non_leaf", func() []*agx.Tensor {
			a := ptLeaf(1, 2)
			h := a.Mul(1.0)
			h.ClampInPlace(0, 1.5)
			h.Sum().Backward()
			return []*agx.Tensor{a.Grad()}
		}, [][]float64{{1, 0}}, []string{"a.grad"}},
		{"div_non_leaf_by_param", func() []*agx.Tensor {
			a, w := ptLeaf(1, 2), ptLeaf(3, 4)
			h := a.Mul(1.0)
			h.DivInPlace(w)
			h.Sum().Backward()
			return []*agx.Tensor{a.Grad(), w.Grad()}
		}, [][]float64{{1.0 / 3, 0.25}, {-1.0 / 9, -2.0 / 16}}, []string{"a.grad", "w.grad"}},
		{"exp_non_leaf", func() []*agx.Tensor {
			a := ptLeaf(1, 2)
			h := a.Mul(1.0)
			h.ExpInPlace()
			h.Sum().Backward()
			return []*agx.Tensor{a.Grad()}
		}, [][]float64{{math.E, math.Exp(2)}}, []string{"a.grad"}},
	} {
		t.Run("original_self/"+tc.name, func(t *testing.T) {
			got := tc.run()
			for i := range got {
				ptClose(t, tc.labels[i], got[i], tc.want[i]...)
			}
		})
	}
	t.Run("leaf_requiring_grad", func(t *testing.T) {
		x := ptLeaf(1)
		ptPanics(t, func() { x.AddInPlace(1.0) }, agx.ErrGraph,
			"a leaf Variable that requires grad is being used in an in-place operation")
	})
	t.Run("leaf_under_no_grad_allowed", func(t *testing.T) {
		x := ptLeaf(1)
		agx.NoGrad(func() { x.SubInPlace(0.5) })
		ptClose(t, "x", x, 0.5)
		if !x.IsLeaf() || !x.RequiresGrad() {
			t.Fatalf("leaf lost its state")
		}
	})
	t.Run("in_place_on_unsaved_tensor_is_fine", func(t *testing.T) {
		// Add saves nothing, so modifying its input later does not break backward.
		a := ptLeaf(1, 2)
		h := a.Mul(1.0)
		y := h.Add(3.0)
		h.MulInPlace(10.0)
		y.Sum().Backward()
		ptClose(t, "a.grad", a.Grad(), 1, 1)
	})
}

// ptNaN's backward produces NaN.
type ptNaN struct{}

func (ptNaN) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Mul(1.0))
}

func (ptNaN) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(math.NaN()))
}

func TestPortAnomaly(t *testing.T) {
	t.Run("names_node_and_call_site", func(t *testing.T) {
		x := ptLeaf(1, 2)
		var err error
		agx.DetectAnomaly(func() {
			y := agx.Apply(ptNaN{}, x)
			err = agx.Try(func() { y.Sum().Backward() })
		})
		if err == nil {
			t.Fatalf("no anomaly reported")
		}
		for _, p := range []string{"ptNaNBackward", "nan", "pytorch_grad_test.go"} {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q lacks %q", err, p)
			}
		}
		if !errors.Is(err, agx.ErrAnomaly) {
			t.Fatalf("error does not wrap ErrAnomaly")
		}
	})
	t.Run("off_by_default", func(t *testing.T) {
		x := ptLeaf(1)
		agx.Apply(ptNaN{}, x).Backward()
		if g := x.Grad().Item(); !math.IsNaN(g) {
			t.Fatalf("x.grad = %v, want NaN", g)
		}
	})
	t.Run("builtin_op_inf", func(t *testing.T) {
		x := ptLeaf(0)
		var err error
		agx.DetectAnomaly(func() {
			y := x.Sqrt()
			err = agx.Try(func() { y.Backward() })
		})
		if err == nil || !strings.Contains(err.Error(), "SqrtBackward0") || !strings.Contains(err.Error(), "inf") {
			t.Fatalf("got %v", err)
		}
	})
}
