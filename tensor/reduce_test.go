package tensor

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// naiveReduce reduces row-major data of the given shape over dims with f,
// starting from init, and returns the result in keepdim layout.
func naiveReduce(data []float64, shape, dims []int, init float64, f func(acc, x float64) float64) []float64 {
	ks := slices.Clone(shape)
	for _, d := range dims {
		ks[d] = 1
	}
	n := 1
	for _, s := range ks {
		n *= s
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = init
	}
	kst := contiguousStrides(ks)
	idx := make([]int, len(shape))
	for _, x := range data {
		o := 0
		for d := range shape {
			if ks[d] != 1 {
				o += idx[d] * kst[d]
			}
		}
		out[o] = f(out[o], x)
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

func nanMax(a, x float64) float64 {
	if math.IsNaN(a) || math.IsNaN(x) {
		return math.NaN()
	}
	return math.Max(a, x)
}

func nanMin(a, x float64) float64 {
	if math.IsNaN(a) || math.IsNaN(x) {
		return math.NaN()
	}
	return math.Min(a, x)
}

func closeTo(got, want, rtol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= rtol*math.Max(1, math.Abs(want))
}

func checkClose(t *testing.T, got, want []float64, rtol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	for i := range got {
		if !closeTo(got[i], want[i], rtol) {
			t.Fatalf("element %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

// seq returns n small integer-valued floats, varied but deterministic.
func seq(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64((i*7)%11 - 5)
	}
	return s
}

// layouts returns tensors of logical shape [3,4,5] with different memory layouts.
func layouts(dt DType) map[string]*Tensor {
	base := FromSlice(seq(60), 3, 4, 5).To(dt)
	return map[string]*Tensor{
		"contiguous": base,
		"transposed": FromSlice(seq(60), 5, 4, 3).To(dt).Permute(2, 1, 0),
		"narrowed":   FromSlice(seq(120), 3, 8, 5).To(dt).Narrow(1, 2, 4),
		"expanded":   FromSlice(seq(15), 3, 1, 5).To(dt).Expand(3, 4, 5),
	}
}

var allDTypes = []DType{Float32, Float64, Int64}

func TestReduceAgainstNaive(t *testing.T) {
	ops := []struct {
		name string
		init float64
		f    func(a, x float64) float64
		run  func(x *Tensor, keep bool, dims ...int) *Tensor
	}{
		{"sum", 0, func(a, x float64) float64 { return a + x }, func(x *Tensor, k bool, d ...int) *Tensor {
			if k {
				return x.SumKeep(d...)
			}
			return x.Sum(d...)
		}},
		{"prod", 1, func(a, x float64) float64 { return a * x }, func(x *Tensor, k bool, d ...int) *Tensor {
			if k {
				return x.ProdKeep(d...)
			}
			return x.Prod(d...)
		}},
		{"amax", math.Inf(-1), nanMax, func(x *Tensor, k bool, d ...int) *Tensor {
			if k {
				return x.AmaxKeep(d...)
			}
			return x.Amax(d...)
		}},
		{"amin", math.Inf(1), nanMin, func(x *Tensor, k bool, d ...int) *Tensor {
			if k {
				return x.AminKeep(d...)
			}
			return x.Amin(d...)
		}},
	}
	dimSets := [][]int{nil, {0}, {1}, {2}, {-1}, {0, 2}, {2, 0}, {-3, -2}, {0, 1, 2}}
	for _, dt := range allDTypes {
		for lname, x := range layouts(dt) {
			data := x.Float64s()
			for _, op := range ops {
				for _, dims := range dimSets {
					for _, keep := range []bool{false, true} {
						name := fmt.Sprintf("%v/%s/%s/dims%v/keep=%v", dt, lname, op.name, dims, keep)
						t.Run(name, func(t *testing.T) {
							nd := x.reduceDims("test", dims)
							want := naiveReduce(data, x.Shape(), nd, op.init, op.f)
							got := op.run(x, keep, dims...)
							wantShape := keptShape(x.Shape(), nd)
							if !keep {
								wantShape = dropShape(x.Shape(), nd)
							}
							if !slices.Equal(got.Shape(), wantShape) {
								t.Fatalf("shape %v, want %v", got.Shape(), wantShape)
							}
							if got.DType() != dt {
								t.Fatalf("dtype %v, want %v", got.DType(), dt)
							}
							checkClose(t, got.Float64s(), want, 1e-6)
						})
					}
				}
			}
		}
	}
}

// TestReduceLarge exercises the parallel paths (inputs above parallelMin).
func TestReduceLarge(t *testing.T) {
	shapes := [][]int{{300, 400}, {2, 70000}, {70000, 2}, {1, 100000}, {100000}}
	for _, dt := range []DType{Float32, Float64, Int64} {
		for _, sh := range shapes {
			n := 1
			for _, s := range sh {
				n *= s
			}
			src := FromSlice(seq(n), sh...).To(dt)
			views := map[string]*Tensor{"contiguous": src}
			if len(sh) == 2 {
				views["transposed"] = FromSlice(seq(n), sh[1], sh[0]).To(dt).T()
			}
			for vname, x := range views {
				for d := -1; d < x.Dim(); d++ {
					var dims []int
					if d >= 0 {
						dims = []int{d}
					}
					t.Run(fmt.Sprintf("%v/%v/%s/dims%v", dt, sh, vname, dims), func(t *testing.T) {
						data := x.Float64s()
						nd := x.reduceDims("test", dims)
						want := naiveReduce(data, x.Shape(), nd, 0, func(a, v float64) float64 { return a + v })
						checkClose(t, x.SumKeep(dims...).Float64s(), want, 1e-6)
						want = naiveReduce(data, x.Shape(), nd, math.Inf(-1), nanMax)
						checkClose(t, x.AmaxKeep(dims...).Float64s(), want, 0)
					})
				}
			}
		}
	}
}

func TestSumAccuracyFloat32(t *testing.T) {
	// 1e6 values of 0.1: naive float32 accumulation drifts by about 1%.
	n := 1 << 20
	v := make([]float32, n)
	for i := range v {
		v[i] = 0.1
	}
	got := FromSlice(v).Sum().Item()
	want := float64(float32(0.1)) * float64(n)
	if math.Abs(got-want)/want > 1e-5 {
		t.Fatalf("sum = %v, want %v", got, want)
	}
}

func TestSumDTypes(t *testing.T) {
	cases := []struct {
		name string
		x    *Tensor
		dt   DType
		want float64
	}{
		{"bool", FromSlice([]bool{true, false, true, true}), Int64, 3},
		{"int64", FromSlice([]int64{1, 2, 3}), Int64, 6},
		{"float32", FromSlice([]float32{1, 2, 3.5}), Float32, 6.5},
		{"float64", FromSlice([]float64{1, 2, 3.5}), Float64, 6.5},
		{"empty", FromSlice([]float64{}), Float64, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.x.Sum()
			if s.DType() != tc.dt || s.Dim() != 0 || s.Item() != tc.want {
				t.Fatalf("got %v %v %v, want %v 0-d %v", s.DType(), s.Shape(), s.Item(), tc.dt, tc.want)
			}
		})
	}
	t.Run("prod-empty", func(t *testing.T) {
		if got := Empty(Float32, 0, 3).Prod(0).Float64s(); !slices.Equal(got, []float64{1, 1, 1}) {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("bool-amax", func(t *testing.T) {
		m := FromSlice([]bool{false, true, false}).Amax()
		if m.DType() != Bool || m.Item() != 1 {
			t.Fatalf("got %v %v", m.DType(), m.Item())
		}
	})
}

func TestMeanVarStd(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		for lname, x := range layouts(dt) {
			data := x.Float64s()
			for _, dims := range [][]int{nil, {0}, {-1}, {0, 2}} {
				t.Run(fmt.Sprintf("%v/%s/dims%v", dt, lname, dims), func(t *testing.T) {
					nd := x.reduceDims("test", dims)
					cnt := float64(x.reduceCount(nd))
					sum := naiveReduce(data, x.Shape(), nd, 0, func(a, v float64) float64 { return a + v })
					mean := make([]float64, len(sum))
					for i := range sum {
						mean[i] = sum[i] / cnt
					}
					checkClose(t, x.MeanKeep(dims...).Float64s(), mean, 1e-6)
					// Var via E[(x-mean)^2] with the naive mean broadcast back.
					mt := FromSlice(mean, keptShape(x.Shape(), nd)...)
					dev := FromSlice(data, x.Shape()...).Sub(mt).Float64s()
					for i := range dev {
						dev[i] *= dev[i]
					}
					ss := naiveReduce(dev, x.Shape(), nd, 0, func(a, v float64) float64 { return a + v })
					for _, unbiased := range []bool{false, true} {
						den := cnt
						if unbiased {
							den--
						}
						v := make([]float64, len(ss))
						s := make([]float64, len(ss))
						for i := range ss {
							v[i] = ss[i] / den
							s[i] = math.Sqrt(v[i])
						}
						checkClose(t, x.VarKeep(unbiased, dims...).Float64s(), v, 1e-5)
						checkClose(t, x.StdKeep(unbiased, dims...).Float64s(), s, 1e-5)
						checkClose(t, x.Var(unbiased, dims...).Float64s(), v, 1e-5)
						checkClose(t, x.Std(unbiased, dims...).Float64s(), s, 1e-5)
					}
					if got := x.Mean(dims...).Shape(); !slices.Equal(got, dropShape(x.Shape(), nd)) {
						t.Fatalf("Mean shape %v", got)
					}
				})
			}
		}
	}
}

func TestArgMaxMin(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name           string
		data           []float64
		argmax, argmin int64
		max, min       float64
	}{
		{"plain", []float64{3, 1, 4, 1, 5, 9, 2, 6}, 5, 1, 9, 1},
		{"ties", []float64{2, 7, 7, 0, 0}, 1, 3, 7, 0},
		{"nan", []float64{1, nan, 5, nan}, 1, 1, nan, nan},
		{"nan-first", []float64{nan, 9, -9}, 0, 0, nan, nan},
		{"inf", []float64{math.Inf(-1), 0, math.Inf(1)}, 2, 0, math.Inf(1), math.Inf(-1)},
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%v/%s", dt, tc.name), func(t *testing.T) {
				x := FromSlice(tc.data).To(dt)
				if got := x.ArgMax(0, false); got.Dim() != 0 || got.DType() != Int64 || int64(got.Item()) != tc.argmax {
					t.Fatalf("ArgMax = %v (%v, %v), want %d", got.Item(), got.Shape(), got.DType(), tc.argmax)
				}
				if got := int64(x.ArgMin(-1, false).Item()); got != tc.argmin {
					t.Fatalf("ArgMin = %d, want %d", got, tc.argmin)
				}
				if got := x.Max().Item(); !closeTo(got, tc.max, 0) {
					t.Fatalf("Max = %v, want %v", got, tc.max)
				}
				if got := x.Min().Item(); !closeTo(got, tc.min, 0) {
					t.Fatalf("Min = %v, want %v", got, tc.min)
				}
				v, i := x.MaxDim(0, true)
				if !slices.Equal(v.Shape(), []int{1}) || !slices.Equal(i.Shape(), []int{1}) || int64(i.Item()) != tc.argmax {
					t.Fatalf("MaxDim = %v %v", v, i.Item())
				}
			})
		}
	}
	// Per-dim against a naive scan, over layouts and dtypes.
	for _, dt := range allDTypes {
		for lname, x := range layouts(dt) {
			data := x.Float64s()
			sh := x.Shape()
			for d := 0; d < 3; d++ {
				t.Run(fmt.Sprintf("%v/%s/dim%d", dt, lname, d), func(t *testing.T) {
					st := contiguousStrides(sh)
					got := x.ArgMax(d, true).Float64s()
					gmin := x.ArgMin(d-3, true).Float64s()
					vals, idx := x.MinDim(d, false)
					ks := keptShape(sh, []int{d})
					kst := contiguousStrides(ks)
					if !slices.Equal(idx.Shape(), dropShape(sh, []int{d})) {
						t.Fatalf("MinDim shape %v", idx.Shape())
					}
					vs, is := vals.Float64s(), idx.Float64s()
					for o := range got {
						// decode o into the base offset
						base, r := 0, o
						for k := range ks {
							base += (r / kst[k]) * st[k]
							r %= kst[k]
						}
						bi, bmin := 0, 0
						for j := 1; j < sh[d]; j++ {
							if data[base+j*st[d]] > data[base+bi*st[d]] {
								bi = j
							}
							if data[base+j*st[d]] < data[base+bmin*st[d]] {
								bmin = j
							}
						}
						if int(got[o]) != bi || int(gmin[o]) != bmin || int(is[o]) != bmin || vs[o] != data[base+bmin*st[d]] {
							t.Fatalf("at %d: argmax %v want %d, argmin %v want %d", o, got[o], bi, gmin[o], bmin)
						}
					}
				})
			}
		}
	}
	t.Run("all", func(t *testing.T) {
		x := FromSlice([]float64{1, 8, 3, 8, -2, 0}, 2, 3).T()
		if got := x.ArgMaxAll(); got.Dim() != 0 || got.Item() != 1 {
			t.Fatalf("ArgMaxAll = %v", got.Item())
		}
		if got := x.ArgMinAll().Item(); got != 3 {
			t.Fatalf("ArgMinAll = %v", got)
		}
	})
}

func TestLogSumExp(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name string
		data []float64
		want float64
	}{
		{"huge", []float64{1000, 1000}, 1000 + math.Ln2},
		{"tiny", []float64{-1000, -1000}, -1000 + math.Ln2},
		{"mixed", []float64{0, 1, 2}, math.Log(1 + math.E + math.E*math.E)},
		{"all-neg-inf", []float64{-inf, -inf}, -inf},
		{"pos-inf", []float64{inf, 1}, inf},
		{"nan", []float64{math.NaN(), 1}, math.NaN()},
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%v/%s", dt, tc.name), func(t *testing.T) {
				x := FromSlice(tc.data).To(dt)
				got := x.LogSumExp()
				if got.Dim() != 0 || !closeTo(got.Item(), tc.want, 1e-6) {
					t.Fatalf("got %v (shape %v), want %v", got.Item(), got.Shape(), tc.want)
				}
				k := x.Reshape(1, -1).LogSumExpKeep(-1)
				if !slices.Equal(k.Shape(), []int{1, 1}) || !closeTo(k.Item(), tc.want, 1e-6) {
					t.Fatalf("keep: got %v %v", k.Shape(), k.Item())
				}
			})
		}
	}
	t.Run("rows", func(t *testing.T) {
		x := FromSlice(seq(12), 3, 4).T() // [4,3]
		got := x.LogSumExp(0).Float64s()
		d := x.Float64s()
		for j := 0; j < 3; j++ {
			s := 0.0
			for i := 0; i < 4; i++ {
				s += math.Exp(d[i*3+j])
			}
			if !closeTo(got[j], math.Log(s), 1e-12) {
				t.Fatalf("col %d: %v want %v", j, got[j], math.Log(s))
			}
		}
	})
	t.Run("int", func(t *testing.T) {
		got := FromSlice([]int64{0, 0}).LogSumExp()
		if got.DType() != Float32 || !closeTo(got.Item(), math.Ln2, 1e-6) {
			t.Fatalf("got %v %v", got.DType(), got.Item())
		}
	})
}

