package agx

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"testing"

	"github.com/goagx/agx/tensor"
)

// The per-op tests share one harness. Each built-in op is an opCase: its
// inputs (small concrete values), the function under test, and the forward
// values it must produce. runOpCases then checks, per case:
//   - float64: forward values, GradCheck and GradGradCheck (inputs are chosen
//     away from kinks), and that each input's gradient has the input's shape
//     (broadcast operands' gradients are summed back);
//   - float32: forward values, and that backward runs, keeps Float32 and agrees
//     with the float64 gradients.
// The same cases feed the PyTorch oracle (oracle_test.go), with seeded random
// values of the same shapes in place of the concrete ones.

// inKind says what an op input is.
type inKind int

const (
	inGrad  inKind = iota // floating point, requires grad
	inConst               // floating point, no grad
	inIndex               // Int64 indices (values kept by the oracle)
	inMask                // Bool mask from 0/1 values (kept by the oracle)
)

// opIn describes one input of an op case.
type opIn struct {
	kind  inKind
	shape []int
	vals  []float64
	// Random values for the oracle: uniform in [lo, hi) (default [-2, 2)),
	// with |x| ≥ away when away > 0 (kinks at 0).
	lo, hi, away float64
	// fixed makes the oracle keep the concrete values (index and mask inputs
	// always keep them).
	fixed bool
}

func gIn(shape []int, vals ...float64) opIn { return opIn{kind: inGrad, shape: shape, vals: vals} }
func cIn(shape []int, vals ...float64) opIn { return opIn{kind: inConst, shape: shape, vals: vals} }
func idxIn(shape []int, vals ...float64) opIn {
	return opIn{kind: inIndex, shape: shape, vals: vals}
}
func maskIn(shape []int, vals ...float64) opIn { return opIn{kind: inMask, shape: shape, vals: vals} }

// rng restricts the oracle's random values to [lo, hi).
func (in opIn) rng(lo, hi float64) opIn { in.lo, in.hi = lo, hi; return in }

// keep makes the oracle use the concrete values.
func (in opIn) keep() opIn { in.fixed = true; return in }

// kinked keeps the oracle's random values at least a away from 0.
func (in opIn) kinked(a float64) opIn { in.away = a; return in }

func shp(dims ...int) []int { return dims }

type opCase struct {
	name string
	in   []opIn
	f    func(x []*Tensor) *Tensor
	want []float64 // forward values on the concrete inputs
	// wantShape is the output's shape (nil: not checked).
	wantShape []int
	// ste: the gradient is straight-through, not the derivative of the forward
	// (or finite differences cannot resolve it): GradCheck is replaced by a
	// check of wantGrad for the upstream gradient gradOut (ones when nil).
	ste      bool
	gradOut  []float64
	wantGrad [][]float64
	// oracle names the op for the PyTorch reference script ("" when the case
	// is not sent); params are its non-tensor arguments.
	oracle string
	params map[string]any
	// noGradGrad skips GradGradCheck (finite differences of the first
	// derivative are undefined at the chosen point, e.g. pow at base 0).
	noGradGrad bool
	// f32Tol is the float32 forward tolerance (default 1e-5 relative).
	f32Tol float64
}

// build makes the case's inputs in dtype dt from their concrete values.
func (in opIn) build(dt DType) *Tensor {
	switch in.kind {
	case inIndex:
		return New(tensor.FromSlice(in.vals, in.shape...).To(Int64))
	case inMask:
		return New(tensor.FromSlice(in.vals, in.shape...).To(Bool))
	}
	t := New(tensor.FromSlice(in.vals, in.shape...).To(dt))
	if in.kind == inGrad {
		t.SetRequiresGrad(true)
	}
	return t
}

// random makes the input with seeded random values (index and mask inputs
// keep their concrete values).
func (in opIn) random(dt DType, gen *tensor.Generator) *Tensor {
	if in.kind == inIndex || in.kind == inMask || in.fixed {
		return in.build(dt)
	}
	lo, hi := in.lo, in.hi
	if lo == 0 && hi == 0 {
		lo, hi = -2, 2
	}
	n := 1
	for _, d := range in.shape {
		n *= d
	}
	vals := make([]float64, n)
	for i := range vals {
		for {
			v := lo + (hi-lo)*gen.Float64()
			if math.Abs(v) >= in.away {
				vals[i] = v
				break
			}
		}
	}
	r := in
	r.vals = vals
	return r.build(dt)
}

func buildInputs(ins []opIn, dt DType) []*Tensor {
	xs := make([]*Tensor, len(ins))
	for i, in := range ins {
		xs[i] = in.build(dt)
	}
	return xs
}

