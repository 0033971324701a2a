package agx

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/goagx/agx/tensor"
)

func TestMaxAbsDiff(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name string
		a, b *Tensor
		want float64 // NaN: want NaN
	}{
		{"equal", FromSlice([]float64{1, 2, 3}), FromSlice([]float64{1, 2, 3}), 0},
		{"largest of several", FromSlice([]float64{1, 2, 3}), FromSlice([]float64{1.5, 2, 1}), 2},
		{"sign does not matter", FromSlice([]float64{0, 0}), FromSlice([]float64{-4, 3}), 4},
		{"matrix", FromSlice([]float64{1, 2, 3, 4}, 2, 2), FromSlice([]float64{1, 2, 3, 4.25}, 2, 2), 0.25},
		{"float32 against float64", FromSlice([]float32{1, 2}), FromSlice([]float64{1, 2.5}), 0.5},
		{"scalar", Scalar(3.0), Scalar(1.0), 2},
		{"NaN on the left", FromSlice([]float64{math.NaN(), 0}), FromSlice([]float64{0, 100}), math.NaN()},
		{"NaN on the right", FromSlice([]float64{0}), FromSlice([]float64{math.NaN()}), math.NaN()},
		{"equal infinities", FromSlice([]float64{inf, -inf}), FromSlice([]float64{inf, -inf}), 0},
		{"infinity against a number", FromSlice([]float64{inf}), FromSlice([]float64{1}), inf},
		{"no elements", FromSlice([]float64{}, 0), FromSlice([]float64{}, 0), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := MaxAbsDiff(c.a, c.b)
			if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(c.want) && got != c.want) {
				t.Fatalf("MaxAbsDiff = %v, want %v", got, c.want)
			}
		})
	}
}

func TestMaxAbsDiffLeavesTheGraphAlone(t *testing.T) {
	x := FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := x.Mul(x)
	if d := MaxAbsDiff(y, FromSlice([]float64{1, 4})); d != 0 {
		t.Fatalf("MaxAbsDiff = %v, want 0", d)
	}
	y.Sum().Backward()
	if d := MaxAbsDiff(x.Grad(), FromSlice([]float64{2, 4})); d != 0 {
		t.Fatalf("x.grad differs from [2, 4] by %v", d)
	}
}

func TestMaxAbsDiffErrors(t *testing.T) {
	cases := []struct {
		name string
		a, b *Tensor
		kind error
		msg  string
	}{
		{"different shapes", FromSlice([]float64{1, 2, 3}), FromSlice([]float64{1, 2, 3}, 1, 3), tensor.ErrShape, "shapes [3] and [1 3]"},
		{"different sizes", FromSlice([]float64{1, 2}), FromSlice([]float64{1, 2, 3}), tensor.ErrShape, "shapes [2] and [3]"},
		{"nil a", nil, Scalar(1.0), tensor.ErrArg, "argument 'a' (position 1)"},
		{"nil b", Scalar(1.0), nil, tensor.ErrArg, "argument 'b' (position 2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Try(func() { MaxAbsDiff(c.a, c.b) })
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %v, want %v containing %q", err, c.kind, c.msg)
			}
		})
	}
}
