package tensor_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/goagx/agx/tensor"
)

var tidxDTypes = []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64, tensor.Bool}

// ints builds an Int64 tensor of the given shape.
func tidxInts(vals []int64, shape ...int) *tensor.Tensor { return tensor.FromSlice(vals, shape...) }

// asDType builds a tensor of dtype dt from float64 values (converted as To does).
func tidxAs(dt tensor.DType, vals []float64, shape ...int) *tensor.Tensor {
	return tensor.FromSlice(vals, shape...).To(dt)
}

// checkTensor compares dtype, shape and values (as float64) with want.
func tidxCheck(t *testing.T, got *tensor.Tensor, dt tensor.DType, shape []int, want []float64) {
	t.Helper()
	if got.DType() != dt {
		t.Errorf("dtype = %v, want %v", got.DType(), dt)
	}
	if !slices.Equal(got.Shape(), shape) {
		t.Fatalf("shape = %v, want %v", got.Shape(), shape)
	}
	w := tensor.FromSlice(want).To(dt).Float64s()
	if g := got.Float64s(); !slices.Equal(g, w) {
		t.Errorf("values = %v, want %v", g, w)
	}
}

// checkPanic runs f and checks that it panics with an agx error wrapping kind
// whose message contains each of the fragments.
func tidxPanics(t *testing.T, f func(), kind error, fragments ...string) {
	t.Helper()
	err := recoverError(f)
	if err == nil {
		t.Fatal("expected a panic, got none")
	}
	if !errors.Is(err, kind) {
		t.Errorf("error %q does not wrap %v", err, kind)
	}
	for _, s := range fragments {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

func TestGather(t *testing.T) {
	arange12 := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	cases := []struct {
		name  string
		src   func(dt tensor.DType) *tensor.Tensor
		dim   int
		index *tensor.Tensor
		shape []int
		want  []float64
	}{
		{"dim 1", func(dt tensor.DType) *tensor.Tensor { return tidxAs(dt, []float64{1, 2, 3, 4}, 2, 2) },
			1, tidxInts([]int64{0, 0, 1, 0}, 2, 2), []int{2, 2}, []float64{1, 1, 4, 3}},
		{"dim 0", func(dt tensor.DType) *tensor.Tensor { return tidxAs(dt, []float64{1, 2, 3, 4, 5, 6}, 2, 3) },
			0, tidxInts([]int64{0, 1, 0, 1, 0, 1}, 2, 3), []int{2, 3}, []float64{1, 5, 3, 4, 2, 6}},
		{"negative dim, smaller index", func(dt tensor.DType) *tensor.Tensor { return tidxAs(dt, arange12, 3, 4) },
			-1, tidxInts([]int64{3, 0}, 2, 1), []int{2, 1}, []float64{3, 4}},
		{"transposed source", func(dt tensor.DType) *tensor.Tensor { return tidxAs(dt, arange12, 3, 4).T() },
			0, tidxInts([]int64{3, 0, 1, 2, 2, 2}, 2, 3), []int{2, 3}, []float64{3, 4, 9, 2, 6, 10}},
		{"expanded index", func(dt tensor.DType) *tensor.Tensor { return tidxAs(dt, arange12, 3, 4) },
			1, tidxInts([]int64{2}, 1, 1).Expand(3, 2), []int{3, 2}, []float64{2, 2, 6, 6, 10, 10}},
		{"empty index", func(dt tensor.DType) *tensor.Tensor { return tidxAs(dt, arange12, 3, 4) },
			1, tensor.Zeros(tensor.Int64, 3, 0), []int{3, 0}, nil},
		{"1-d", func(dt tensor.DType) *tensor.Tensor { return tidxAs(dt, []float64{5, 6, 7}) },
			0, tidxInts([]int64{2, 2, 0, 1}), []int{4}, []float64{7, 7, 5, 6}},
	}
	for _, tc := range cases {
		for _, dt := range tidxDTypes {
			t.Run(tc.name+"/"+dt.String(), func(t *testing.T) {
				tidxCheck(t, tc.src(dt).Gather(tc.dim, tc.index), dt, tc.shape, tc.want)
			})
		}
	}
}

func TestGatherErrors(t *testing.T) {
	x := tensor.Zeros(tensor.Float32, 2, 3)
	cases := []struct {
		name  string
		f     func()
		kind  error
		frags []string
	}{
		{"out of range", func() { x.Gather(1, tidxInts([]int64{0, 3}, 1, 2)) }, tensor.ErrIndex,
			[]string{"Gather", "index 3 is out of bounds for dimension 1 with size 3"}},
		{"negative index", func() { x.Gather(0, tidxInts([]int64{-1}, 1, 1)) }, tensor.ErrIndex,
			[]string{"index -1 is out of bounds for dimension 0 with size 2"}},
		{"float index", func() { x.Gather(0, tensor.Zeros(tensor.Float32, 1, 1)) }, tensor.ErrDType,
			[]string{"index must be int64"}},
		{"rank mismatch", func() { x.Gather(0, tidxInts([]int64{0})) }, tensor.ErrShape,
			[]string{"same number of dimensions"}},
		{"index too large in another dim", func() { x.Gather(0, tensor.Zeros(tensor.Int64, 1, 4)) }, tensor.ErrShape,
			[]string{"exceeds"}},
		{"bad dim", func() { x.Gather(2, tensor.Zeros(tensor.Int64, 1, 1)) }, tensor.ErrIndex,
			[]string{"dimension 2 out of range"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tidxPanics(t, tc.f, tc.kind, tc.frags...) })
	}
}

func TestScatter(t *testing.T) {
	src := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	cases := []struct {
		name  string
		dim   int
		index *tensor.Tensor
		add   bool
		src   []float64
		want  []float64
	}{
		{"dim 0, src larger than index", 0, tidxInts([]int64{0, 1, 2, 0}, 1, 4), false, src,
			[]float64{1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0}},
		{"dim 1", 1, tidxInts([]int64{0, 1, 2, 0, 1, 4}, 2, 3), false, src,
			[]float64{1, 2, 3, 0, 0, 6, 7, 0, 0, 8, 0, 0, 0, 0, 0}},
		{"negative dim", -1, tidxInts([]int64{4}, 1, 1), false, src,
			[]float64{0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"add with repeats", 0, tidxInts([]int64{0, 1, 2, 0, 0, 0, 1, 2, 2, 2}, 2, 5), true,
			[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
			[]float64{2, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 2, 1, 1}},
	}
	for _, tc := range cases {
		for _, dt := range tidxDTypes {
			if tc.add && dt == tensor.Bool {
				continue
			}
			t.Run(tc.name+"/"+dt.String(), func(t *testing.T) {
				x := tensor.Zeros(dt, 3, 5)
				s := tidxAs(dt, tc.src, 2, 5)
				var got *tensor.Tensor
				if tc.add {
					got = x.ScatterAdd(tc.dim, tc.index, s)
				} else {
					got = x.Scatter(tc.dim, tc.index, s)
				}
				tidxCheck(t, got, dt, []int{3, 5}, tc.want)
				tidxCheck(t, x, dt, []int{3, 5}, make([]float64, 15)) // input untouched
				v := x.Version()
				if tc.add {
					x.ScatterAddInPlace(tc.dim, tc.index, s)
				} else {
					x.ScatterInPlace(tc.dim, tc.index, s)
				}
				tidxCheck(t, x, dt, []int{3, 5}, tc.want)
				if x.Version() == v {
					t.Error("in-place scatter did not bump the version")
				}
			})
		}
	}
	t.Run("src dtype converted", func(t *testing.T) {
		got := tensor.Zeros(tensor.Float32, 3).Scatter(0, tidxInts([]int64{2}), tensor.FromSlice([]int64{7}))
		tidxCheck(t, got, tensor.Float32, []int{3}, []float64{0, 0, 7})
	})
	t.Run("into a transposed view", func(t *testing.T) {
		x := tensor.Zeros(tensor.Float64, 2, 3)
		x.T().ScatterInPlace(0, tidxInts([]int64{1, 0}, 1, 2), tensor.FromSlice([]float64{5, 6}, 1, 2))
		tidxCheck(t, x, tensor.Float64, []int{2, 3}, []float64{0, 5, 0, 6, 0, 0})
	})
}

func TestScatterErrors(t *testing.T) {
	x := tensor.Zeros(tensor.Float32, 2, 3)
	cases := []struct {
		name  string
		f     func()
		kind  error
		frags []string
	}{
		{"out of range", func() { x.Scatter(0, tidxInts([]int64{2}, 1, 1), tensor.Ones(tensor.Float32, 1, 1)) }, tensor.ErrIndex,
			[]string{"Scatter", "index 2 is out of bounds for dimension 0 with size 2"}},
		{"index larger than src", func() { x.Scatter(1, tidxInts([]int64{0, 1}, 1, 2), tensor.Ones(tensor.Float32, 1, 1)) }, tensor.ErrShape,
			[]string{"size of src"}},
		{"index larger than self", func() { x.Scatter(0, tensor.Zeros(tensor.Int64, 1, 4), tensor.Ones(tensor.Float32, 1, 4)) }, tensor.ErrShape,
			[]string{"exceeds the input's"}},
		{"bool scatter add", func() { tensor.Zeros(tensor.Bool, 2).ScatterAdd(0, tidxInts([]int64{0}), tensor.Ones(tensor.Bool, 1)) }, tensor.ErrDType,
			[]string{"bool"}},
		{"float index", func() { x.Scatter(0, tensor.Zeros(tensor.Float64, 1, 1), tensor.Ones(tensor.Float32, 1, 1)) }, tensor.ErrDType,
			[]string{"int64"}},
		{"src rank", func() { x.Scatter(0, tidxInts([]int64{0}, 1, 1), tensor.Ones(tensor.Float32, 1)) }, tensor.ErrShape,
			[]string{"src must have the same number of dimensions"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tidxPanics(t, tc.f, tc.kind, tc.frags...) })
	}
}

func TestIndexSelect(t *testing.T) {
	vals := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	cases := []struct {
		name  string
		dim   int
		index *tensor.Tensor
		shape []int
		want  []float64
	}{
		{"rows", 0, tidxInts([]int64{0, 2}), []int{2, 4}, []float64{0, 1, 2, 3, 8, 9, 10, 11}},
		{"columns with repeats", 1, tidxInts([]int64{3, 0, 3}), []int{3, 3}, []float64{3, 0, 3, 7, 4, 7, 11, 8, 11}},
		{"negative dim", -1, tidxInts([]int64{1}), []int{3, 1}, []float64{1, 5, 9}},
		{"0-d index", 0, tensor.Scalar(int64(1)), []int{1, 4}, []float64{4, 5, 6, 7}},
		{"empty index", 0, tensor.Zeros(tensor.Int64, 0), []int{0, 4}, nil},
	}
	for _, tc := range cases {
		for _, dt := range tidxDTypes {
			t.Run(tc.name+"/"+dt.String(), func(t *testing.T) {
				tidxCheck(t, tidxAs(dt, vals, 3, 4).IndexSelect(tc.dim, tc.index), dt, tc.shape, tc.want)
			})
		}
	}
	t.Run("errors", func(t *testing.T) {
		x := tensor.Zeros(tensor.Float32, 3, 4)
		tidxPanics(t, func() { x.IndexSelect(0, tidxInts([]int64{3})) }, tensor.ErrIndex, "index 3 is out of bounds for dimension 0 with size 3")
		tidxPanics(t, func() { x.IndexSelect(0, tidxInts([]int64{0, 1}, 1, 2)) }, tensor.ErrShape, "1-D")
		tidxPanics(t, func() { x.IndexSelect(0, tensor.Zeros(tensor.Float32, 1)) }, tensor.ErrDType, "int64")
	})
}

func TestIndexFill(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64} {
		t.Run(dt.String(), func(t *testing.T) {
			x := tidxAs(dt, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 3, 4)
			x.IndexFill(1, tidxInts([]int64{0, -2}), -1)
			tidxCheck(t, x, dt, []int{3, 4}, []float64{-1, 1, -1, 3, -1, 5, -1, 7, -1, 9, -1, 11})
		})
	}
	t.Run("out of range", func(t *testing.T) {
		tidxPanics(t, func() { tensor.Zeros(tensor.Float32, 2).IndexFill(0, tidxInts([]int64{2}), 1) }, tensor.ErrIndex, "index 2")
	})
}

func TestOneHot(t *testing.T) {
	cases := []struct {
		name  string
		index *tensor.Tensor
		n     int
		shape []int
		want  []float64
	}{
		{"inferred", tidxInts([]int64{0, 2, 1}), -1, []int{3, 3}, []float64{1, 0, 0, 0, 0, 1, 0, 1, 0}},
		{"explicit", tidxInts([]int64{1, 0}), 4, []int{2, 4}, []float64{0, 1, 0, 0, 1, 0, 0, 0}},
		{"2-d", tidxInts([]int64{0, 1, 1, 0}, 2, 2), 2, []int{2, 2, 2}, []float64{1, 0, 0, 1, 0, 1, 1, 0}},
		{"0-d", tensor.Scalar(int64(2)), 3, []int{3}, []float64{0, 0, 1}},
		{"empty", tensor.Zeros(tensor.Int64, 0), 3, []int{0, 3}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tidxCheck(t, tensor.OneHot(tc.index, tc.n), tensor.Int64, tc.shape, tc.want)
		})
	}
	t.Run("errors", func(t *testing.T) {
		tidxPanics(t, func() { tensor.OneHot(tidxInts([]int64{-1}), 3) }, tensor.ErrIndex, "non-negative")
		tidxPanics(t, func() { tensor.OneHot(tidxInts([]int64{3}), 3) }, tensor.ErrIndex, "smaller than num_classes")
		tidxPanics(t, func() { tensor.OneHot(tensor.Zeros(tensor.Float32, 2), 3) }, tensor.ErrDType, "int64")
		tidxPanics(t, func() { tensor.OneHot(tensor.Zeros(tensor.Int64, 0), -1) }, tensor.ErrArg, "empty")
	})
}

func TestCat(t *testing.T) {
	a := tensor.FromSlice([]int64{1, 2, 3, 4}, 2, 2)
	b := tensor.FromSlice([]float32{5, 6}, 1, 2)
	c := tensor.FromSlice([]float64{7, 8}, 2, 1)
	cases := []struct {
		name  string
		dim   int
		ts    []*tensor.Tensor
		dt    tensor.DType
		shape []int
		want  []float64
	}{
		{"dim 0 promotes", 0, []*tensor.Tensor{a, b}, tensor.Float32, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6}},
		{"dim 1", 1, []*tensor.Tensor{a, c}, tensor.Float64, []int{2, 3}, []float64{1, 2, 7, 3, 4, 8}},
		{"negative dim", -1, []*tensor.Tensor{c, a}, tensor.Float64, []int{2, 3}, []float64{7, 1, 2, 8, 3, 4}},
		{"single", 0, []*tensor.Tensor{a}, tensor.Int64, []int{2, 2}, []float64{1, 2, 3, 4}},
		{"skips 1-d empty", 0, []*tensor.Tensor{tensor.Zeros(tensor.Float32, 0), a}, tensor.Float32, []int{2, 2}, []float64{1, 2, 3, 4}},
		{"transposed operand", 0, []*tensor.Tensor{a.T(), a}, tensor.Int64, []int{4, 2}, []float64{1, 3, 2, 4, 1, 2, 3, 4}},
		{"bool with int", 0, []*tensor.Tensor{tensor.FromSlice([]bool{true}), tensor.FromSlice([]int64{5})}, tensor.Int64, []int{2}, []float64{1, 5}},
		{"zero-size part", 0, []*tensor.Tensor{tensor.Zeros(tensor.Int64, 0, 2), a}, tensor.Int64, []int{2, 2}, []float64{1, 2, 3, 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tidxCheck(t, tensor.Cat(tc.dim, tc.ts...), tc.dt, tc.shape, tc.want)
		})
	}
	t.Run("errors", func(t *testing.T) {
		tidxPanics(t, func() { tensor.Cat(0) }, tensor.ErrArg, "non-empty")
		tidxPanics(t, func() { tensor.Cat(0, a, a, c) }, tensor.ErrShape, "tensor number 2", "expected size 2 but got size 1")
		tidxPanics(t, func() { tensor.Cat(0, a, tensor.Zeros(tensor.Int64, 2)) }, tensor.ErrShape, "same number of dimensions", "tensor 1")
		tidxPanics(t, func() { tensor.Cat(0, tensor.Scalar(1.0)) }, tensor.ErrShape, "zero-dimensional")
		tidxPanics(t, func() { tensor.Cat(2, a) }, tensor.ErrIndex, "dimension 2 out of range")
	})
}

func TestStack(t *testing.T) {
	a := tensor.FromSlice([]int64{1, 2})
	b := tensor.FromSlice([]int64{3, 4})
	cases := []struct {
		name  string
		dim   int
		shape []int
		want  []float64
	}{
		{"dim 0", 0, []int{2, 2}, []float64{1, 2, 3, 4}},
		{"dim 1", 1, []int{2, 2}, []float64{1, 3, 2, 4}},
		{"dim -1", -1, []int{2, 2}, []float64{1, 3, 2, 4}},
		{"dim -2", -2, []int{2, 2}, []float64{1, 2, 3, 4}},
	}
	for _, tc := range cases {
		for _, dt := range tidxDTypes {
			t.Run(tc.name+"/"+dt.String(), func(t *testing.T) {
				tidxCheck(t, tensor.Stack(tc.dim, a.To(dt), b.To(dt)), dt, tc.shape, tc.want)
			})
		}
	}
	t.Run("scalars", func(t *testing.T) {
		tidxCheck(t, tensor.Stack(0, tensor.Scalar(1.5), tensor.Scalar(2.5)), tensor.Float64, []int{2}, []float64{1.5, 2.5})
	})
	t.Run("errors", func(t *testing.T) {
		tidxPanics(t, func() { tensor.Stack(0, a, tensor.Zeros(tensor.Int64, 3)) }, tensor.ErrShape, "entry 1")
		tidxPanics(t, func() { tensor.Stack(2, a, b) }, tensor.ErrIndex, "dimension 2 out of range")
		tidxPanics(t, func() { tensor.Stack(0) }, tensor.ErrArg, "non-empty")
	})
}

// TestGatherLarge exercises the parallel path of the CPU kernel against a
// direct loop.
func TestGatherLarge(t *testing.T) {
	const n, m = 300, 260
	src := tensor.Arange(tensor.Float64, 0, n*m, 1).Reshape(n, m)
	g := tensor.NewGenerator(1)
	idx := g.Randint(0, n, n, m)
	got := src.Gather(0, idx).Float64s()
	iv := tensor.ToSlice[int64](idx)
	for i := range n {
		for j := range m {
			if want := float64(int(iv[i*m+j])*m + j); got[i*m+j] != want {
				t.Fatalf("[%d,%d] = %v, want %v", i, j, got[i*m+j], want)
			}
		}
	}
}

func TestIndexScalars(t *testing.T) {
	x := tensor.Scalar(2.5)
	tidxCheck(t, x.Gather(0, tensor.Scalar(int64(0))), tensor.Float64, []int{}, []float64{2.5})
	tidxCheck(t, x.Scatter(0, tensor.Scalar(int64(0)), tensor.Scalar(4.0)), tensor.Float64, []int{}, []float64{4})
	tidxCheck(t, x.ScatterAdd(-1, tensor.Scalar(int64(0)), tensor.Scalar(4.0)), tensor.Float64, []int{}, []float64{6.5})
	tidxPanics(t, func() { x.Gather(0, tensor.Scalar(int64(1))) }, tensor.ErrIndex, "index 1 is out of bounds for dimension 0 with size 1")
}

// recoverError runs f and returns the agx error it panicked with, as agx.Try
// does (tensor's tests cannot import agx); other panics go on.
func recoverError(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := tensor.AsError(r)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	f()
	return nil
}
