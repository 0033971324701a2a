package agx

import (
	"errors"
	"strings"
	"testing"
)

// fwdCube is x³ with a Jvp that reads what Forward saved.
type fwdCube struct{ badJvp bool }

func (fwdCube) Forward(ctx *Ctx, in ...*Tensor) []*Tensor {
	ctx.SaveForBackward(in[0])
	ctx.Set("p", 3.0)
	return Outputs(in[0].Pow(3))
}
func (fwdCube) Backward(ctx *Ctx, g ...*Tensor) []*Tensor {
	x := ctx.SavedTensors()[0]
	return Outputs(g[0].Mul(x.Pow(2)).Mul(3))
}
func (f fwdCube) Jvp(ctx *Ctx, t ...*Tensor) []*Tensor {
	x := ctx.SavedTensors()[0]
	p := CtxValue[float64](ctx, "p")
	if f.badJvp {
		p = 2 // wrong: forward mode disagrees with finite differences and Backward
	}
	return Outputs(t[0].Mul(x.Pow(p - 1)).Mul(p))
}

// fwdNoJvp has no Jvp.
type fwdNoJvp struct{}

func (fwdNoJvp) Forward(ctx *Ctx, in ...*Tensor) []*Tensor { return Outputs(in[0].Mul(2)) }
func (fwdNoJvp) Backward(ctx *Ctx, g ...*Tensor) []*Tensor { return Outputs(g[0].Mul(2)) }

// fwdTwo has two inputs and two outputs (x·y, x + y).
type fwdTwo struct{ tangents int }

func (fwdTwo) Forward(ctx *Ctx, in ...*Tensor) []*Tensor {
	ctx.SaveForBackward(in[0], in[1])
	return Outputs(in[0].Mul(in[1]), in[0].Add(in[1]))
}
func (fwdTwo) Backward(ctx *Ctx, g ...*Tensor) []*Tensor {
	s := ctx.SavedTensors()
	return Outputs(g[0].Mul(s[1]).Add(g[1]), g[0].Mul(s[0]).Add(g[1]))
}
func (f fwdTwo) Jvp(ctx *Ctx, t ...*Tensor) []*Tensor {
	s := ctx.SavedTensors()
	out := Outputs(t[0].Mul(s[1]).Add(t[1].Mul(s[0])), t[0].Add(t[1]))
	if f.tangents > 0 {
		return out[:f.tangents]
	}
	return out
}

// fwdScaleInPlace multiplies its input by 2 in place (MarkDirty).
type fwdScaleInPlace struct{}

func (fwdScaleInPlace) Forward(ctx *Ctx, in ...*Tensor) []*Tensor {
	in[0].Data().MulInPlace(2.0)
	in[0].BumpVersion()
	ctx.MarkDirty(in[0])
	return Outputs(in[0])
}
func (fwdScaleInPlace) Backward(ctx *Ctx, g ...*Tensor) []*Tensor { return Outputs(g[0].Mul(2)) }
func (fwdScaleInPlace) Jvp(ctx *Ctx, t ...*Tensor) []*Tensor      { return Outputs(t[0].Mul(2)) }

