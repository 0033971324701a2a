package agx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goagx/agx/internal/oracle"
	"github.com/goagx/agx/tensor"
)

// The functions of testdata/oracle/functional.py, written with agx ops.
var functionalFns = map[string]struct {
	f      func(in ...*Tensor) []*Tensor
	shapes [][]int
}{
	"vec": {func(in ...*Tensor) []*Tensor { return Outputs(in[1].MatMul(in[0]).Tanh()) }, [][]int{{3, 1}, {2, 3}}},
	"two": {func(in ...*Tensor) []*Tensor {
		return Outputs(in[0].Mul(in[1].Exp()), in[0].Sin().Mul(in[1]).Sum())
	}, [][]int{{3}, {3}}},
	"indep": {func(in ...*Tensor) []*Tensor { return Outputs(in[0].Exp().Sum()) }, [][]int{{3}, {3}}},
	"scalar": {func(in ...*Tensor) []*Tensor {
		a := in[0].Exp().MatMul(in[1]).Pow(2).Sum()
		return Outputs(a.Add(in[0].Sin().Sum().Mul(in[1].Mul(in[1]).Sum())))
	}, [][]int{{2, 2}, {2, 1}}},
	"linear": {func(in ...*Tensor) []*Tensor { return Outputs(in[0].Mul(2).Sum()) }, [][]int{{3}}},
}

// functionalCase is one call of the functional API.
type functionalCase struct {
	op, fn         string
	create, strict bool
	vNil           bool
	forward        bool // JacobianStrategy / OuterJacobianStrategy(ForwardMode)
}

// runFunctional calls agx's op: the outputs (for the product ops) and the
// results, flattened as the oracle flattens them.
func runFunctional(c functionalCase, xs, v []*Tensor) (outs, res []*Tensor) {
	f := functionalFns[c.fn].f
	opts := []FunctionalOption{CreateGraph(c.create), Strict(c.strict)}
	if c.forward && c.op == "jacobian" {
		opts = append(opts, JacobianStrategy(ForwardMode))
	} else if c.forward {
		opts = append(opts, OuterJacobianStrategy(ForwardMode))
	}
	switch c.op {
	case "vjp":
		outs, res = VJP(f, xs, v, opts...)
	case "jvp":
		outs, res = JVP(f, xs, v, opts...)
	case "vhp", "hvp":
		var o *Tensor
		if c.op == "vhp" {
			o, res = VHP(f, xs, v, opts...)
		} else {
			o, res = HVP(f, xs, v, opts...)
		}
		outs = []*Tensor{o}
	case "jacobian", "hessian":
		var m [][]*Tensor
		if c.op == "jacobian" {
			m = Jacobian(f, xs, opts...)
		} else {
			m = Hessian(f, xs, opts...)
		}
		for _, row := range m {
			res = append(res, row...)
		}
	}
	return outs, res
}