func TestSoftmax(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		for lname, x := range layouts(dt) {
			for _, dim := range []int{0, 1, -1} {
				t.Run(fmt.Sprintf("%v/%s/dim%d", dt, lname, dim), func(t *testing.T) {
					x := x.Mul(100) // large values would overflow exp without the shift
					sm := x.Softmax(dim)
					sums := sm.Sum(dim).Float64s()
					for i, s := range sums {
						if math.Abs(s-1) > 1e-5 {
							t.Fatalf("row %d sums to %v", i, s)
						}
					}
					ls := x.LogSoftmax(dim).Exp().Float64s()
					checkClose(t, ls, sm.Float64s(), 1e-5)
					// reference: exp(x - lse)
					lse := x.LogSumExpKeep(dim)
					checkClose(t, sm.Float64s(), x.Sub(lse).Exp().Float64s(), 1e-5)
				})
			}
		}
	}
	t.Run("values", func(t *testing.T) {
		got := FromSlice([]float64{1, 2, 3}).Softmax(0).Float64s()
		z := math.Exp(1) + math.Exp(2) + math.Exp(3)
		checkClose(t, got, []float64{math.Exp(1) / z, math.Exp(2) / z, math.Exp(3) / z}, 1e-12)
		ls := FromSlice([]float64{1000, 0}).LogSoftmax(0).Float64s()
		checkClose(t, ls, []float64{0, -1000}, 1e-12)
	})
}

