package solutions_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions"
	"github.com/goagx/agx/functions/solutions"
	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// fwdCase is a library Function with a Jvp, on inputs of a given shape.
type fwdCase struct {
	name   string
	op     string // the PyTorch op in testdata/oracle/forward_ad.py
	params map[string]float64
	shape  []int
	f      func(x *agx.Tensor) *agx.Tensor
}

func fwdCases() []fwdCase {
	return []fwdCase{
		{"GELU", "gelu", nil, []int{2, 3}, solutions.GELU},
		{"GELUTanh", "gelu_tanh", nil, []int{2, 3}, solutions.GELUTanh},
		{"SiLU", "silu", nil, []int{2, 3}, solutions.SiLU},
		{"SoftRank", "soft_rank", map[string]float64{"tau": 0.5}, []int{2, 4},
			func(x *agx.Tensor) *agx.Tensor { return solutions.SoftRank(x, 0.5) }},
		{"BatchNorm", "batch_norm", map[string]float64{"eps": 1e-5}, []int{4, 3},
			func(x *agx.Tensor) *agx.Tensor { return solutions.BatchNorm(x, 1e-5) }},
	}
}

// TestForwardADFunctions checks each Jvp in float64 against finite
// differences and against Backward (GradCheck with CheckForwardAD, slow and
// fast mode), and forward-over-reverse through Backward (GradGradCheck with
// CheckForwardAD).
func TestForwardADFunctions(t *testing.T) {
	for _, tc := range fwdCases() {
		t.Run(tc.name, func(t *testing.T) {
			gen := tensor.NewGenerator(11)
			x := agx.New(gen.Randn(agx.Float64, tc.shape...)).SetRequiresGrad(true)
			if err := agx.GradCheck(tc.f, []*agx.Tensor{x}, agx.CheckForwardAD()); err != nil {
				t.Errorf("GradCheck: %v", err)
			}
			if err := agx.GradCheck(tc.f, []*agx.Tensor{x}, agx.CheckForwardAD(), agx.FastMode()); err != nil {
				t.Errorf("GradCheck fast: %v", err)
			}
			if err := agx.GradGradCheck(tc.f, []*agx.Tensor{x}, agx.CheckForwardAD()); err != nil {
				t.Errorf("GradGradCheck: %v", err)
			}
		})
	}
}

// TestForwardADLibraryWithoutJvp: a library Function without Jvp refuses a
// dual input with ErrForwardAD naming it.
func TestForwardADLibraryWithoutJvp(t *testing.T) {
	x := agx.FromSlice([]float64{1, 2}, 2)
	err := agx.Try(func() { agx.Apply(functions.SquareFunction{}, agx.MakeDual(x, agx.OnesLike(x))) })
	if !errors.Is(err, agx.ErrForwardAD) {
		t.Fatalf("got %v, want ErrForwardAD", err)
	}
}

// TestOracleForwardADFunctions compares the tangents with PyTorch's
// forward_ad on the same inputs and tangents, in float64 and float32.
func TestOracleForwardADFunctions(t *testing.T) {
	oracle.Skip(t)
	type req struct {
		Op      string             `json:"op"`
		Params  map[string]float64 `json:"params"`
		Input   oracle.Tensor      `json:"input"`
		Tangent oracle.Tensor      `json:"tangent"`
	}
	type res struct {
		Out     oracle.Tensor `json:"out"`
		Tangent oracle.Tensor `json:"tangent"`
	}
	var reqs []req
	type mine struct {
		name       string
		out, tan   *agx.Tensor
		rtol, atol float64
	}
	var got []mine
	for _, dt := range []agx.DType{agx.Float64, agx.Float32} {
		rtol, atol := 1e-10, 1e-12
		if dt == agx.Float32 {
			rtol, atol = 1e-4, 1e-5
		}
		for _, tc := range fwdCases() {
			gen := tensor.NewGenerator(7)
			x := agx.New(gen.Randn(dt, tc.shape...))
			v := agx.New(gen.Randn(dt, tc.shape...))
			y := tc.f(agx.MakeDual(x, v))
			reqs = append(reqs, req{tc.op, tc.params, oracle.Encode(x.Data()), oracle.Encode(v.Data())})
			got = append(got, mine{fmt.Sprintf("%s/%v", tc.name, dt), y, y.Tangent(), rtol, atol})
		}
	}
	var out []res
	if err := oracle.RunFile("../testdata/oracle/forward_ad.py", reqs, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(reqs) {
		t.Fatalf("%d results for %d cases", len(out), len(reqs))
	}
	for k, m := range got {
		t.Run(m.name, func(t *testing.T) {
			if d := oracle.Close(m.out.Data(), out[k].Out.Decode(), m.rtol, m.atol); d != "" {
				t.Errorf("forward: %s", d)
			}
			if m.tan == nil {
				t.Fatal("no tangent")
			}
			if d := oracle.Close(m.tan.Data(), out[k].Tangent.Decode(), m.rtol, m.atol); d != "" {
				t.Errorf("tangent: %s", d)
			}
		})
	}
}