func TestForwardFunctionJvp(t *testing.T) {
	x := FromSlice([]float64{0.5, -1.5, 2}, 3)
	v := FromSlice([]float64{1, 2, -1}, 3)
	y := Apply(fwdCube{}, MakeDual(x, v))
	want := []float64{3 * 0.25 * 1, 3 * 2.25 * 2, 3 * 4 * -1}
	if d := opClose(y.Tangent().Float64s(), want, 1e-12, 1e-12); d != "" {
		t.Fatalf("tangent: %s", d)
	}
	// Two inputs, one dual: the other's tangent arrives as zeros.
	a, b := FromSlice([]float64{1, 2}, 2), FromSlice([]float64{3, 4}, 2)
	outs := ApplyN(fwdTwo{}, MakeDual(a, OnesLike(a)), b)
	if d := opClose(outs[0].Tangent().Float64s(), []float64{3, 4}, 0, 0); d != "" {
		t.Errorf("tangent of x·y: %s", d)
	}
	if d := opClose(outs[1].Tangent().Float64s(), []float64{1, 1}, 0, 0); d != "" {
		t.Errorf("tangent of x+y: %s", d)
	}
	// Func with Jv.
	sq := Func{FuncName: "Sq",
		Fwd: func(ctx *Ctx, in ...*Tensor) []*Tensor { ctx.SaveForBackward(in[0]); return Outputs(in[0].Mul(in[0])) },
		Bwd: func(ctx *Ctx, g ...*Tensor) []*Tensor { return Outputs(g[0].Mul(ctx.SavedTensors()[0]).Mul(2)) },
		Jv:  func(ctx *Ctx, tg ...*Tensor) []*Tensor { return Outputs(tg[0].Mul(ctx.SavedTensors()[0]).Mul(2)) }}
	if err := GradCheck(sq, []*Tensor{x.Clone().SetRequiresGrad(true)}, CheckForwardAD()); err != nil {
		t.Errorf("Func with Jv: %v", err)
	}
	// MarkDirty: the input itself gets the new tangent.
	c := FromSlice([]float64{1, 2}, 2).Clone()
	d := MakeDual(c, FromSlice([]float64{1, -1}, 2))
	r := Apply(fwdScaleInPlace{}, d)
	if r != d || opClose(d.Tangent().Float64s(), []float64{2, -2}, 0, 0) != "" {
		t.Errorf("MarkDirty: got %v with tangent %v, want the input with tangent [2 -2]", r, d.Tangent())
	}
	// Inputs that are not dual: Jvp is not called, outputs have no tangent.
	if y := Apply(fwdCube{}, x); y.Tangent() != nil {
		t.Errorf("tangent without dual input: %v", y.Tangent())
	}
}