func TestReduceErrors(t *testing.T) {
	x := FromSlice(seq(6), 2, 3)
	cases := []struct {
		name string
		f    func()
		kind error
		msg  string
	}{
		{"dup-dims", func() { x.Sum(1, -1) }, ErrArg, "appears multiple times"},
		{"bad-dim", func() { x.Sum(2) }, ErrIndex, "out of range"},
		{"bad-neg-dim", func() { x.Amax(-3) }, ErrIndex, "out of range"},
		{"mean-int", func() { FromSlice([]int64{1, 2}).Mean() }, ErrDType, "floating-point"},
		{"var-bool", func() { FromSlice([]bool{true}).Var(true) }, ErrDType, "floating-point"},
		{"softmax-int", func() { FromSlice([]int64{1, 2}).Softmax(0) }, ErrDType, "floating-point"},
		{"max-empty", func() { Empty(Float32, 0).Max() }, ErrShape, "zero-size"},
		{"argmax-empty", func() { Empty(Float32, 2, 0).ArgMax(1, false) }, ErrShape, "size 0"},
		{"argmax-dim", func() { x.ArgMax(5, false) }, ErrIndex, "out of range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := try(tc.f)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want %v containing %q", err, tc.kind, tc.msg)
			}
		})
	}
	t.Run("mean-hint", func(t *testing.T) {
		err := try(func() { FromSlice([]int64{1}).Mean() })
		if !strings.Contains(err.Error(), "hint: convert with To(tensor.Float32)") {
			t.Fatalf("no hint in %v", err)
		}
	})
}

