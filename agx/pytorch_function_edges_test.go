package agx_test

// Function mechanics that follow PyTorch 1.13 (issue #23, items 1-6): the
// expected values and message phrases were read off torch 1.13.

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
)

// TestBackwardTrailingNils: a Backward may return more gradients than inputs
// when the extras are nil (PyTorch drops trailing Nones); a non-nil extra is
// still "an incorrect number of gradients".
func TestBackwardTrailingNils(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra []*agx.Tensor
		err   string
	}{
		{"one nil", []*agx.Tensor{nil}, ""},
		{"two nils", []*agx.Tensor{nil, nil}, ""},
		{"tensor then nil", []*agx.Tensor{ptVec(1, 1, 1), nil}, "returned an incorrect number of gradients (expected 1, got 3)"},
		{"nil then tensor", []*agx.Tensor{nil, ptVec(1, 1, 1)}, "returned an incorrect number of gradients (expected 1, got 3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := agx.Func{FuncName: "Twice",
				Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(in[0].Mul(2.0)) },
				Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
					return append(agx.Outputs(g[0].Mul(2.0)), tc.extra...)
				}}
			x := ptLeaf(1, 2, 3)
			err := agx.Try(func() { agx.Apply(f, x).Sum().Backward() })
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				ptClose(t, "x.grad", x.Grad(), 2, 2, 2)
				return
			}
			if err == nil || !errors.Is(err, agx.ErrGradient) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got %v, want ErrGradient with %q", err, tc.err)
			}
		})
	}
}

// TestNeedsInputGradUnderNoGrad: PyTorch's needs_input_grad is each input's
// requires_grad even under no_grad, (True, False) here; nothing is recorded.
func TestNeedsInputGradUnderNoGrad(t *testing.T) {
	for _, dt := range []agx.DType{agx.Float64, agx.Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			var got []bool
			f := agx.Func{FuncName: "Mul",
				Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
					got = []bool{ctx.NeedsInputGrad(0), ctx.NeedsInputGrad(1)}
					return agx.Outputs(in[0].Mul(in[1]))
				},
				Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0], g[0]) }}
			x := agx.Ones(dt, 3).SetRequiresGrad(true)
			var y *agx.Tensor
			agx.NoGrad(func() { y = agx.Apply(f, x, agx.Ones(dt, 3)) })
			if len(got) != 2 || !got[0] || got[1] {
				t.Fatalf("NeedsInputGrad under NoGrad = %v, want [true false]", got)
			}
			if y.RequiresGrad() || y.GradFn() != nil {
				t.Fatalf("output under NoGrad records: requires_grad %v, grad_fn %v", y.RequiresGrad(), y.GradFn())
			}
		})
	}
}

// TestForwardReturnsSameTensorTwice: PyTorch gives back one object, standing
// for the last slot it was returned in (output_nr 1 here): a gradient through
// it reaches Backward as the second output's, the first gets zeros.
func TestForwardReturnsSameTensorTwice(t *testing.T) {
	var seen []*agx.Tensor
	f := agx.Func{FuncName: "Dup",
		Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
			y := in[0].Mul(2.0)
			return agx.Outputs(y, y)
		},
		Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
			seen = g
			return agx.Outputs(g[0].Add(g[1]))
		}}
	x := ptLeaf(1, 1, 1)
	out := agx.ApplyN(f, x)
	if out[0] != out[1] {
		t.Fatal("the same tensor returned twice gave two objects; PyTorch gives one")
	}
	out[0].Mul(ptVec(1, 2, 3)).Sum().Backward()
	ptClose(t, "grad of output 0", seen[0], 0, 0, 0)
	ptClose(t, "grad of output 1", seen[1], 1, 2, 3)
	ptClose(t, "x.grad", x.Grad(), 1, 2, 3)
}

// TestMarkDirtyNotReturned: a tensor marked dirty must be returned by Forward.
func TestMarkDirtyNotReturned(t *testing.T) {
	f := agx.Func{FuncName: "D",
		Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
			in[1].MulInPlace(2.0)
			ctx.MarkDirty(in[1])
			return agx.Outputs(in[0].Mul(2.0))
		},
		Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0], nil) }}
	for _, grad := range []bool{true, false} {
		ptPanics(t, func() { agx.Apply(f, ptLeaf(1, 2).SetRequiresGrad(grad), ptVec(1, 1)) }, agx.ErrGraph,
			"Some elements marked as dirty during the forward method were not returned as output")
	}
}