// seedOf derives a generator seed from a case name.
func seedOf(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// opClose reports the first element where got and want differ by more than
// atol + rtol·|want|.
func opClose(got, want []float64, rtol, atol float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d values, want %d: got %v, want %v", len(got), len(want), got, want)
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > atol+rtol*math.Abs(want[i]) || math.IsNaN(got[i]) != math.IsNaN(want[i]) {
			return fmt.Sprintf("element %d: got %.10g, want %.10g\ngot  %v\nwant %v", i, got[i], want[i], got, want)
		}
	}
	return ""
}

// gradsOf runs backward from out with upstream gradient gout (ones when nil)
// and returns the gradients of the inputs that require grad.
func gradsOf(out *Tensor, xs []*Tensor, gout []float64) []*Tensor {
	var gt *Tensor
	if gout == nil {
		gt = OnesLike(out)
	} else {
		gt = New(tensor.FromSlice(gout, len(gout)).Reshape(out.Shape()...).To(out.DType()))
	}
	var diff []*Tensor
	for _, x := range xs {
		if x.RequiresGrad() {
			diff = append(diff, x)
		}
	}
	return Grad([]*Tensor{out}, diff, GradOutputs(gt), AllowUnused())
}

func runOpCases(t *testing.T, cases []opCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var grads64 []*Tensor
			t.Run("float64", func(t *testing.T) {
				xs := buildInputs(tc.in, Float64)
				out := tc.f(xs)
				if out.DType() != Float64 {
					t.Fatalf("dtype %v, want float64", out.DType())
				}
				if tc.wantShape != nil && !slices.Equal(out.Shape(), tc.wantShape) {
					t.Fatalf("shape %v, want %v", out.Shape(), tc.wantShape)
				}
				if d := opClose(out.Float64s(), tc.want, 1e-12, 1e-12); d != "" {
					t.Fatalf("forward: %s", d)
				}
				if !out.RequiresGrad() {
					t.Fatalf("output does not require grad")
				}
				grads64 = gradsOf(out, xs, tc.gradOut)
				k := 0
				for i, x := range xs {
					if !x.RequiresGrad() {
						continue
					}
					gr := grads64[k]
					k++
					if gr == nil {
						continue
					}
					if !slices.Equal(gr.Shape(), x.Shape()) || gr.DType() != Float64 {
						t.Errorf("grad of input %d: %v %v, want %v float64", i, gr.Shape(), gr.DType(), x.Shape())
					}
				}
				fn := func(in ...*Tensor) *Tensor { return tc.f(in) }
				if tc.ste {
					for i, w := range tc.wantGrad {
						if d := opClose(grads64[i].Float64s(), w, 1e-12, 1e-12); d != "" {
							t.Errorf("grad of input %d: %s", i, d)
						}
					}
				} else if err := GradCheck(fn, xs); err != nil {
					t.Errorf("GradCheck: %v", err)
				}
				if tc.noGradGrad {
					return
				}
				if err := GradGradCheck(fn, xs); err != nil {
					t.Errorf("GradGradCheck: %v", err)
				}
			})
			t.Run("float32", func(t *testing.T) {
				xs := buildInputs(tc.in, Float32)
				out := tc.f(xs)
				if out.DType() != Float32 {
					t.Fatalf("dtype %v, want float32", out.DType())
				}
				tol := tc.f32Tol
				if tol == 0 {
					tol = 1e-5
				}
				if d := opClose(out.Float64s(), tc.want, tol, tol); d != "" {
					t.Fatalf("forward: %s", d)
				}
				grads := gradsOf(out, xs, tc.gradOut)
				for i, gr := range grads {
					if gr == nil {
						continue
					}
					if gr.DType() != Float32 {
						t.Errorf("grad %d has dtype %v, want float32", i, gr.DType())
					}
					if grads64 != nil && grads64[i] != nil {
						if d := opClose(gr.Float64s(), grads64[i].Float64s(), 10*tol, 10*tol); d != "" {
							t.Errorf("grad %d differs from float64: %s", i, d)
						}
					}
				}
			})
		})
	}
}

// opMap applies f to each value (forward references of element-wise ops).
func opMap(vals []float64, f func(float64) float64) []float64 {
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = f(v)
	}
	return out
}

// opZip applies f pairwise.
func opZip(a, b []float64, f func(x, y float64) float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = f(a[i], b[i])
	}
	return out
}

// opBcast broadcasts row-major values of shape from to shape to.
func opBcast(vals []float64, from, to []int) []float64 {
	n := 1
	for _, d := range to {
		n *= d
	}
	lead := len(to) - len(from)
	out := make([]float64, n)
	idx := make([]int, len(to))
	for k := range out {
		off := 0
		for d := range from {
			i := idx[d+lead]
			if from[d] == 1 {
				i = 0
			}
			off = off*from[d] + i
		}
		out[k] = vals[off]
		for d := len(to) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < to[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}