func TestReduceScalar(t *testing.T) {
	s := Scalar(4.5)
	for name, got := range map[string]*Tensor{
		"sum": s.Sum(), "sum0": s.Sum(0), "mean": s.Mean(-1), "amax": s.Amax(), "lse": s.LogSumExp(),
	} {
		t.Run(name, func(t *testing.T) {
			if got.Dim() != 0 || got.Item() != 4.5 {
				t.Fatalf("got %v %v", got.Shape(), got.Item())
			}
		})
	}
	t.Run("argmax", func(t *testing.T) {
		if got := s.ArgMax(0, false); got.Dim() != 0 || got.Item() != 0 {
			t.Fatalf("got %v %v", got.Shape(), got.Item())
		}
	})
}

func TestNaNReductions(t *testing.T) {
	nan := math.NaN()
	// [[1, nan, 3], [4, 5, nan], [0, 2, 1]]
	data := []float64{1, nan, 3, 4, 5, nan, 0, 2, 1}
	for _, dt := range []DType{Float32, Float64} {
		for _, tr := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/transposed=%v", dt, tr), func(t *testing.T) {
				x := FromSlice(data, 3, 3).To(dt)
				if tr {
					x = FromSlice(data, 3, 3).T().Contiguous().To(dt).T()
				}
				checkClose(t, x.Amax(0).Float64s(), []float64{4, nan, nan}, 0)
				checkClose(t, x.Amax(1).Float64s(), []float64{nan, nan, 2}, 0)
				checkClose(t, x.Amin(1).Float64s(), []float64{nan, nan, 0}, 0)
				checkClose(t, x.Sum(0).Float64s(), []float64{5, nan, nan}, 0)
				checkClose(t, x.ArgMax(0, false).Float64s(), []float64{1, 0, 1}, 0)
				checkClose(t, x.ArgMax(1, false).Float64s(), []float64{1, 2, 1}, 0)
				checkClose(t, x.ArgMin(1, false).Float64s(), []float64{1, 2, 0}, 0)
				if !math.IsNaN(x.Max().Item()) || x.ArgMaxAll().Item() != 1 {
					t.Fatalf("Max %v ArgMaxAll %v", x.Max().Item(), x.ArgMaxAll().Item())
				}
			})
		}
	}
}

// Softmax and LogSoftmax of an empty tensor are empty (PyTorch), also along a
// zero-size dim, where the maximum they shift by has no element.
func TestSoftmaxEmpty(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		for _, c := range []struct {
			shape []int
			dim   int
		}{{[]int{0}, 0}, {[]int{3, 0}, 1}, {[]int{3, 0}, 0}, {[]int{2, 0, 0}, -1}} {
			for name, f := range map[string]func(*Tensor, int) *Tensor{"Softmax": (*Tensor).Softmax, "LogSoftmax": (*Tensor).LogSoftmax} {
				t.Run(fmt.Sprintf("%s/%v/%v/dim%d", name, dt, c.shape, c.dim), func(t *testing.T) {
					y := f(Zeros(dt, c.shape...), c.dim)
					if !slices.Equal(y.Shape(), c.shape) || y.DType() != dt {
						t.Fatalf("got %v %v, want %v %v", y.DType(), y.Shape(), dt, c.shape)
					}
				})
			}
		}
		mustPanicWith(t, ErrIndex, func() { Zeros(dt, 3, 0).Softmax(2) }, "Softmax")
	}
}
