package agx

import (
	"fmt"
	"os"
	"testing"

	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// allOpCases is every table of built-in op cases.
func allOpCases() []opCase {
	var all []opCase
	for _, cs := range [][]opCase{arithCases(), unaryCases(), reduceCases(), shapeCases(),
		indexCases(), matmulCases(), lossCases(), batchNormCases(), steCases()} {
		all = append(all, cs...)
	}
	return all
}

// TestForwardADOps checks every built-in op's forward rule in float64: the
// forward-mode Jacobian against finite differences and against the
// backward's (GradCheck with CheckForwardAD), and forward-over-reverse
// (GradGradCheck with CheckForwardAD). Straight-through cases have a
// forward derivative that is not their backward: their tangents are checked
// against finite differences only (the tangent of the hard part is zero).
func TestForwardADOps(t *testing.T) {
	for _, tc := range allOpCases() {
		t.Run(tc.name, func(t *testing.T) {
			xs := buildInputs(tc.in, Float64)
			fn := func(in ...*Tensor) *Tensor { return tc.f(in) }
			if tc.ste {
				steForwardCheck(t, tc, xs)
				return
			}
			if err := GradCheck(fn, xs, CheckForwardAD()); err != nil {
				t.Errorf("GradCheck(CheckForwardAD): %v", err)
			}
			if err := GradCheck(fn, xs, CheckForwardAD(), FastMode()); err != nil {
				t.Errorf("GradCheck(CheckForwardAD, FastMode): %v", err)
			}
			if tc.noGradGrad {
				return
			}
			if err := GradGradCheck(fn, xs, CheckForwardAD()); err != nil {
				t.Errorf("GradGradCheck(CheckForwardAD): %v", err)
			}
		})
	}
}

// steForwardCheck: a straight-through op's forward value is piecewise
// constant, but its tangent is the soft part's (Detach drops tangents, as
// PyTorch's detach does), so forward mode agrees with the straight-through
// backward, not with finite differences: the two Jacobians are compared.
func steForwardCheck(t *testing.T, tc opCase, xs []*Tensor) {
	t.Helper()
	fn := func(in ...*Tensor) []*Tensor { return []*Tensor{tc.f(in)} }
	var diff []int
	leaves := make([]*Tensor, len(xs))
	for i, x := range xs {
		leaves[i] = x
		if x.RequiresGrad() {
			diff = append(diff, i)
		}
	}
	outs := fn(leaves...)
	ana := analyticalJacobian(outs, leaves, diff)
	fwd := forwardJacobian(fn, leaves, diff, outs)
	for _, i := range diff {
		if e := compareForward(ana[0][i], fwd[0][i], 0, i, "backward", defaultGradCheck()); e != nil {
			t.Error(e)
		}
	}
}

func near(a, b, tol float64) bool {
	d := a - b
	return d <= tol && -d <= tol
}

// TestOracleForwardAD compares every built-in op's forward mode with
// PyTorch's torch.autograd.forward_ad: the op-table cases that name an
// oracle op run on seeded random inputs, each input that requires grad made
// dual with a seeded random tangent, in float64 and float32; the outputs'
// values and tangents must agree. One Python process runs all cases.
func TestOracleForwardAD(t *testing.T) {
	oracle.Skip(t)
	type request struct {
		Name     string          `json:"name"`
		Op       string          `json:"op"`
		Params   map[string]any  `json:"params"`
		Inputs   []oracle.Tensor `json:"inputs"`
		Grad     []bool          `json:"grad"`
		Tangents []oracle.Tensor `json:"tangents"`
	}
	type result struct {
		Name    string        `json:"name"`
		Out     oracle.Tensor `json:"out"`
		Tangent oracle.Tensor `json:"tangent"`
	}
	type local struct {
		name       string
		out, tan   *Tensor
		rtol, atol float64
	}
	var reqs []request
	var mine []local
	for _, dt := range []DType{Float64, Float32} {
		rtol, atol := 1e-10, 1e-12
		if dt == Float32 {
			rtol, atol = 1e-5, 1e-6
		}
		for _, tc := range allOpCases() {
			if tc.oracle == "" {
				continue
			}
			name := fmt.Sprintf("%s/%v", tc.name, dt)
			gen := tensor.NewGenerator(seedOf(name) + 1)
			xs := make([]*Tensor, len(tc.in))
			r := request{Name: name, Op: tc.oracle, Params: tc.params}
			for i, in := range tc.in {
				xs[i] = in.random(dt, gen)
				r.Inputs = append(r.Inputs, oracle.Encode(xs[i].Data()))
				r.Grad = append(r.Grad, xs[i].RequiresGrad())
				if xs[i].RequiresGrad() {
					v := New(gen.Randn(Float64, xs[i].Shape()...).To(dt))
					r.Tangents = append(r.Tangents, oracle.Encode(v.Data()))
					xs[i] = MakeDual(xs[i], v)
				} else {
					r.Tangents = append(r.Tangents, oracle.Encode(nil))
				}
			}
			out := tc.f(xs)
			reqs = append(reqs, r)
			mine = append(mine, local{name: name, out: out, tan: out.Tangent(), rtol: rtol, atol: atol})
		}
	}
	ops, err := os.ReadFile("testdata/oracle/ops.py")
	if err != nil {
		t.Fatal(err)
	}
	fwd, err := os.ReadFile("testdata/oracle/forward_ad.py")
	if err != nil {
		t.Fatal(err)
	}
	var res []result
	if err := oracle.Run("AGX_NO_MAIN = True\n"+string(ops)+"\n"+string(fwd), reqs, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != len(reqs) {
		t.Fatalf("oracle returned %d results for %d cases", len(res), len(reqs))
	}
	t.Logf("%d cases compared with PyTorch forward_ad", len(reqs))
	for k, m := range mine {
		t.Run(m.name, func(t *testing.T) {
			if d := oracle.Close(m.out.Data(), res[k].Out.Decode(), m.rtol, m.atol); d != "" {
				t.Errorf("forward: %s", d)
			}
			if m.tan == nil {
				t.Fatalf("no tangent; PyTorch's is %v", res[k].Tangent.Decode())
			}
			if d := oracle.Close(m.tan.Data(), res[k].Tangent.Decode(), m.rtol, m.atol); d != "" {
				t.Errorf("tangent: %s", d)
			}
		})
	}
}
