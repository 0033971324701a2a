package agx_test

// GradCheck as PyTorch 1.13's gradcheck (issue #23 items 7-9): fast mode runs
// the reentrancy, grad_output and undefined-gradient checks and reports the
// right output; messages are PyTorch's; finite differences see inputs that
// require grad.

import (
	"errors"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// zeroGradLeak is x² whose Backward is right for a nonzero grad_output but
// returns ones where grad_output is zero: only PyTorch's zero grad_output
// check ("backward not multiplied by grad_output") catches it.
type zeroGradLeak struct{}

func (zeroGradLeak) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

func (zeroGradLeak) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(x).Mul(2.0).Add(g[0].Eq(0.0).To(agx.Float64)))
}

// sizeBlind is sum(x²) whose Backward sees only the sign of grad_output,
// 2x·sign(g): right for a one-hot grad_output (1) and for a zero one, so only
// the grad-scaling check, whose grad_output is far from 1, catches it, in
// either mode (fast mode once skipped it).
type sizeBlind struct{}

func (sizeBlind) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]).Sum())
}

func (sizeBlind) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	if g[0] == nil {
		return agx.Outputs(nil)
	}
	x := ctx.SavedTensors()[0]
	return agx.Outputs(x.Mul(2.0).Mul(g[0].Sign()))
}

// wrongSecondOutput: (2x, x²) with the gradient of the second output wrong.
type wrongSecondOutput struct{}

func (wrongSecondOutput) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(2.0), in[0].Mul(in[0]))
}

func (wrongSecondOutput) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	x := ctx.SavedTensors()[0]
	return agx.Outputs(g[0].Mul(2.0).Add(g[1].Mul(x))) // should be g1·2x
}

func TestGradCheckFastModeChecks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       any
		opts    []agx.GradCheckOption
		kind    string
		phrases []string
		// fastOnly: slow mode's one-hot grad_outputs already expose it as a
		// Jacobian mismatch.
		fastOnly bool
	}{
		{"reentrancy", ptNoisy{tensor.NewGenerator(1)}, nil, "nondeterministic", []string{"Backward is not reentrant"}, false},
		{"reentrancy within NondetTol", ptNoisy{tensor.NewGenerator(1)}, []agx.GradCheckOption{agx.NondetTol(1e-6)}, "", nil, false},
		{"grad_output", zeroGradLeak{}, nil, "grad-scaling", []string{"backward not multiplied by grad_output"}, true},
		{"grad_output check off", zeroGradLeak{}, []agx.GradCheckOption{agx.CheckGradScaling(false), agx.CheckUndefinedGrad(false)}, "", nil, true},
		{"grad_output size", sizeBlind{}, nil, "grad-scaling", []string{"backward not multiplied by grad_output"}, false},
		{"grad_output size, check off", sizeBlind{}, []agx.GradCheckOption{agx.CheckGradScaling(false)}, "", nil, false},
		{"undefined grad", ptLazy{}, nil, "undefined-grad", []string{"Expected backward function to handle undefined output grads"}, false},
		{"undefined grad handled", ptLazy{careful: true}, nil, "", nil, false},
		{"second output", wrongSecondOutput{}, nil, "jacobian", []string{"Jacobian mismatch for output 1 with respect to input 0", "fast mode", "slow mode"}, false},
	} {
		for _, fast := range []bool{true, false} {
			if tc.fastOnly && !fast {
				continue
			}
			mode := "slow"
			if fast {
				mode = "fast"
			}
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				x := agx.FromSlice([]float64{0.5, -1.25, 2}, 3).SetRequiresGrad(true)
				err := agx.GradCheck(tc.f, []*agx.Tensor{x}, append(tc.opts, agx.FastMode(fast))...)
				if tc.kind == "" {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				if !fast {
					tc.phrases = tc.phrases[:1] // slow mode has no fast-mode note
				}
				ge := ptGradCheckErr(t, err, tc.kind, tc.phrases...)
				if tc.name == "second output" && (ge.Output != 1 || ge.Element < 0) {
					t.Fatalf("reported output %d element %d, want output 1 and an element", ge.Output, ge.Element)
				}
			})
		}
	}
}

