package agx

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// TestOracleOps compares every built-in op with PyTorch: the op-table cases
// that name an oracle op run on seeded random inputs of the same shapes, in
// float64 and float32, forward and backward with a random upstream gradient.
// All cases go to one Python process (testdata/oracle/ops.py), since starting
// Python and importing torch costs more than the whole comparison.
func TestOracleOps(t *testing.T) {
	oracle.Skip(t)
	var all []opCase
	for _, cs := range [][]opCase{arithCases(), unaryCases(), reduceCases(), shapeCases(),
		indexCases(), matmulCases(), lossCases(), batchNormCases(), steCases()} {
		for _, tc := range cs {
			if tc.oracle != "" {
				all = append(all, tc)
			}
		}
	}
	type request struct {
		Name       string          `json:"name"`
		Op         string          `json:"op"`
		Params     map[string]any  `json:"params"`
		Inputs     []oracle.Tensor `json:"inputs"`
		Grad       []bool          `json:"grad"`
		GradOutput oracle.Tensor   `json:"grad_output"`
	}
	type result struct {
		Name  string          `json:"name"`
		Out   oracle.Tensor   `json:"out"`
		Grads []oracle.Tensor `json:"grads"`
	}
	type local struct {
		name, dtype string
		out         *Tensor
		grads       []*Tensor
		inputs      []*Tensor
		rtol, atol  float64
	}
	var reqs []request
	var mine []local
	for _, dt := range []DType{Float64, Float32} {
		rtol, atol := 1e-10, 1e-12
		if dt == Float32 {
			rtol, atol = 1e-5, 1e-6
		}
		for _, tc := range all {
			name := fmt.Sprintf("%s/%v", tc.name, dt)
			gen := tensor.NewGenerator(seedOf(name))
			xs := make([]*Tensor, len(tc.in))
			r := request{Name: name, Op: tc.oracle, Params: tc.params}
			for i, in := range tc.in {
				xs[i] = in.random(dt, gen)
				r.Inputs = append(r.Inputs, oracle.Encode(xs[i].Data()))
				r.Grad = append(r.Grad, xs[i].RequiresGrad())
			}
			out := tc.f(xs)
			gout := New(gen.Randn(Float64, out.Shape()...).To(dt))
			r.GradOutput = oracle.Encode(gout.Data())
			grads := gradsOfWith(out, xs, gout)
			reqs = append(reqs, r)
			mine = append(mine, local{name: tc.name, dtype: dt.String(), out: out, grads: grads, inputs: xs, rtol: rtol, atol: atol})
		}
	}
	var res []result
	if err := oracle.RunFile("testdata/oracle/ops.py", reqs, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != len(reqs) {
		t.Fatalf("oracle returned %d results for %d cases", len(res), len(reqs))
	}
	t.Logf("%d cases (%d table cases × 2 dtypes) compared with PyTorch", len(reqs), len(all))
	for k, m := range mine {
		t.Run(m.name+"/"+m.dtype, func(t *testing.T) {
			want := res[k]
			if d := oracle.Close(m.out.Data(), want.Out.Decode(), m.rtol, m.atol); d != "" {
				t.Errorf("forward: %s", d)
			}
			if len(want.Grads) != len(m.grads) {
				t.Fatalf("%d gradients, PyTorch has %d", len(m.grads), len(want.Grads))
			}
			j := 0
			for _, x := range m.inputs {
				if !x.RequiresGrad() {
					continue
				}
				got, w := m.grads[j], want.Grads[j].Decode()
				// A nil gradient (no path) is zeros, as for allow_unused.
				if got == nil {
					got = ZerosLike(x)
				}
				wt := w
				if wt == nil {
					wt = tensor.ZerosLike(x.Data())
				}
				if got.DType() != x.DType() {
					t.Errorf("grad %d has dtype %v, want %v", j, got.DType(), x.DType())
				}
				if d := oracle.Close(got.Data(), wt, m.rtol, m.atol); d != "" {
					t.Errorf("grad %d: %s", j, d)
				}
				j++
			}
		})
	}
}

// gradsOfWith is gradsOf with an explicit upstream gradient tensor.
func gradsOfWith(out *Tensor, xs []*Tensor, gout *Tensor) []*Tensor {
	var diff []*Tensor
	for _, x := range xs {
		if x.RequiresGrad() {
			diff = append(diff, x)
		}
	}
	return Grad([]*Tensor{out}, diff, GradOutputs(gout), AllowUnused())
}