// fieldKeeper breaks the rule "save through ctx, never on the Function": it
// keeps its input in a field.
type fieldKeeper struct{ x *agx.Tensor }

func (f *fieldKeeper) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	f.x = in[0]
	return agx.Outputs(in[0].Mul(in[0]))
}

func (f *fieldKeeper) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.x).Mul(2.0))
}

// sliceKeeper keeps its tensors in a slice field, written element by element.
type sliceKeeper struct {
	name string
	keep []*agx.Tensor
}

func (f *sliceKeeper) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	f.keep[0] = in[0]
	return agx.Outputs(in[0].Mul(in[0]))
}

func (f *sliceKeeper) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.keep[0]).Mul(2.0))
}

// scaledByField holds a tensor it does not change in Forward: allowed.
type scaledByField struct{ w *agx.Tensor }

func (f *scaledByField) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Mul(f.w))
}

func (f *scaledByField) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.w))
}

// Functions that keep their input where a field walk of the Function's own
// fields would not see it: through a slice or pointer held by a value
// Function, in an array, a map, a nested struct behind a pointer, or an
// interface field.
type valSlice struct{ keep []*agx.Tensor }

func (f valSlice) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	f.keep[0] = in[0]
	return agx.Outputs(in[0].Mul(in[0]))
}
func (f valSlice) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.keep[0]).Mul(2.0))
}

type state struct{ x *agx.Tensor }
type valPtr struct{ st *state }

func (f valPtr) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	f.st.x = in[0]
	return agx.Outputs(in[0].Mul(in[0]))
}
func (f valPtr) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.st.x).Mul(2.0))
}

type ptrArr struct{ keep [1]*agx.Tensor }

func (f *ptrArr) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	f.keep[0] = in[0]
	return agx.Outputs(in[0].Mul(in[0]))
}
func (f *ptrArr) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.keep[0]).Mul(2.0))
}

type ptrMap struct{ keep map[string]*agx.Tensor }

func (f *ptrMap) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	f.keep["x"] = in[0]
	return agx.Outputs(in[0].Mul(in[0]))
}
func (f *ptrMap) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.keep["x"]).Mul(2.0))
}

type ptrNested struct{ st *state }

func (f *ptrNested) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	f.st.x = in[0]
	return agx.Outputs(in[0].Mul(in[0]))
}
func (f *ptrNested) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.st.x).Mul(2.0))
}

type ptrAny struct{ x any }

func (f *ptrAny) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	f.x = in[0]
	return agx.Outputs(in[0].Mul(in[0]))
}
func (f *ptrAny) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.x.(*agx.Tensor)).Mul(2.0))
}

// TestFunctionFieldTensorsRefused: a Function that keeps tensors in its own
// fields gives [20,40,60] where [2,4,6] is right when applied twice; Apply
// refuses it with the rule's words.
func TestFunctionFieldTensorsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     agx.Function
		field string
	}{
		{"pointer field", &fieldKeeper{}, "field x"},
		{"slice element", &sliceKeeper{keep: make([]*agx.Tensor, 1)}, "field keep"},
		{"value Function, slice element", valSlice{keep: make([]*agx.Tensor, 1)}, "field keep[0]"},
		{"value Function, through a pointer", valPtr{st: &state{}}, "field st.x"},
		{"array element", &ptrArr{}, "field keep[0]"},
		{"map value", &ptrMap{keep: map[string]*agx.Tensor{}}, "field keep[x]"},
		{"nested struct behind a pointer", &ptrNested{st: &state{}}, "field st.x"},
		{"interface field", &ptrAny{}, "field x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ptPanics(t, func() {
				x := ptLeaf(1, 2, 3)
				y1 := agx.Apply(tc.f, x)
				y2 := agx.Apply(tc.f, ptLeaf(10, 20, 30))
				_ = y2
				y1.Sum().Backward()
			}, agx.ErrGraph, "Forward stored a tensor in the Function's field", tc.field, "SaveForBackward", "never on the Function")
		})
	}
	t.Run("unchanged field allowed", func(t *testing.T) {
		f := &scaledByField{w: ptVec(2, 2, 2)}
		x := ptLeaf(1, 2, 3)
		agx.Apply(f, x).Sum().Backward()
		agx.Apply(f, ptLeaf(5, 5, 5))
		ptClose(t, "x.grad", x.Grad(), 2, 2, 2)
	})
}

