package tensor_test

import (
	"slices"
	"testing"

	"github.com/goagx/agx/tensor"
)

func TestFilled(t *testing.T) {
	for _, dt := range tidxDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			tidxCheck(t, tensor.Zeros(dt, 2, 3), dt, []int{2, 3}, make([]float64, 6))
			tidxCheck(t, tensor.Ones(dt, 3), dt, []int{3}, []float64{1, 1, 1})
			tidxCheck(t, tensor.Full(dt, 2.5, 2), dt, []int{2}, []float64{2.5, 2.5})
			tidxCheck(t, tensor.Full(dt, 7), dt, []int{}, []float64{7})
			x := tensor.Full(dt, 3, 2, 1).Expand(2, 2)
			tidxCheck(t, tensor.ZerosLike(x), dt, []int{2, 2}, make([]float64, 4))
			tidxCheck(t, tensor.OnesLike(x), dt, []int{2, 2}, []float64{1, 1, 1, 1})
			tidxCheck(t, tensor.FullLike(x, -2), dt, []int{2, 2}, []float64{-2, -2, -2, -2})
			tidxCheck(t, tensor.Eye(dt, 2), dt, []int{2, 2}, []float64{1, 0, 0, 1})
			tidxCheck(t, tensor.EyeN(dt, 2, 3), dt, []int{2, 3}, []float64{1, 0, 0, 0, 1, 0})
			tidxCheck(t, tensor.EyeN(dt, 3, 2), dt, []int{3, 2}, []float64{1, 0, 0, 1, 0, 0})
			tidxCheck(t, tensor.Eye(dt, 0), dt, []int{0, 0}, nil)
		})
	}
	t.Run("errors", func(t *testing.T) {
		tidxPanics(t, func() { tensor.Zeros(tensor.Float32, 2, -1) }, tensor.ErrShape, "negative dimension")
		tidxPanics(t, func() { tensor.Eye(tensor.Float32, -1) }, tensor.ErrArg, "non-negative")
		tidxPanics(t, func() { tensor.Full(tensor.DType(0), 1, 2) }, tensor.ErrDType, "unknown dtype")
	})
}

// The expected values come from PyTorch 1.13 (torch.arange / torch.linspace
// with the same arguments, .tolist()).
func TestArange(t *testing.T) {
	cases := []struct {
		name             string
		dt               tensor.DType
		start, end, step float64
		want             []float64
	}{
		{"quarters", tensor.Float32, 0, 1, 0.25, []float64{0, 0.25, 0.5, 0.75}},
		{"float32 tenths", tensor.Float32, 0, 1, 0.1, []float64{0, 0.10000000149011612, 0.20000000298023224,
			0.30000001192092896, 0.4000000059604645, 0.5, 0.6000000238418579, 0.699999988079071,
			0.800000011920929, 0.8999999761581421}},
		{"float64 fma", tensor.Float64, -1, 1, 0.3, []float64{-1.0, -0.7, -0.4, -0.10000000000000003,
			0.19999999999999996, 0.49999999999999994, 0.7999999999999999}},
		{"half steps", tensor.Float64, 1, 2.5, 0.5, []float64{1, 1.5, 2}},
		{"int64", tensor.Int64, 0, 10, 3, []float64{0, 3, 6, 9}},
		{"descending", tensor.Int64, 10, 0, -3, []float64{10, 7, 4, 1}},
		{"empty", tensor.Float32, 2, 2, 1, nil},
		{"fractional int64", tensor.Int64, 0.5, 3.7, 1.5, []float64{0, 1, 2}},
		{"fractional int64 step", tensor.Int64, -3, 3, 2.5, []float64{-3, -1, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tidxCheck(t, tensor.Arange(tc.dt, tc.start, tc.end, tc.step), tc.dt, []int{len(tc.want)}, tc.want)
		})
	}
	t.Run("length", func(t *testing.T) {
		if n := tensor.Arange(tensor.Float64, 0, 1, 0.1).Numel(); n != 10 {
			t.Errorf("len = %d, want 10", n)
		}
	})
	t.Run("errors", func(t *testing.T) {
		tidxPanics(t, func() { tensor.Arange(tensor.Float32, 0, 1, 0) }, tensor.ErrArg, "step must be nonzero")
		tidxPanics(t, func() { tensor.Arange(tensor.Float32, 0, 1, -1) }, tensor.ErrArg, "inconsistent with step sign")
		tidxPanics(t, func() { tensor.Arange(tensor.Float32, 1, 0, 1) }, tensor.ErrArg, "inconsistent with step sign")
		tidxPanics(t, func() { tensor.Arange(tensor.Int64, 0, 2, 0.5) }, tensor.ErrArg, "step must be nonzero")
	})
}

