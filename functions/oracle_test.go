package functions_test

import (
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/internal/oracle"
)

// The PyTorch oracle: every source Function is run on the same inputs, with
// the same upstream gradients, by testdata/oracle/run_all.py (composed torch
// ops, or torch.autograd.Function classes for the estimators), and the
// outputs and input gradients are compared. All cases go to one Python
// process, since importing torch is slow.

type srcOracleCase struct {
	Op       string             `json:"op"`
	Inputs   []oracle.Tensor    `json:"inputs"`
	Requires []bool             `json:"requires"`
	Params   map[string]float64 `json:"params"`
	Upstream []oracle.Tensor    `json:"upstream"`
}

type srcOracleResult struct {
	Outputs []oracle.Tensor `json:"outputs"`
	Grads   []oracle.Tensor `json:"grads"`
}

// srcOracleOps maps srcFunctions entries to the torch op and its parameters.
var srcOracleOps = map[string]struct {
	op     string
	params map[string]float64
}{
	"Square":                    {"square", nil},
	"ScaledSigmoid":             {"scaled_sigmoid", nil},
	"ScaledSigmoid/row-scale":   {"scaled_sigmoid", nil},
	"ScaledSigmoid/broadcast-x": {"scaled_sigmoid", nil},
	"StableLogSumExp":           {"stable_logsumexp", nil},
	"StableLogSumExp/3d":        {"stable_logsumexp", nil},
	"StraightThroughRound":      {"straight_through_round", nil},
	"FakeQuantize":              {"fake_quantize", map[string]float64{"scale": 0.01, "zero_point": 0, "qmin": -128, "qmax": 127}},
	"FakeQuantize/zero-point":   {"fake_quantize", map[string]float64{"scale": 0.05, "zero_point": 10, "qmin": 0, "qmax": 255}},
	"MaskedLinear":              {"masked_linear", nil},
	"ReLUViaClamp":              {"relu_via_clamp", nil},
	"Quadratic":                 {"quadratic", nil},
	"Power/3":                   {"power", map[string]float64{"n": 3}},
	"Power/-2":                  {"power", map[string]float64{"n": -2}},
	"ScaledActivation/relu":     {"scaled_activation", map[string]float64{"scale": 2.5, "use_relu": 1}},
	"ScaledActivation/tanh":     {"scaled_activation", map[string]float64{"scale": 2.5, "use_relu": 0}},
	"BinarizeSTE":               {"binarize_ste", nil},
	"StableLogSumExp1D":         {"stable_logsumexp_1d", nil},
	"ClipGradient":              {"clip_gradient", map[string]float64{"clip": 0.5}},
	"SplitAndTransform":         {"split_and_transform", nil},
	"DifferentiableClamp":       {"differentiable_clamp", map[string]float64{"lo": -0.5, "hi": 0.8}},
	"SmoothL1":                  {"smooth_l1", map[string]float64{"beta": 0.5}},
	"SmoothL1Loss":              {"smooth_l1_loss", map[string]float64{"beta": 0.5}},
	"MyExp":                     {"my_exp", nil},
	"TwoInTwoOut":               {"two_in_two_out", nil},
	"PositiveSum":               {"positive_sum", nil},
}

func TestOracleSources(t *testing.T) {
	oracle.Skip(t)
	type local struct {
		outs, grads []*agx.Tensor
		dt          agx.DType
	}
	cases := map[string]srcOracleCase{}
	ours := map[string]local{}
	for _, f := range srcFunctions {
		op, ok := srcOracleOps[f.name]
		if !ok {
			t.Errorf("%s has no oracle op", f.name)
			continue
		}
		for _, dt := range fntest.DTypes {
			name := f.name + "/" + dt.String()
			in := f.inputs(dt)
			outs, grads, ups := fntest.Gradients(f.fn, in, 11)
			c := srcOracleCase{Op: op.op, Params: op.params}
			if c.Params == nil {
				c.Params = map[string]float64{}
			}
			for _, x := range in {
				c.Inputs = append(c.Inputs, oracle.Encode(x.Data()))
				c.Requires = append(c.Requires, x.RequiresGrad())
			}
			for _, u := range ups {
				c.Upstream = append(c.Upstream, oracle.Encode(u.Data()))
			}
			cases[name] = c
			ours[name] = local{outs, grads, dt}
		}
	}
	var results map[string]srcOracleResult
	if err := oracle.RunFile("testdata/oracle/run_all.py", cases, &results); err != nil {
		t.Fatal(err)
	}
	for _, f := range srcFunctions {
		for _, dt := range fntest.DTypes {
			name := f.name + "/" + dt.String()
			t.Run(name, func(t *testing.T) {
				got, want := ours[name], results[name]
				rtol, atol := 1e-10, 1e-12
				if got.dt == agx.Float32 {
					rtol, atol = 1e-5, 1e-6
				}
				if len(want.Outputs) != len(got.outs) || len(want.Grads) != len(got.grads) {
					t.Fatalf("torch returned %d outputs and %d gradients, agx %d and %d", len(want.Outputs), len(want.Grads), len(got.outs), len(got.grads))
				}
				for i, o := range got.outs {
					if d := oracle.Close(o.Data(), want.Outputs[i].Decode(), rtol, atol); d != "" {
						t.Errorf("output %d: %s", i, d)
					}
				}
				for i, g := range got.grads {
					var gd = want.Grads[i].Decode()
					if g == nil {
						if gd != nil {
							t.Errorf("gradient %d: agx has none, torch %v", i, gd)
						}
						continue
					}
					if d := oracle.Close(g.Data(), gd, rtol, atol); d != "" {
						t.Errorf("gradient %d: %s", i, d)
					}
				}
			})
		}
	}
}