// badIndexBackward indexes out of range in its Backward.
type badIndexBackward struct{}

func (badIndexBackward) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Mul(2.0))
}

func (badIndexBackward) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[3]) // only g[0] exists
}

// TestBackwardRuntimePanicNamed: a runtime panic in a custom Backward comes
// out of Try as an error naming the node and the line, wrapping the runtime
// error; with anomaly mode it also says where the forward was called.
// GradCheck reports it, and Try(MustGradCheck) returns the *GradCheckError.
func TestBackwardRuntimePanicNamed(t *testing.T) {
	for _, anomaly := range []bool{false, true} {
		prev := agx.SetDetectAnomaly(anomaly)
		err := agx.Try(func() { agx.Apply(badIndexBackward{}, ptLeaf(1, 2)).Sum().Backward() })
		agx.SetDetectAnomaly(prev)
		if err == nil {
			t.Fatal("no error")
		}
		var re runtime.Error
		if !errors.Is(err, agx.ErrFunctionPanic) || !errors.As(err, &re) {
			t.Fatalf("%v: does not wrap ErrFunctionPanic and the runtime.Error", err)
		}
		for _, p := range []string{"badIndexBackwardBackward", "index out of range", "badIndexBackward.Backward", "pytorch_function_edges_test.go"} {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("anomaly %v: %q lacks %q", anomaly, err, p)
			}
		}
		if anomaly && !strings.Contains(err.Error(), "TestBackwardRuntimePanicNamed") {
			t.Fatalf("anomaly mode: %q does not say where the forward was called", err)
		}
	}
	x := ptLeaf(1, 2).To(agx.Float64)
	err := agx.GradCheck(badIndexBackward{}, []*agx.Tensor{x})
	var ge *agx.GradCheckError
	if !errors.As(err, &ge) || !errors.Is(err, agx.ErrFunctionPanic) {
		t.Fatalf("GradCheck: got %v, want a *GradCheckError wrapping ErrFunctionPanic", err)
	}
	err = agx.Try(func() { agx.MustGradCheck(badIndexBackward{}, []*agx.Tensor{x}) })
	if !errors.As(err, &ge) {
		t.Fatalf("Try(MustGradCheck): got %v, want the *GradCheckError", err)
	}
}

// badIndexForward indexes out of range in its Forward.
type badIndexForward struct{}

func (badIndexForward) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[2]) // only in[0] exists
}

func (badIndexForward) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0])
}

// TestForwardRuntimePanicNamed: a runtime panic in a custom Forward comes out
// of Try as an error naming the Function, the method and the line, wrapping
// the runtime error, with or without inputs that require grad; an agx error
// raised inside Forward passes through as itself.
func TestForwardRuntimePanicNamed(t *testing.T) {
	for _, grad := range []bool{false, true} {
		err := agx.Try(func() { agx.Apply(badIndexForward{}, ptVec(1, 2).SetRequiresGrad(grad)) })
		var re runtime.Error
		var fe *agx.FunctionPanicError
		if !errors.Is(err, agx.ErrFunctionPanic) || !errors.As(err, &re) || !errors.As(err, &fe) {
			t.Fatalf("grad %v: %v does not wrap ErrFunctionPanic and the runtime.Error", grad, err)
		}
		if fe.Method != "Forward" {
			t.Errorf("grad %v: Method = %q, want Forward", grad, fe.Method)
		}
		for _, p := range []string{"badIndexForward: Forward panicked", "index out of range", "badIndexForward.Forward", "pytorch_function_edges_test.go"} {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("grad %v: %q lacks %q", grad, err, p)
			}
		}
	}
	shapeErr := agx.Func{
		Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(in[0].Add(in[1])) },
		Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor { return agx.Outputs(g[0], g[0]) },
	}
	err := agx.Try(func() { agx.ApplyN(shapeErr, ptLeaf(1, 2), ptLeaf(1, 2, 3)) })
	if err == nil || errors.Is(err, agx.ErrFunctionPanic) {
		t.Fatalf("an agx error inside Forward became %v, want it unchanged", err)
	}
}