// TestGradCheckIgnoredGradOutputMessage: a Backward that ignores its
// gradient, on a scalar output (where slow mode's one-hot gradient is 1), is
// reported in PyTorch's words.
func TestGradCheckIgnoredGradOutputMessage(t *testing.T) {
	err := agx.GradCheck(ptIgnoresGrad{}, []*agx.Tensor{ptRandn(3)})
	ptGradCheckErr(t, err, "grad-scaling", "backward not multiplied by grad_output")
}

// TestGradCheckNoDifferentiableOutputs: with no output requiring grad,
// PyTorch expects a zero numerical gradient.
func TestGradCheckNoDifferentiableOutputs(t *testing.T) {
	for _, fast := range []bool{false, true} {
		x := ptRandn(3)
		err := agx.GradCheck(func(x *agx.Tensor) *agx.Tensor { return x.Detach().Mul(2.0) }, []*agx.Tensor{x}, agx.FastMode(fast))
		ptGradCheckErr(t, err, "jacobian", "Numerical gradient for function expected to be zero")
		err = agx.GradCheck(func(x *agx.Tensor) *agx.Tensor { return x.Detach().Mul(0.0) }, []*agx.Tensor{x}, agx.FastMode(fast))
		if err != nil {
			t.Fatalf("fast %v: constant function: %v", fast, err)
		}
	}
}

// TestGradCheckInputsRequireGrad: the finite-difference evaluations call the
// function with inputs that require grad, so a function that branches on
// RequiresGrad or registers a hook behaves as in the analytical pass.
func TestGradCheckInputsRequireGrad(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(x *agx.Tensor) *agx.Tensor
	}{
		{"branches on RequiresGrad", func(x *agx.Tensor) *agx.Tensor {
			if !x.RequiresGrad() {
				return x.Mul(3.0) // a different function: the check would fail
			}
			return x.Mul(x)
		}},
		{"registers a hook", func(x *agx.Tensor) *agx.Tensor {
			x.RegisterHook(func(g *agx.Tensor) *agx.Tensor { return nil })
			return x.Mul(x)
		}},
	} {
		for _, fast := range []bool{false, true} {
			if err := agx.GradCheck(tc.f, []*agx.Tensor{ptRandn(3)}, agx.FastMode(fast)); err != nil {
				t.Fatalf("%s (fast %v): %v", tc.name, fast, err)
			}
		}
	}
}

// TestGradCheckNonDifferentiableOutput: an output marked non-differentiable is
// not checked, though it changes with the input (torch 1.13's gradcheck
// passes this Function in both modes).
func TestGradCheckNonDifferentiableOutput(t *testing.T) {
	f := agx.Func{FuncName: "ND",
		Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
			z := in[0].Mul(3.0)
			ctx.MarkNonDifferentiable(z)
			return agx.Outputs(in[0].Mul(2.0), z)
		},
		Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0].Mul(2.0)) }}
	for _, fast := range []bool{false, true} {
		x := agx.FromSlice([]float64{1, 2, 3}, 3).SetRequiresGrad(true)
		if err := agx.GradCheck(f, []*agx.Tensor{x}, agx.FastMode(fast)); err != nil {
			t.Errorf("fast %v: %v", fast, err)
		}
	}
	// The differentiable output is still checked.
	bad := f
	bad.Bwd = func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0].Mul(3.0)) }
	for _, fast := range []bool{false, true} {
		x := agx.FromSlice([]float64{1, 2, 3}, 3).SetRequiresGrad(true)
		var ge *agx.GradCheckError
		if err := agx.GradCheck(bad, []*agx.Tensor{x}, agx.FastMode(fast)); !errors.As(err, &ge) || ge.Kind != "jacobian" || ge.Output != 0 {
			t.Errorf("fast %v: got %v, want a jacobian mismatch for output 0", fast, err)
		}
	}
}
