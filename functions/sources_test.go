package functions_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/internal/fntest"
)

// srcKind says which gradient checks a Function is expected to pass.
type srcKind int

const (
	srcTwice     srcKind = iota // GradCheck and GradGradCheck pass
	srcOnce                     // once-differentiable: GradCheck passes, differentiating twice is refused
	srcEstimator                // the gradient is an estimator: GradCheck reports a mismatch
)

type srcFunction struct {
	name    string
	example string
	kind    srcKind
	fn      func(...*agx.Tensor) []*agx.Tensor // the Function
	ref     func(...*agx.Tensor) []*agx.Tensor // the same op from agx built-ins
	inputs  func(dt agx.DType) []*agx.Tensor   // requires-grad set where wanted
}

func srcGrad(t *agx.Tensor) *agx.Tensor { return t.SetRequiresGrad(true) }

// srcFunctions lists every Function of the sources with the composite op it
// must agree with (example A9: a composite gives the same gradient).
var srcFunctions = []srcFunction{
	{"Square", "A1", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.Square(in[0]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].Mul(in[0]) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(1, dt, 4))} }},
	{"ScaledSigmoid", "A2", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ScaledSigmoid(in[0], in[1]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[1].Mul(in[0].Sigmoid()) }),
		func(dt agx.DType) []*agx.Tensor {
			return []*agx.Tensor{srcGrad(fntest.Randn(2, dt, 4, 8)), srcGrad(agx.Full(dt, 2, []int{}...))}
		}},
	{"ScaledSigmoid/row-scale", "A2", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ScaledSigmoid(in[0], in[1]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[1].Mul(in[0].Sigmoid()) }),
		func(dt agx.DType) []*agx.Tensor {
			return []*agx.Tensor{srcGrad(fntest.Randn(3, dt, 3, 4)), srcGrad(fntest.Randn(4, dt, 4))}
		}},
	{"ScaledSigmoid/broadcast-x", "A2", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ScaledSigmoid(in[0], in[1]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[1].Mul(in[0].Sigmoid()) }),
		func(dt agx.DType) []*agx.Tensor {
			return []*agx.Tensor{srcGrad(fntest.Randn(34, dt, 2, 1, 4)), srcGrad(fntest.Randn(35, dt, 3, 1))}
		}},
	{"StableLogSumExp", "A3", srcOnce,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.StableLogSumExp(in[0]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].LogSumExp(-1) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(5, dt, 4, 16))} }},
	{"StableLogSumExp/3d", "A3", srcOnce,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.StableLogSumExp(in[0]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].LogSumExp(-1) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(6, dt, 2, 3, 5))} }},
	{"StraightThroughRound", "A4", srcEstimator,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.StraightThroughRound(in[0]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return agx.RoundSTE(in[0]) }),
		func(dt agx.DType) []*agx.Tensor {
			return []*agx.Tensor{srcGrad(fntest.Randn(7, dt, 3, 4).Mul(3))}
		}},
	{"FakeQuantize", "A4", srcEstimator,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.FakeQuantize(in[0], 0.01, 0, -128, 127) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return agx.QuantizeSTE(in[0], 0.01, 0, -128, 127) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(8, dt, 8, 64))} }},
	{"FakeQuantize/zero-point", "A4", srcEstimator,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.FakeQuantize(in[0], 0.05, 10, 0, 255) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return agx.QuantizeSTE(in[0], 0.05, 10, 0, 255) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(9, dt, 4, 16).Mul(5))} }},
	{"MaskedLinear", "A5", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.MaskedLinear(in[0], in[1], in[2]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].MatMul(in[1].Mul(in[2].To(in[1].DType())).T()) }),
		func(dt agx.DType) []*agx.Tensor {
			return []*agx.Tensor{srcGrad(fntest.Randn(10, dt, 3, 4)), srcGrad(fntest.Randn(11, dt, 5, 4)), fntest.Randn(12, agx.Float64, 5, 4).Gt(0)}
		}},
	{"ReLUViaClamp", "D1", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ReLUViaClamp(in[0]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].Relu() }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(13, dt, 5))} }},
	{"Quadratic", "D2", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.Quadratic(in[0], in[1], in[2], in[3]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor {
			x, a, b, c := in[0], in[1], in[2], in[3]
			return a.Mul(x.Pow(2)).Add(b.Mul(x)).Add(c)
		}),
		func(dt agx.DType) []*agx.Tensor {
			return []*agx.Tensor{srcGrad(fntest.Randn(14, dt, 2, 3)), srcGrad(fntest.Randn(15, dt, 2, 3)),
				srcGrad(fntest.Randn(16, dt, 3)), srcGrad(fntest.Randn(17, dt, 1))}
		}},
	{"Power/3", "D3", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.Power(in[0], 3) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].Pow(3) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(18, dt, 6))} }},
	{"Power/-2", "D3", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.Power(in[0], -2) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].Pow(-2) }),
		func(dt agx.DType) []*agx.Tensor {
			return []*agx.Tensor{srcGrad(fntest.Vec(dt, []float64{0.5, 1, 1.5, -2}))}
		}},
	{"ScaledActivation/relu", "D4", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ScaledActivation(in[0], 2.5, true) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].Relu().Mul(2.5) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(19, dt, 3, 4))} }},
	{"ScaledActivation/tanh", "D4", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ScaledActivation(in[0], 2.5, false) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].Tanh().Mul(2.5) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(20, dt, 3, 4))} }},
	{"BinarizeSTE", "D6", srcEstimator,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.BinarizeSTE(in[0]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return agx.BinarizeSTE(in[0]) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(22, dt, 6))} }},
	{"StableLogSumExp1D", "D7", srcOnce,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.StableLogSumExp1D(in[0]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].LogSumExp(0) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(23, dt, 5))} }},
	{"ClipGradient", "D8", srcEstimator,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.ClipGradient(in[0], 0.5) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return agx.ClipGradientSTE(in[0], 0.5) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(24, dt, 6))} }},
	{"SplitAndTransform", "D9", srcTwice,
		func(in ...*agx.Tensor) []*agx.Tensor {
			p, n := functions.SplitAndTransform(in[0])
			return agx.Outputs(p, n)
		},
		func(in ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(in[0].Relu(), in[0].Neg().Relu()) },
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(25, dt, 7))} }},
	{"DifferentiableClamp", "D10", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.DifferentiableClamp(in[0], -0.5, 0.8) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].Clamp(-0.5, 0.8) }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(26, dt, 8))} }},
	{"SmoothL1", "D11", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.SmoothL1(in[0], 0.5) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor {
			x := in[0]
			a := x.Abs()
			return agx.Where(a.Lt(0.5), x.Pow(2).Mul(0.5/0.5), a.Sub(0.25))
		}),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(27, dt, 10))} }},
	{"SmoothL1Loss", "D11", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.SmoothL1Loss(in[0], in[1], 0.5) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor {
			d := in[0].Sub(in[1])
			a := d.Abs()
			return agx.Where(a.Lt(0.5), d.Pow(2), a.Sub(0.25)).Mean()
		}),
		func(dt agx.DType) []*agx.Tensor {
			return []*agx.Tensor{srcGrad(fntest.Randn(28, dt, 10)), fntest.Randn(29, dt, 10)}
		}},
	{"MyExp", "E1", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.MyExp(in[0]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].Exp() }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(30, dt, 3))} }},
	{"TwoInTwoOut", "E2", srcTwice,
		func(in ...*agx.Tensor) []*agx.Tensor {
			u, v := functions.TwoInTwoOut(in[0], in[1])
			return agx.Outputs(u, v)
		},
		func(in ...*agx.Tensor) []*agx.Tensor {
			x, y := in[0], in[1]
			return agx.Outputs(x.Mul(x).Add(y.Mul(y)), x.Mul(y))
		},
		func(dt agx.DType) []*agx.Tensor {
			return []*agx.Tensor{srcGrad(fntest.Randn(31, dt, 3)), srcGrad(fntest.Randn(32, dt, 3))}
		}},
	{"PositiveSum", "E3", srcTwice,
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return functions.PositiveSum(in[0]) }),
		fntest.One(func(in ...*agx.Tensor) *agx.Tensor { return in[0].Relu().Sum() }),
		func(dt agx.DType) []*agx.Tensor { return []*agx.Tensor{srcGrad(fntest.Randn(33, dt, 5))} }},
}