// TestForwardReturnsSameTensorThrice: the one-object rule with three slots,
// and its limit (values read off torch 1.13): a new tensor returned at slots
// 0 and 2 is one object standing for slot 2; an input returned twice without
// MarkDirty is two objects (PyTorch makes a view per slot), each its own slot;
// a dirty input returned twice is the input itself, at the last slot.
func TestForwardReturnsSameTensorThrice(t *testing.T) {
	w := ptVec(1, 2, 3)
	for _, tc := range []struct {
		name      string
		fwd       func(ctx *agx.Ctx, x *agx.Tensor) []*agx.Tensor
		same      [][2]int // output pairs that are one object
		distinct  [][2]int // output pairs that are two objects
		use       func(o []*agx.Tensor) *agx.Tensor
		wantSeen  [][]float64
		wantXGrad []float64
	}{
		{"new tensor at 0 and 2",
			func(ctx *agx.Ctx, x *agx.Tensor) []*agx.Tensor {
				y := x.Mul(2.0)
				return agx.Outputs(y, x.Mul(3.0), y)
			}, [][2]int{{0, 2}}, [][2]int{{0, 1}},
			func(o []*agx.Tensor) *agx.Tensor { return o[0].Mul(w).Add(o[1].Mul(10.0)) },
			[][]float64{{0, 0, 0}, {10, 10, 10}, {1, 2, 3}}, []float64{11, 12, 13}},
		{"new tensor thrice",
			func(ctx *agx.Ctx, x *agx.Tensor) []*agx.Tensor {
				y := x.Mul(2.0)
				return agx.Outputs(y, y, y)
			}, [][2]int{{0, 1}, {1, 2}}, nil,
			func(o []*agx.Tensor) *agx.Tensor { return o[1].Mul(w) },
			[][]float64{{0, 0, 0}, {0, 0, 0}, {1, 2, 3}}, []float64{1, 2, 3}},
		{"input at 0 and 2",
			func(ctx *agx.Ctx, x *agx.Tensor) []*agx.Tensor { return agx.Outputs(x, x.Mul(2.0), x) },
			nil, [][2]int{{0, 2}},
			func(o []*agx.Tensor) *agx.Tensor { return o[0].Mul(w) },
			[][]float64{{1, 2, 3}, {0, 0, 0}, {0, 0, 0}}, []float64{1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []*agx.Tensor
			f := agx.Func{FuncName: "Dup3",
				Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor { return tc.fwd(ctx, in[0]) },
				Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
					seen = g
					return agx.Outputs(g[0].Add(g[1]).Add(g[2]))
				}}
			x := ptLeaf(1, 1, 1)
			o := agx.ApplyN(f, x)
			for _, p := range tc.same {
				if o[p[0]] != o[p[1]] {
					t.Fatalf("outputs %d and %d are two objects; PyTorch gives one", p[0], p[1])
				}
			}
			for _, p := range tc.distinct {
				if o[p[0]] == o[p[1]] {
					t.Fatalf("outputs %d and %d are one object; PyTorch gives two", p[0], p[1])
				}
			}
			tc.use(o).Sum().Backward()
			for k, want := range tc.wantSeen {
				ptClose(t, fmt.Sprintf("grad of output %d", k), seen[k], want...)
			}
			ptClose(t, "x.grad", x.Grad(), tc.wantXGrad...)
		})
	}
	t.Run("dirty input twice", func(t *testing.T) {
		var seen []*agx.Tensor
		f := agx.Func{FuncName: "DirtyTwice",
			Fwd: func(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
				in[0].MulInPlace(2.0)
				ctx.MarkDirty(in[0])
				return agx.Outputs(in[0], in[0])
			},
			Bwd: func(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
				seen = g
				return agx.Outputs(g[0].Add(g[1]).Mul(2.0))
			}}
		x0 := ptLeaf(1, 1, 1)
		x := x0.Mul(1.0)
		o := agx.ApplyN(f, x)
		if o[0] != o[1] || o[0] != x {
			t.Fatal("a dirty input returned twice is not the input itself at both slots")
		}
		o[0].Mul(w).Sum().Backward()
		ptClose(t, "grad of output 0", seen[0], 0, 0, 0)
		ptClose(t, "grad of output 1", seen[1], 1, 2, 3)
		ptClose(t, "x0.grad", x0.Grad(), 2, 4, 6)
	})
}