// TestOracleFunctional compares VJP, JVP, Jacobian, Hessian, VHP and HVP
// with torch.autograd.functional on the same functions and inputs, in
// float64 and float32, with and without create_graph and strict: the values,
// which results require grad, the gradients of the results when they keep
// their graph, and the strict-mode errors.
func TestOracleFunctional(t *testing.T) {
	oracle.Skip(t)
	var cases []functionalCase
	for _, op := range []string{"vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"} {
		fns := []string{"vec", "two", "indep"}
		if op == "hessian" || op == "vhp" || op == "hvp" {
			fns = []string{"scalar", "indep", "linear"}
		}
		for _, fn := range fns {
			for _, create := range []bool{false, true} {
				for _, strict := range []bool{false, true} {
					cases = append(cases, functionalCase{op: op, fn: fn, create: create, strict: strict})
				}
			}
		}
	}
	// v may be left out for a one-element output (vjp) or input (hvp).
	cases = append(cases, functionalCase{op: "vjp", fn: "indep", vNil: true},
		functionalCase{op: "vjp", fn: "vec", vNil: true})
	// The forward-mode strategies (PyTorch with vectorize=True, which refuses
	// strict; agx's strict forward mode is tested against reverse mode in
	// TestFunctionalForwardStrategy). With create_graph both refuse.
	for _, fn := range []string{"vec", "two", "indep"} {
		for _, create := range []bool{false, true} {
			cases = append(cases, functionalCase{op: "jacobian", fn: fn, create: create, forward: true})
		}
	}
	for _, fn := range []string{"scalar", "indep", "linear"} {
		for _, create := range []bool{false, true} {
			cases = append(cases, functionalCase{op: "hessian", fn: fn, create: create, forward: true})
		}
	}

	type request struct {
		Name   string          `json:"name"`
		Op     string          `json:"op"`
		Fn     string          `json:"fn"`
		Inputs []oracle.Tensor `json:"inputs"`
		V      []oracle.Tensor `json:"v"`
		Create bool            `json:"create"`
		Strict bool            `json:"strict"`
		// Strategy is "forward-mode" for the forward strategies, else empty.
		Strategy string `json:"strategy,omitempty"`
	}
	type result struct {
		Name         string          `json:"name"`
		Error        string          `json:"error"`
		Outputs      []oracle.Tensor `json:"outputs"`
		Results      []oracle.Tensor `json:"results"`
		RequiresGrad []bool          `json:"requires_grad"`
		Second       []oracle.Tensor `json:"second"`
	}
	type local struct {
		c      functionalCase
		dt     DType
		xs, v  []*Tensor
		err    error
		outs   []*Tensor
		res    []*Tensor
		second []*Tensor
	}
	var reqs []request
	var mine []local
	for _, dt := range []DType{Float64, Float32} {
		for _, c := range cases {
			name := fmt.Sprintf("%s/%s/create=%v/strict=%v/vnil=%v/%v", c.op, c.fn, c.create, c.strict, c.vNil, dt)
			if c.forward {
				name = fmt.Sprintf("%s/forward-mode/%s/create=%v/%v", c.op, c.fn, c.create, dt)
			}
			gen := tensor.NewGenerator(seedOf(name))
			shapes := functionalFns[c.fn].shapes
			r := request{Name: name, Op: c.op, Fn: c.fn, Create: c.create, Strict: c.strict}
			if c.forward {
				r.Strategy = "forward-mode"
			}
			l := local{c: c, dt: dt}
			for _, s := range shapes {
				x := New(gen.Randn(Float64, s...).Mul(tensor.Scalar(0.5)).To(dt)).SetRequiresGrad(true)
				l.xs = append(l.xs, x)
				r.Inputs = append(r.Inputs, oracle.Encode(x.Data()))
			}
			if !c.vNil {
				// v is shaped like the outputs (vjp) or the inputs (the others).
				vs := shapes
				if c.op == "vjp" {
					vs = nil
					for _, o := range functionalFns[c.fn].f(l.xs...) {
						vs = append(vs, o.Shape())
					}
				}
				if c.op != "jacobian" && c.op != "hessian" {
					for _, s := range vs {
						v := New(gen.Randn(Float64, s...).To(dt))
						l.v = append(l.v, v)
						r.V = append(r.V, oracle.Encode(v.Data()))
					}
				}
			}
			l.err = Try(func() {
				l.outs, l.res = runFunctional(c, l.xs, l.v)
				if c.create {
					var total *Tensor
					for _, x := range l.res {
						if x.RequiresGrad() {
							if total == nil {
								total = x.Sum()
							} else {
								total = total.Add(x.Sum())
							}
						}
					}
					if total != nil {
						l.second = Grad([]*Tensor{total}, l.xs, AllowUnused())
					}
				}
			})
			reqs = append(reqs, r)
			mine = append(mine, l)
		}
	}
	var res []result
	if err := oracle.RunFile("testdata/oracle/functional.py", reqs, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != len(reqs) {
		t.Fatalf("oracle returned %d results for %d cases", len(res), len(reqs))
	}
	errs := 0
	for _, r := range res {
		if r.Error != "" {
			errs++
		}
	}
	t.Logf("%d calls compared with torch.autograd.functional (%d of them raise in PyTorch)", len(reqs), errs)
	for k, m := range mine {
		want := res[k]
		t.Run(reqs[k].Name, func(t *testing.T) {
			if want.Error != "" || m.err != nil {
				if m.err == nil || want.Error == "" {
					t.Fatalf("agx error %v, PyTorch error %q", m.err, want.Error)
				}
				// PyTorch's message, up to its first period, is in agx's.
				key := strings.SplitN(want.Error, ".", 2)[0]
				if !strings.Contains(m.err.Error(), key) {
					t.Fatalf("agx error %q lacks PyTorch's %q", m.err, key)
				}
				return
			}
			rtol, atol := 1e-10, 1e-12
			if m.dt == Float32 {
				rtol, atol = 1e-4, 1e-5
			}
			cmp := func(what string, got []*Tensor, want []oracle.Tensor) {
				if len(got) != len(want) {
					t.Fatalf("%s: %d tensors, PyTorch %d", what, len(got), len(want))
				}
				for i := range got {
					if got[i].DType() != m.dt {
						t.Errorf("%s %d has dtype %v", what, i, got[i].DType())
					}
					if d := oracle.Close(got[i].Data(), want[i].Decode(), rtol, atol); d != "" {
						t.Errorf("%s %d: %s", what, i, d)
					}
				}
			}
			cmp("output", m.outs, want.Outputs)
			cmp("result", m.res, want.Results)
			for i, r := range m.res {
				// PyTorch's vectorized forward mode leaves its results
				// attached without create_graph; agx detaches every result
				// then, whatever the strategy.
				if m.c.forward && !m.c.create {
					if r.RequiresGrad() {
						t.Errorf("result %d requires grad without create_graph", i)
					}
					continue
				}
				if r.RequiresGrad() != want.RequiresGrad[i] {
					t.Errorf("result %d requires grad: %v, PyTorch %v", i, r.RequiresGrad(), want.RequiresGrad[i])
				}
			}
			for i, o := range m.outs {
				if o.RequiresGrad() != m.c.create {
					t.Errorf("output %d requires grad: %v with create_graph=%v", i, o.RequiresGrad(), m.c.create)
				}
			}
			if m.c.create {
				if (m.second == nil) != (want.Second == nil) {
					t.Fatalf("second derivatives: agx %v, PyTorch %v", m.second != nil, want.Second != nil)
				}
				for i := range m.second {
					if m.second[i] == nil {
						m.second[i] = ZerosLike(m.xs[i])
					}
				}
				if m.second != nil {
					cmp("gradient of the results", m.second, want.Second)
				}
			}
		})
	}
}
