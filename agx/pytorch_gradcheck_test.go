package agx_test

// Behaviour ported from PyTorch's tests of gradcheck and gradgradcheck
// (test_autograd.py TestAutograd.test_gradcheck_*): which Functions pass,
// how failures are reported, and what each option changes.

import (
	"errors"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// ptWrongSquare forgets the factor 2.
type ptWrongSquare struct{}

func (ptWrongSquare) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

func (ptWrongSquare) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(ctx.SavedTensors()[0]))
}

// ptWrongSecond: x·y with a wrong gradient for y only.
type ptWrongSecond struct{}

func (ptWrongSecond) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0], in[1])
	return agx.Outputs(in[0].Mul(in[1]))
}

func (ptWrongSecond) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	s := ctx.SavedTensors()
	return agx.Outputs(g[0].Mul(s[1]), g[0].Mul(s[0]).Add(1.0))
}

// ptNoisy multiplies a correct gradient by 1 plus a little random noise.
type ptNoisy struct{ gen *tensor.Generator }

func (ptNoisy) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

func (f ptNoisy) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	jitter := agx.New(f.gen.Randn(tensor.Float64, x.Shape()...)).Mul(1e-8).Add(1.0)
	return agx.Outputs(g[0].Mul(x).Mul(2.0).Mul(jitter))
}

// ptLazy sets SetMaterializeGrads(false); its backward handles a nil gradient
// only when careful is set.
type ptLazy struct{ careful bool }

func (ptLazy) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SetMaterializeGrads(false)
	return agx.Outputs(in[0].Mul(3.0))
}

func (f ptLazy) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	if g[0] == nil && f.careful {
		return agx.Outputs(nil)
	}
	return agx.Outputs(g[0].Mul(3.0))
}

// ptIgnoresGrad returns 2x whatever the incoming gradient: right for a scalar
// output with gradient 1, wrong for any other.
type ptIgnoresGrad struct{}

func (ptIgnoresGrad) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]).Sum())
}

func (ptIgnoresGrad) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(ctx.SavedTensors()[0].Mul(2.0))
}

// ptDetachedBackward computes its gradient from detached data: right first
// derivative, no second derivative through x.
type ptDetachedBackward struct{}

func (ptDetachedBackward) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

func (ptDetachedBackward) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(ctx.SavedTensors()[0].Detach()).Mul(2.0))
}

func ptRandn(shape ...int) *agx.Tensor {
	gen := tensor.NewGenerator(uint64(len(shape)*97 + shape[0]))
	return agx.New(gen.Randn(tensor.Float64, shape...)).SetRequiresGrad(true)
}

func ptGradCheckErr(t *testing.T, err error, kind string, phrases ...string) *agx.GradCheckError {
	t.Helper()
	var ge *agx.GradCheckError
	if !errors.As(err, &ge) {
		t.Fatalf("error %v is not a *GradCheckError", err)
	}
	if !errors.Is(err, agx.ErrGradCheck) {
		t.Fatalf("error does not match ErrGradCheck")
	}
	if ge.Kind != kind {
		t.Fatalf("kind %q, want %q (%v)", ge.Kind, kind, err)
	}
	for _, p := range phrases {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q lacks %q", err, p)
		}
	}
	return ge
}

func TestPortGradCheckPasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    any
		in   []*agx.Tensor
	}{
		{"square_A1", ptSquare{}, []*agx.Tensor{ptRandn(4)}},
		{"scalar_output", func(x *agx.Tensor) *agx.Tensor { return x.Mul(x).Sum() }, []*agx.Tensor{ptRandn(3)}},
		{"exp_saving_output", ptExp{}, []*agx.Tensor{ptRandn(3, 2)}},
		{"two_outputs_E2", ptTwoOut{}, []*agx.Tensor{ptRandn(3), ptRandn(3, 1)}},
		{"mul_with_constant_input", ptMul{new([]int)}, []*agx.Tensor{ptRandn(2, 3), ptRandn(2, 3).Detach()}},
		{"composite_builtins", func(x, w *agx.Tensor) *agx.Tensor {
			return x.MatMul(w).Tanh().Mul(x.Sigmoid().Sum(1).Unsqueeze(1)).LogSoftmax(1)
		}, []*agx.Tensor{ptRandn(3, 4), ptRandn(4, 2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := agx.GradCheck(tc.f, tc.in); err != nil {
				t.Fatal(err)
			}
			if err := agx.GradCheck(tc.f, tc.in, agx.FastMode()); err != nil {
				t.Fatalf("fast mode: %v", err)
			}
		})
	}
	t.Run("inputs_untouched", func(t *testing.T) {
		x := ptRandn(3)
		before := x.Float64s()
		agx.MustGradCheck(ptSquare{}, []*agx.Tensor{x})
		if x.Grad() != nil || !slicesEqual(before, x.Float64s()) {
			t.Fatalf("GradCheck changed its input or its grad")
		}
	})
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPortGradCheckFailures(t *testing.T) {
	t.Run("wrong_backward_names_output_input_element", func(t *testing.T) {
		x := agx.FromSlice([]float64{0, 1.5, 2}, 3).SetRequiresGrad(true)
		err := agx.GradCheck(ptWrongSquare{}, []*agx.Tensor{x})
		ge := ptGradCheckErr(t, err, "jacobian", "Jacobian mismatch for output 0 with respect to input 0")
		// Element 0 has x = 0 where both gradients vanish; element 1 is first to differ.
		if ge.Output != 0 || ge.Input != 0 || ge.Element != 1 || ge.OutElement != 1 {
			t.Fatalf("reported output %d input %d element %d/%d", ge.Output, ge.Input, ge.Element, ge.OutElement)
		}
		if d := ge.Numerical - 3; d > 1e-5 || d < -1e-5 {
			t.Fatalf("numerical %v, want 3", ge.Numerical)
		}
		if ge.Analytical != 1.5 {
			t.Fatalf("analytical %v, want 1.5", ge.Analytical)
		}
	})
	t.Run("wrong_second_input", func(t *testing.T) {
		err := agx.GradCheck(ptWrongSecond{}, []*agx.Tensor{ptRandn(2), ptRandn(2)})
		ge := ptGradCheckErr(t, err, "jacobian", "Jacobian mismatch for output 0 with respect to input 1")
		if ge.Input != 1 {
			t.Fatalf("input %d", ge.Input)
		}
	})
	t.Run("must_panics", func(t *testing.T) {
		defer func() {
			if r := recover(); r == nil {
				t.Fatalf("MustGradCheck did not panic")
			} else if _, ok := r.(*agx.GradCheckError); !ok {
				t.Fatalf("panicked with %T", r)
			}
		}()
		agx.MustGradCheck(ptWrongSquare{}, []*agx.Tensor{ptRandn(2)})
	})
	t.Run("float32_refused_with_hint", func(t *testing.T) {
		x := agx.FromSlice([]float32{1, 2}, 2).SetRequiresGrad(true)
		ptGradCheckErr(t, agx.GradCheck(ptSquare{}, []*agx.Tensor{x}), "dtype", "float64", "AllowFloat32")
	})
	t.Run("allow_float32", func(t *testing.T) {
		x := agx.FromSlice([]float32{1, 2, -0.5}, 3).SetRequiresGrad(true)
		err := agx.GradCheck(ptSquare{}, []*agx.Tensor{x}, agx.AllowFloat32(), agx.Eps(1e-2), agx.Atol(1e-2), agx.Rtol(1e-2))
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("no_input_requires_grad", func(t *testing.T) {
		ptGradCheckErr(t, agx.GradCheck(ptSquare{}, []*agx.Tensor{ptVec(1)}), "error", "at least one input tensor to require gradient")
	})
	t.Run("fast_mode_fails_wrong", func(t *testing.T) {
		err := agx.GradCheck(ptWrongSquare{}, []*agx.Tensor{ptRandn(4)}, agx.FastMode())
		ptGradCheckErr(t, err, "jacobian", "Jacobian mismatch for output 0 with respect to input 0", "fast mode")
	})
	t.Run("nondet_tol", func(t *testing.T) {
		in := []*agx.Tensor{ptRandn(3)}
		err := agx.GradCheck(ptNoisy{tensor.NewGenerator(1)}, in)
		ptGradCheckErr(t, err, "nondeterministic", "not reentrant")
		if err := agx.GradCheck(ptNoisy{tensor.NewGenerator(1)}, in, agx.NondetTol(1e-6)); err != nil {
			t.Fatalf("with NondetTol: %v", err)
		}
	})
	t.Run("undefined_grad_unhandled", func(t *testing.T) {
		err := agx.GradCheck(ptLazy{}, []*agx.Tensor{ptRandn(2)})
		ptGradCheckErr(t, err, "undefined-grad", "Expected backward function to handle undefined output grads")
	})
	t.Run("undefined_grad_nil_dereference", func(t *testing.T) {
		// A Backward that crashes on a nil gradient is reported, not fatal.
		f := agx.Func{FuncName: "Crashy",
			Fwd: func(c *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				c.SetMaterializeGrads(false)
				return agx.Outputs(in[0].Mul(3.0))
			},
			Bwd: func(c *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
				_ = g[0].Shape()
				return agx.Outputs(g[0].Mul(3.0))
			}}
		err := agx.GradCheck(f, []*agx.Tensor{ptRandn(2)})
		ptGradCheckErr(t, err, "undefined-grad", "Expected backward function to handle undefined output grads", "Shape: argument 'self' (position 1) must be a Tensor, not nil")
	})
	t.Run("undefined_grad_handled", func(t *testing.T) {
		if err := agx.GradCheck(ptLazy{careful: true}, []*agx.Tensor{ptRandn(2)}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("undefined_grad_check_off", func(t *testing.T) {
		if err := agx.GradCheck(ptLazy{}, []*agx.Tensor{ptRandn(2)}, agx.CheckUndefinedGrad(false)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("grad_scaling_ignored_grad_output", func(t *testing.T) {
		err := agx.GradCheck(ptIgnoresGrad{}, []*agx.Tensor{ptRandn(3)})
		ptGradCheckErr(t, err, "grad-scaling", "multiply by the incoming gradient")
		if err := agx.GradCheck(ptIgnoresGrad{}, []*agx.Tensor{ptRandn(3)}, agx.CheckGradScaling(false), agx.CheckUndefinedGrad(false)); err != nil {
			t.Fatalf("with the scaling check off the Jacobian matches: %v", err)
		}
	})
	t.Run("forward_panics_reported", func(t *testing.T) {
		bad := func(x *agx.Tensor) *agx.Tensor { return x.Reshape(3, 1).MatMul(x.Reshape(3, 1)) }
		ptGradCheckErr(t, agx.GradCheck(bad, []*agx.Tensor{ptRandn(3)}), "error", "MatMul")
	})
}

func TestPortGradGradCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    any
		in   []*agx.Tensor
	}{
		{"square", ptSquare{}, []*agx.Tensor{ptRandn(3)}},
		{"scalar_output", func(x *agx.Tensor) *agx.Tensor { return x.Pow(3.0).Sum() }, []*agx.Tensor{ptRandn(3)}},
		{"two_outputs", ptTwoOut{}, []*agx.Tensor{ptRandn(2), ptRandn(2)}},
		{"exp_saving_output", ptExp{}, []*agx.Tensor{ptRandn(3)}},
		{"mul_with_constant_input", ptMul{new([]int)}, []*agx.Tensor{ptRandn(2), ptRandn(2).Detach()}},
		{"sigmoid_D5", func(x *agx.Tensor) *agx.Tensor { return x.Sigmoid() }, []*agx.Tensor{ptRandn(3)}},
		{"composite_builtins", func(x, w *agx.Tensor) *agx.Tensor {
			return x.MatMul(w).Tanh().Softmax(1).Mul(x.Exp().Sum())
		}, []*agx.Tensor{ptRandn(2, 3), ptRandn(3, 2)}},
		{"dot_1d_matmul", func(x, y *agx.Tensor) *agx.Tensor { return x.MatMul(y).Mul(x.Sum()) },
			[]*agx.Tensor{ptRandn(3), ptRandn(3)}},
		{"logsumexp_div", func(x, y *agx.Tensor) *agx.Tensor { return x.LogSumExp(0).Div(y.Pow(2.0).Add(1.0)) },
			[]*agx.Tensor{ptRandn(4), ptRandn(1)}},
	} {
		t.Run("passes/"+tc.name, func(t *testing.T) {
			if err := agx.GradGradCheck(tc.f, tc.in); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("fails_on_detached_backward", func(t *testing.T) {
		x := agx.FromSlice([]float64{0.5, -1, 2}, 3).SetRequiresGrad(true)
		if err := agx.GradCheck(ptDetachedBackward{}, []*agx.Tensor{x}); err != nil {
			t.Fatalf("first derivative should be right: %v", err)
		}
		ptGradCheckErr(t, agx.GradGradCheck(ptDetachedBackward{}, []*agx.Tensor{x}), "jacobian", "Jacobian mismatch")
	})
	t.Run("once_differentiable_errors", func(t *testing.T) {
		err := agx.GradGradCheck(ptOnceSquare{}, []*agx.Tensor{ptRandn(3)})
		if err == nil {
			t.Fatalf("GradGradCheck passed a once-differentiable Function")
		}
		if !errors.Is(err, agx.ErrOnceDifferentiable) || !strings.Contains(err.Error(), "once-differentiable") {
			t.Fatalf("error %v", err)
		}
	})
}
