package functions_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

// srcWrongSquare forgets the factor 2 in its gradient.
type srcWrongSquare struct{}

func (srcWrongSquare) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	ctx.SaveForBackward(in[0])
	return agx.Outputs(in[0].Mul(in[0]))
}

func (srcWrongSquare) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(ctx.SavedTensors()[0]))
}

func TestVerifyCustomFunction(t *testing.T) {
	x32 := func() *agx.Tensor { return fntest.Randn(60, agx.Float32, 4, 8).SetRequiresGrad(true) }
	for _, tc := range []struct {
		name   string
		f      any
		inputs []*agx.Tensor
		want   string // "" for success
	}{
		// example A6: float32 inputs are converted to float64 first
		{"ScaledSigmoid", functions.ScaledSigmoidFunction{}, []*agx.Tensor{x32(), agx.Scalar(float32(2)).SetRequiresGrad(true)}, ""},
		{"scale-constant", functions.ScaledSigmoidFunction{}, []*agx.Tensor{x32(), agx.Scalar(float32(2))}, ""},
		{"MaskedLinear-bool-input", functions.MaskedLinearFunction{},
			[]*agx.Tensor{fntest.Randn(61, agx.Float32, 2, 3).SetRequiresGrad(true), fntest.Randn(62, agx.Float32, 4, 3).SetRequiresGrad(true), fntest.Randn(63, agx.Float32, 4, 3).Gt(0)}, ""},
		{"func", func(x *agx.Tensor) *agx.Tensor { return x.Tanh() }, []*agx.Tensor{x32()}, ""},
		{"wrong-gradient", srcWrongSquare{}, []*agx.Tensor{x32()}, "first-order gradcheck failed"},
		{"once-differentiable", functions.StableLogSumExpFunction{}, []*agx.Tensor{x32()}, "second-order gradcheck failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := functions.VerifyCustomFunction(tc.f, tc.inputs...)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, agx.ErrGradCheck) {
				t.Fatalf("got %v, want %q wrapping ErrGradCheck", err, tc.want)
			}
		})
	}
}

// The caller's tensors are left alone: no gradients, same dtype.
func TestVerifyCustomFunctionLeavesInputs(t *testing.T) {
	x := fntest.Randn(64, agx.Float32, 3).SetRequiresGrad(true)
	if err := functions.VerifyCustomFunction(functions.SquareFunction{}, x); err != nil {
		t.Fatal(err)
	}
	if x.Grad() != nil || x.DType() != agx.Float32 {
		t.Fatalf("input changed: grad %v, dtype %v", x.Grad(), x.DType())
	}
}

func ExampleVerifyCustomFunction() {
	agx.ManualSeed(0)
	x := agx.Randn(agx.Float32, 4, 8).SetRequiresGrad(true)
	scale := agx.Scalar(float32(2)).SetRequiresGrad(true)
	err := functions.VerifyCustomFunction(functions.ScaledSigmoidFunction{}, x, scale)
	fmt.Println("ScaledSigmoid:", err)

	err = functions.VerifyCustomFunction(srcWrongSquare{}, x)
	fmt.Println("wrong gradient detected:", errors.Is(err, agx.ErrGradCheck))
	// Output:
	// ScaledSigmoid: <nil>
	// wrong gradient detected: true
}