func TestForwardFunctionErrors(t *testing.T) {
	x := FromSlice([]float64{1, 2}, 2)
	dual := MakeDual(x, OnesLike(x))
	cases := []struct {
		name string
		f    func()
		want []string
	}{
		{"no Jvp", func() { Apply(fwdNoJvp{}, dual) }, []string{"fwdNoJvp has no Jvp", "implement Jvp"}},
		{"Func without Jv", func() {
			Apply(Func{FuncName: "Plain", Fwd: func(ctx *Ctx, in ...*Tensor) []*Tensor { return Outputs(in[0].Clone()) },
				Bwd: func(ctx *Ctx, g ...*Tensor) []*Tensor { return g }}, dual)
		}, []string{"Plain has no Jvp"}},
		{"too few tangents", func() { ApplyN(fwdTwo{tangents: 1}, dual, x) }, []string{"Jvp returned 1 tangents for 2 outputs"}},
		{"tangent shape", func() { MakeDual(x, Ones(Float64, 3)) }, []string{"different size", "[2]", "[3]"}},
		{"tangent dtype", func() { MakeDual(x, Ones(Float32, 2)) }, []string{"dtype float64", "float32"}},
		{"int primal", func() { MakeDual(x.To(Int64), Ones(Float64, 2)) }, []string{"floating point primal"}},
		{"in-place on a dual", func() {
			d := MakeDual(FromSlice([]float64{1, 2}, 2), OnesLike(x))
			d.MulInPlace(3.0)
			if got := d.Tangent().Float64s(); got[0] != 3 || got[1] != 3 {
				panic("tangent not updated in place")
			}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Try(tc.f)
			if tc.want == nil {
				// Allowed.
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if !errors.Is(err, ErrForwardAD) {
				t.Fatalf("error %v, want ErrForwardAD", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// In-place on a view of a dual tensor is refused.
	base := MakeDual(FromSlice([]float64{1, 2, 3}, 3), OnesLike(FromSlice([]float64{1, 2, 3}, 3))).Mul(1.0)
	err := Try(func() { base.Narrow(0, 0, 2).MulInPlace(2.0) })
	if !errors.Is(err, ErrForwardAD) || !strings.Contains(err.Error(), "view with forward-mode tangents") {
		t.Errorf("in-place on a view of a dual: %v", err)
	}
}

// TestForwardGradCheckFunctions: CheckForwardAD passes a correct Jvp, and
// reports a wrong one against finite differences, with the Jacobians for the
// heatmap, and a Function without Jvp as ErrForwardAD.
func TestForwardGradCheckFunctions(t *testing.T) {
	x := FromSlice([]float64{0.5, -1.5, 2}, 3).SetRequiresGrad(true)
	y := FromSlice([]float64{1.5, 0.25, -1}, 3).SetRequiresGrad(true)
	if err := GradCheck(fwdCube{}, []*Tensor{x}, CheckForwardAD()); err != nil {
		t.Errorf("fwdCube: %v", err)
	}
	if err := GradCheck(fwdTwo{}, []*Tensor{x, y}, CheckForwardAD()); err != nil {
		t.Errorf("fwdTwo: %v", err)
	}
	if err := GradGradCheck(fwdTwo{}, []*Tensor{x, y}, CheckForwardAD()); err != nil {
		t.Errorf("fwdTwo forward-over-reverse: %v", err)
	}
	if err := GradCheck(fwdNoJvp{}, []*Tensor{x}); err != nil {
		t.Errorf("without CheckForwardAD a Function needs no Jvp: %v", err)
	}
	err := GradCheck(fwdCube{badJvp: true}, []*Tensor{x}, CheckForwardAD())
	var ge *GradCheckError
	if !errors.As(err, &ge) || ge.Kind != "forward-ad" || ge.Labels != [2]string{"numerical", "forward mode"} || ge.AnalyticalJacobian == nil {
		t.Fatalf("bad Jvp: %#v", err)
	}
	if !strings.Contains(ge.Msg, "Jacobian computed with forward mode mismatch for output 0 with respect to input 0") {
		t.Errorf("message: %s", ge.Msg)
	}
	if err := GradCheck(fwdCube{badJvp: true}, []*Tensor{x}, CheckForwardAD(), FastMode()); !errors.As(err, &ge) || ge.Kind != "forward-ad" {
		t.Errorf("bad Jvp in fast mode: %v", err)
	}
	err = GradCheck(fwdNoJvp{}, []*Tensor{x}, CheckForwardAD())
	if !errors.Is(err, ErrGradCheck) || !errors.Is(err, ErrForwardAD) {
		t.Errorf("no Jvp: %v", err)
	}
}

// TestForwardOverReverse: a Hessian-vector product by forward-over-reverse,
// the tangent of Grad's result with x dual, matches H·v.
func TestForwardOverReverse(t *testing.T) {
	// f(x) = Σ x³·y with y fixed: H = diag(6·x·y)
	xv := []float64{0.5, -1, 2}
	yv := []float64{1, 2, 3}
	v := []float64{1, -1, 0.5}
	for _, create := range []bool{true, false} {
		x := MakeDual(FromSlice(xv, 3).SetRequiresGrad(true), FromSlice(v, 3))
		f := x.Pow(3).Mul(FromSlice(yv, 3)).Sum()
		g := Grad1(f, x, CreateGraph(create))
		if g.Tangent() == nil {
			t.Fatalf("create=%v: gradient has no tangent", create)
		}
		want := make([]float64, 3)
		for i := range want {
			want[i] = 6 * xv[i] * yv[i] * v[i]
		}
		if d := opClose(g.Tangent().Float64s(), want, 1e-12, 1e-12); d != "" {
			t.Errorf("create=%v: Hv: %s", create, d)
		}
	}
}