// TestSourcesMatchComposite checks every Function against the same
// computation composed from agx built-ins: values and gradients, per dtype.
func TestSourcesMatchComposite(t *testing.T) {
	for _, f := range srcFunctions {
		for _, dt := range fntest.DTypes {
			t.Run(f.name+"/"+dt.String(), func(t *testing.T) {
				fntest.Match(t, f.fn, f.ref, f.inputs(dt), fntest.Tol(dt))
			})
		}
	}
}

// TestSourcesGradCheck runs GradCheck and GradGradCheck (float64) on every
// Function, expecting what its kind says.
func TestSourcesGradCheck(t *testing.T) {
	for _, f := range srcFunctions {
		t.Run(f.name, func(t *testing.T) {
			in := f.inputs(agx.Float64)
			err := agx.GradCheck(f.fn, in, agx.Eps(1e-6), agx.Atol(1e-5))
			switch f.kind {
			case srcEstimator:
				if !errors.Is(err, agx.ErrGradCheck) || !strings.Contains(err.Error(), "Jacobian mismatch") {
					t.Fatalf("GradCheck of a straight-through estimator: got %v, want a Jacobian mismatch", err)
				}
				return
			default:
				if err != nil {
					t.Fatalf("GradCheck: %v", err)
				}
			}
			err = agx.GradGradCheck(f.fn, in, agx.Eps(1e-6), agx.Atol(1e-5))
			switch f.kind {
			case srcOnce:
				if err == nil || !strings.Contains(err.Error(), "once-differentiable") {
					t.Fatalf("GradGradCheck of a once-differentiable Function: got %v, want the once-differentiable error", err)
				}
			default:
				if err != nil {
					t.Fatalf("GradGradCheck: %v", err)
				}
			}
		})
	}
}

// TestSourcesNodeNames checks the backward node of each Function applied:
// <Name>Backward for the type <Name>Function (TestFunctionNamingRule checks
// the rule for every type).
func TestSourcesNodeNames(t *testing.T) {
	for _, f := range srcFunctions {
		if f.name == "SmoothL1Loss" { // a composite of SmoothL1 and Mean
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			out := f.fn(f.inputs(agx.Float64)...)[0]
			base, _, _ := strings.Cut(f.name, "/")
			if got, want := out.GradFn().Name(), base+"Backward"; got != want {
				t.Fatalf("node name %q, want %q", got, want)
			}
		})
	}
}