func TestLinspace(t *testing.T) {
	cases := []struct {
		name       string
		dt         tensor.DType
		start, end float64
		steps      int
		want       []float64
	}{
		{"float32 sevenths", tensor.Float32, 0, 1, 7, []float64{0, 0.1666666716337204, 0.3333333432674408, 0.5,
			0.6666666269302368, 0.8333333134651184, 1}},
		{"float64 sevenths", tensor.Float64, 0, 1, 7, []float64{0, 0.16666666666666666, 0.3333333333333333, 0.5,
			0.6666666666666667, 0.8333333333333334, 1}},
		{"symmetric", tensor.Float64, -1, 1, 5, []float64{-1, -0.5, 0, 0.5, 1}},
		{"descending", tensor.Float32, 3, -3, 4, []float64{3, 1, -1, -3}},
		{"int64", tensor.Int64, 0, 10, 4, []float64{0, 3, 6, 10}},
		{"int64 truncated bounds", tensor.Int64, -2.5, 2.5, 4, []float64{-2, 0, 0, 2}},
		{"one step", tensor.Float64, 4, 9, 1, []float64{4}},
		{"zero steps", tensor.Float64, 4, 9, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tidxCheck(t, tensor.Linspace(tc.dt, tc.start, tc.end, tc.steps), tc.dt, []int{len(tc.want)}, tc.want)
		})
	}
	t.Run("endpoints exact", func(t *testing.T) {
		v := tensor.Linspace(tensor.Float64, 0.1, 0.7, 13).Float64s()
		if v[0] != 0.1 || v[12] != 0.7 {
			t.Errorf("endpoints %v, %v", v[0], v[12])
		}
	})
	t.Run("errors", func(t *testing.T) {
		tidxPanics(t, func() { tensor.Linspace(tensor.Float32, 0, 1, -1) }, tensor.ErrArg, "non-negative")
	})
}

func TestFromNested(t *testing.T) {
	cases := []struct {
		name  string
		v     any
		dt    tensor.DType
		shape []int
		want  []float64
	}{
		{"[][]float64", [][]float64{{1, 2}, {3, 4}, {5, 6}}, tensor.Float64, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6}},
		{"[][][]float32", [][][]float32{{{1}, {2}}, {{3}, {4}}}, tensor.Float32, []int{2, 2, 1}, []float64{1, 2, 3, 4}},
		{"[]int", []int{4, 5, 6}, tensor.Int64, []int{3}, []float64{4, 5, 6}},
		{"[]int64", []int64{-1}, tensor.Int64, []int{1}, []float64{-1}},
		{"[][]bool", [][]bool{{true, false}}, tensor.Bool, []int{1, 2}, []float64{1, 0}},
		{"arrays", [2][3]int32{{1, 2, 3}, {4, 5, 6}}, tensor.Int64, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}},
		{"scalar", 2.5, tensor.Float64, []int{}, []float64{2.5}},
		{"empty", [][]float32{}, tensor.Float32, []int{0, 0}, nil},
		{"empty rows", [][]float64{{}, {}}, tensor.Float64, []int{2, 0}, nil},
		{"[]any", []any{[]float64{1, 2}, []float64{3, 4}}, tensor.Float64, []int{2, 2}, []float64{1, 2, 3, 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tidxCheck(t, tensor.FromNested(tc.v), tc.dt, tc.shape, tc.want)
		})
	}
	t.Run("errors", func(t *testing.T) {
		tidxPanics(t, func() { tensor.FromNested([][]float64{{1, 2}, {3}}) }, tensor.ErrShape, "ragged", "[1]", "length 1, expected 2")
		tidxPanics(t, func() { tensor.FromNested([]any{[]float64{1}, 2.0}) }, tensor.ErrShape, "ragged", "is a scalar")
		tidxPanics(t, func() { tensor.FromNested([]any{1.0, []float64{1}}) }, tensor.ErrShape, "ragged", "is a sequence")
		tidxPanics(t, func() { tensor.FromNested([]string{"a"}) }, tensor.ErrDType, "unsupported element type string")
		tidxPanics(t, func() { tensor.FromNested([]any{1.0, true}) }, tensor.ErrDType, "mixed element types")
		tidxPanics(t, func() { tensor.FromNested(nil) }, tensor.ErrArg, "nil")
	})
	t.Run("copies", func(t *testing.T) {
		src := [][]float64{{1, 2}}
		x := tensor.FromNested(src)
		src[0][0] = 9
		if got := x.Float64s(); !slices.Equal(got, []float64{1, 2}) {
			t.Errorf("tensor aliases its source: %v", got)
		}
	})
}

func TestRandomZeroDim(t *testing.T) {
	g := tensor.NewGenerator(1)
	for name, x := range map[string]*tensor.Tensor{
		"Rand": g.Rand(tensor.Float64), "Randn": g.Randn(tensor.Float32), "Randint": g.Randint(0, 5),
	} {
		if x.Dim() != 0 || x.Numel() != 1 {
			t.Errorf("%s() has shape %v, want a 0-d tensor", name, x.Shape())
		}
	}
}
