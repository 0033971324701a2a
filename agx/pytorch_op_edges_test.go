package agx_test

// Smaller mismatches with PyTorch 1.13 (issue #23 item 13); expected values
// and messages were read off torch 1.13.

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// TestBoolArithmetic: + and maximum of bools are "or", * and minimum "and",
// staying Bool (True + True is True); - is refused; / divides 0s and 1s.
func TestBoolArithmetic(t *testing.T) {
	a := agx.FromSlice([]bool{true, false, true, false}, 4)
	b := agx.FromSlice([]bool{true, true, false, false}, 4)
	for _, tc := range []struct {
		name string
		f    func() *agx.Tensor
		dt   agx.DType
		want []float64
		err  string
	}{
		{"add", func() *agx.Tensor { return a.Add(b) }, agx.Bool, []float64{1, 1, 1, 0}, ""},
		{"add Go bool", func() *agx.Tensor { return a.Add(true) }, agx.Bool, []float64{1, 1, 1, 1}, ""},
		{"mul", func() *agx.Tensor { return a.Mul(b) }, agx.Bool, []float64{1, 0, 0, 0}, ""},
		{"maximum", func() *agx.Tensor { return agx.Maximum(a, b) }, agx.Bool, []float64{1, 1, 1, 0}, ""},
		{"minimum", func() *agx.Tensor { return agx.Minimum(a, b) }, agx.Bool, []float64{1, 0, 0, 0}, ""},
		{"add int", func() *agx.Tensor { return a.Add(agx.FromSlice([]int64{1, 1, 1, 1}, 4)) }, agx.Int64, []float64{2, 1, 2, 1}, ""},
		{"add in place", func() *agx.Tensor {
			return agx.New(tensor.BinaryTo(a.Data().Clone(), tensor.OpAdd, a.Data(), b.Data()))
		}, agx.Bool, []float64{1, 1, 1, 0}, ""},
		{"sub", func() *agx.Tensor { return a.Sub(b) }, 0, nil, "Subtraction, the `-` operator, with two bool tensors is not supported"},
		{"xor instead", func() *agx.Tensor { return a.LogicalXor(b) }, agx.Bool, []float64{0, 1, 1, 0}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r *agx.Tensor
			err := agx.Try(func() { r = tc.f() })
			if tc.err != "" {
				if err == nil || !errors.Is(err, tensor.ErrDType) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want ErrDType with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.DType() != tc.dt || !slices.Equal(r.Float64s(), tc.want) {
				t.Fatalf("got %v %v, want %v %v", r.DType(), r.Float64s(), tc.dt, tc.want)
			}
		})
	}
}

// TestMSELossShapeMismatch: PyTorch warns that a [4,1] prediction against [4]
// targets broadcasts to a [4,4] loss; agx refuses it with those words.
func TestMSELossShapeMismatch(t *testing.T) {
	for _, dt := range []agx.DType{agx.Float64, agx.Float32} {
		for _, tc := range []struct{ pred, target []int }{
			{[]int{4, 1}, []int{4}},
			{[]int{4}, []int{4, 1}},
			{[]int{3}, []int{}},
		} {
			err := agx.Try(func() { agx.MSELoss(agx.Zeros(dt, tc.pred...), agx.Zeros(dt, tc.target...)) })
			if err == nil || !errors.Is(err, tensor.ErrShape) || !strings.Contains(err.Error(), "Using a target size") ||
				!strings.Contains(err.Error(), "Please ensure they have the same size") {
				t.Fatalf("%v %v vs %v: got %v, want ErrShape with PyTorch's warning", dt, tc.pred, tc.target, err)
			}
		}
		if v := agx.MSELoss(agx.Ones(dt, 4, 1), agx.Zeros(dt, 4, 1)).Item(); v != 1 {
			t.Fatalf("%v: same shapes: %v, want 1", dt, v)
		}
	}
}

// TestLogSumExpEmpty: over a zero-size dim the result is -Inf (log of an
// empty sum), as PyTorch; the gradient is empty.
func TestLogSumExpEmpty(t *testing.T) {
	inf := math.Inf(-1)
	for _, dt := range []agx.DType{agx.Float64, agx.Float32} {
		for _, tc := range []struct {
			name  string
			shape []int
			dims  []int
			keep  bool
			out   []int
			want  []float64
		}{
			{"[0] all", []int{0}, nil, false, []int{}, []float64{inf}},
			{"[0] dim 0", []int{0}, []int{0}, false, []int{}, []float64{inf}},
			{"[2,0] dim 1", []int{2, 0}, []int{1}, false, []int{2}, []float64{inf, inf}},
			{"[2,0] dim 1 keep", []int{2, 0}, []int{1}, true, []int{2, 1}, []float64{inf, inf}},
			{"[0,3] dim 0", []int{0, 3}, []int{0}, false, []int{3}, []float64{inf, inf, inf}},
			{"[0,3] dim 1", []int{0, 3}, []int{1}, false, []int{0}, []float64{}},
		} {
			t.Run(dt.String()+"/"+tc.name, func(t *testing.T) {
				x := agx.Zeros(dt, tc.shape...).SetRequiresGrad(true)
				var y *agx.Tensor
				if tc.keep {
					y = x.LogSumExpKeep(tc.dims...)
				} else {
					y = x.LogSumExp(tc.dims...)
				}
				if !slices.Equal(y.Shape(), tc.out) || !slices.Equal(y.Float64s(), tc.want) || y.DType() != dt {
					t.Fatalf("got %v %v %v, want %v %v", y.DType(), y.Shape(), y.Float64s(), tc.out, tc.want)
				}
				y.Sum().Backward()
				if g := x.Grad(); g == nil || !slices.Equal(g.Shape(), tc.shape) {
					t.Fatalf("grad %v, want an empty gradient of shape %v", g, tc.shape)
				}
			})
		}
	}
}

// TestCrossEntropyTargetOutOfBounds: the error names CrossEntropy and the
// first bad target, as PyTorch's "Target 5 is out of bounds.".
func TestCrossEntropyTargetOutOfBounds(t *testing.T) {
	for _, dt := range []agx.DType{agx.Float64, agx.Float32} {
		for _, tc := range []struct {
			target []int64
			msg    string
		}{
			{[]int64{0, 5}, "CrossEntropy: Target 5 is out of bounds."},
			{[]int64{0, -1}, "CrossEntropy: Target -1 is out of bounds."},
			{[]int64{3, -2}, "CrossEntropy: Target 3 is out of bounds."},
		} {
			err := agx.Try(func() { agx.CrossEntropy(agx.Zeros(dt, 2, 3), agx.FromSlice(tc.target, 2)) })
			if err == nil || !errors.Is(err, tensor.ErrIndex) || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "Gather") {
				t.Fatalf("%v %v: got %v, want ErrIndex with %q", dt, tc.target, err, tc.msg)
			}
		}
		if v := agx.CrossEntropy(agx.Zeros(dt, 2, 3), agx.FromSlice([]int64{0, 2}, 2)).Item(); math.Abs(v-math.Log(3)) > 1e-6 {
			t.Fatalf("%v: in-range loss %v, want log 3", dt, v)
		}
	}
}
