package agx

import (
	"math"
	"testing"

	"github.com/goagx/agx/tensor"
)

// TestFastBackwardHookKeepsSlice checks that a post hook on an Add or Mul node,
// whose backward otherwise writes into the pass's reused slice, gets a slice
// of its own that still holds the gradients after the pass.
func TestFastBackwardHookKeepsSlice(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		for _, op := range []string{"Add", "Mul"} {
			t.Run(dt.String()+"/"+op, func(t *testing.T) {
				x := Full(dt, 3).SetRequiresGrad(true)
				w := Full(dt, 2).SetRequiresGrad(true)
				a := x.Mul(w).Add(w) // fast nodes that run after the hooked one
				var y *Tensor
				if op == "Add" {
					y = a.Add(w)
				} else {
					y = a.Mul(w)
				}
				var kept []*Tensor
				y.GradFn().RegisterHook(func(in, _ []*Tensor) []*Tensor {
					kept = in
					return nil
				})
				y.Mul(w).Backward()
				want := map[string][2]float64{"Add": {2, 2}, "Mul": {4, 16}}[op]
				if len(kept) != 2 || kept[0] == nil || kept[1] == nil {
					t.Fatalf("kept gradients %v", kept)
				}
				for i := range 2 {
					if got := kept[i].Item(); got != want[i] {
						t.Errorf("kept[%d] = %v, want %v", i, got, want[i])
					}
				}
			})
		}
	}
}

// TestSquareBackward checks x.Mul(x)'s fast backward (squareBackward, and
// the engine's in-place sum of its one g·x sent to both edges) against what Mul's two gradients give when the engine adds them: the
// same bits, g·x + g·x, with and without a gradient already in x.Grad,
// with an upstream gradient of another dtype, through a hook on the node
// (which sees g·x twice, as in PyTorch), and with CreateGraph, whose
// gradient must record so that a second derivative (2g) exists.
func TestSquareBackward(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		gen := tensor.NewGenerator(4)
		xv := New(gen.Randn(dt, 5, 7))
		gv := New(gen.Randn(dt, 5, 7))
		ref := func(g *Tensor) *tensor.Tensor {
			gx := tensor.Mul(g.Data(), xv.Data())
			if gx.DType() != dt {
				gx = gx.To(dt)
			}
			return tensor.Add(gx, gx)
		}
		same := func(t *testing.T, what string, got *Tensor, want *tensor.Tensor) {
			t.Helper()
			a, b := got.Float64s(), want.Float64s()
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Fatalf("%s[%d] = %v, want %v", what, i, a[i], b[i])
				}
			}
		}
		t.Run(dt.String()+"/fresh", func(t *testing.T) {
			x := xv.Detach().SetRequiresGrad(true)
			y := x.Mul(x)
			if y.GradFn().Name() != "MulBackward0" {
				t.Fatalf("grad_fn %s", y.GradFn().Name())
			}
			y.Backward(Gradient(gv))
			same(t, "grad", x.Grad(), ref(gv))
		})
		t.Run(dt.String()+"/accumulate", func(t *testing.T) {
			x := xv.Detach().SetRequiresGrad(true)
			x.Mul(x).Backward(Gradient(gv))
			x.Mul(x).Backward(Gradient(gv))
			once := ref(gv)
			same(t, "grad", x.Grad(), tensor.Add(once, once))
		})
		t.Run(dt.String()+"/other-dtype-gradient", func(t *testing.T) {
			other := Float64
			if dt == Float64 {
				other = Float32
			}
			g := gv.To(other)
			x := xv.Detach().SetRequiresGrad(true)
			x.Mul(x).Backward(Gradient(g))
			same(t, "grad", x.Grad(), ref(g))
		})
		t.Run(dt.String()+"/hook", func(t *testing.T) {
			x := xv.Detach().SetRequiresGrad(true)
			y := x.Mul(x)
			var seen []*Tensor
			y.GradFn().RegisterHook(func(in, _ []*Tensor) []*Tensor {
				seen = in
				return nil
			})
			y.Backward(Gradient(gv))
			gx := tensor.Mul(gv.Data(), xv.Data())
			if len(seen) != 2 || seen[0] == nil || seen[1] == nil {
				t.Fatalf("hook saw %v", seen)
			}
			same(t, "hook[0]", seen[0], gx)
			same(t, "hook[1]", seen[1], gx)
			same(t, "grad", x.Grad(), ref(gv))
		})
		t.Run(dt.String()+"/create-graph", func(t *testing.T) {
			x := xv.Detach().SetRequiresGrad(true)
			g := Grad([]*Tensor{x.Mul(x)}, []*Tensor{x}, GradOutputs(gv), CreateGraph(true))[0]
			if !g.RequiresGrad() {
				t.Fatal("the gradient with CreateGraph does not require grad")
			}
			same(t, "grad", g, ref(gv))
			gg := Grad([]*Tensor{g}, []*Tensor{x}, GradOutputs(OnesLike(g)))[0]
			same(t, "second derivative", gg, tensor.Add(gv.Data(), gv.Data()))
		})
		t.Run(dt.String()+"/another-gradient-first", func(t *testing.T) {
			// x's slot already holds another gradient o when x·x's arrive:
			// (o + g·x) + g·x, as with two products, and as the slow path
			// (a hook on the node) gives. In float32, at x = 2^-24, o + 2g·x
			// would round differently (1.0000001 against 1).
			v := 0x1p-53
			if dt == Float32 {
				v = 0x1p-24
			}
			grads := make([]float64, 2)
			for i, hooked := range []bool{false, true} {
				x := Full(dt, v).SetRequiresGrad(true)
				sq := x.Mul(x)
				if hooked {
					sq.GradFn().RegisterHook(func(_, _ []*Tensor) []*Tensor { return nil })
				}
				sq.Add(x.Mul(1.0)).Sum().Backward()
				grads[i] = x.Grad().Item()
			}
			if math.Float64bits(grads[0]) != math.Float64bits(grads[1]) {
				t.Fatalf("grad %v, with a hook on the node %v", grads[0], grads[1])
			}
		})
		t.Run(dt.String()+"/anomaly", func(t *testing.T) {
			// g·x finite, 2g·x not: the node's results are finite, as
			// PyTorch's MulBackward0's are, so anomaly mode lets them pass.
			xv, gv := 1e300, 1.5e8 // g·x = 1.5e308, 2g·x overflows
			if dt == Float32 {
				xv, gv = 1e19, 2e19 // g·x = 2e38
			}
			x := Full(dt, xv).SetRequiresGrad(true)
			DetectAnomaly(func() { x.Mul(x).Backward(Gradient(Full(dt, gv))) })
			if g := x.Grad().Item(); !math.IsInf(g, 1) {
				t.Fatalf("grad %v, want +Inf", g)
			}
		})
		t.Run(dt.String()+"/gradgradcheck", func(t *testing.T) {
			x := xv.Detach().To(Float64).SetRequiresGrad(true)
			if err := GradGradCheck(func(x *Tensor) *Tensor { return x.Mul(x) }, []*Tensor{x}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
