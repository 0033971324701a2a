package agx

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/goagx/agx/tensor"
)

// bnRef is BatchNorm's forward in float64 by the definition: per channel of
// x [N, C, L...], the mean and biased variance over N and L, then
// weight·(x - μ)/√(σ² + eps) + bias (nil weight 1, nil bias 0).
func bnRef(x []float64, shape []int, w, b []float64, eps float64) []float64 {
	n, c := shape[0], shape[1]
	l := len(x) / (n * c)
	at := func(i, j, k int) int { return (i*c+j)*l + k }
	out := make([]float64, len(x))
	for j := range c {
		var mean, v float64
		for i := range n {
			for k := range l {
				mean += x[at(i, j, k)]
			}
		}
		mean /= float64(n * l)
		for i := range n {
			for k := range l {
				d := x[at(i, j, k)] - mean
				v += d * d
			}
		}
		v /= float64(n * l)
		wj, bj := 1.0, 0.0
		if w != nil {
			wj = w[j]
		}
		if b != nil {
			bj = b[j]
		}
		for i := range n {
			for k := range l {
				out[at(i, j, k)] = wj*(x[at(i, j, k)]-mean)/math.Sqrt(v+eps) + bj
			}
		}
	}
	return out
}

// wavy gives n values with no pattern a channel could align with.
func wavy(n int, scale, off float64) []float64 {
	return opMap(seq(n, 1, 0), func(v float64) float64 { return off + scale*math.Sin(1.7*v+0.4) + 0.05*v })
}

func batchNormCases() []opCase {
	x2, x3, x4 := wavy(12, 1.5, 0.2), wavy(24, 2, -0.5), wavy(24, 0.8, 3)
	w, b := seq(3, 0.6, -0.7), seq(3, -0.4, 0.9)
	bn := func(x []*Tensor) *Tensor { return BatchNorm(x[0], x[1], x[2], 1e-5) }
	eps := map[string]any{"eps": 1e-5}
	return []opCase{
		{name: "BatchNorm/NC", in: []opIn{gIn(shp(4, 3), x2...), gIn(shp(3), w...), gIn(shp(3), b...)},
			f: bn, want: bnRef(x2, shp(4, 3), w, b, 1e-5), wantShape: shp(4, 3), oracle: "batch_norm", params: eps},
		{name: "BatchNorm/NCHW", in: []opIn{gIn(shp(2, 3, 2, 2), x4...), gIn(shp(3), w...), gIn(shp(3), b...)},
			f: bn, want: bnRef(x4, shp(2, 3, 2, 2), w, b, 1e-5), wantShape: shp(2, 3, 2, 2), oracle: "batch_norm", params: eps},
		{name: "BatchNorm/NCL/no_affine", in: []opIn{gIn(shp(3, 2, 4), x3...)},
			f:    func(x []*Tensor) *Tensor { return BatchNorm(x[0], nil, nil, 1e-3) },
			want: bnRef(x3, shp(3, 2, 4), nil, nil, 1e-3), oracle: "batch_norm", params: map[string]any{"eps": 1e-3}},
		{name: "BatchNorm/NC/const_weight", in: []opIn{gIn(shp(8, 3), x3...), cIn(shp(3), w...), gIn(shp(3), b...)},
			f: bn, want: bnRef(x3, shp(8, 3), w, b, 1e-5), oracle: "batch_norm", params: eps},
		{name: "BatchNorm/NC/const_input", in: []opIn{cIn(shp(4, 3), x2...), gIn(shp(3), w...)},
			f:    func(x []*Tensor) *Tensor { return BatchNorm(x[0], x[1], nil, 1e-5) },
			want: bnRef(x2, shp(4, 3), w, nil, 1e-5), oracle: "batch_norm", params: eps},
	}
}

func TestBatchNormOps(t *testing.T) { runOpCases(t, batchNormCases()) }

// TestBatchNormFarFromZero: data with a mean 10⁴ times its spread keeps its
// variance (the sums run about a shift, not about 0), in both dtypes.
func TestBatchNormFarFromZero(t *testing.T) {
	x := wavy(64, 1, 1e4)
	want := bnRef(x, shp(16, 4), nil, nil, 1e-5)
	for _, dt := range []DType{Float64, Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			xt := New(tensor.FromSlice(x, 16, 4).To(dt))
			// float32 holds 1e4 + d to about 1e-3: that is its input error.
			tol := 1e-9
			if dt == Float32 {
				tol = 2e-3
			}
			if d := opClose(BatchNorm(xt, nil, nil, 1e-5).Float64s(), want, tol, tol); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestBatchNormLongBatch: batches longer than the kernels' blocks of rows
// (several full blocks and a partial one) agree with the definition, forward
// and backward (the backward against the composed double-backward path).
func TestBatchNormLongBatch(t *testing.T) {
	for _, dt := range []DType{Float64, Float32} {
		for _, shape := range [][]int{{150, 5}, {70, 3, 4}} {
			t.Run(fmt.Sprintf("%v/%v", dt, shape), func(t *testing.T) {
				gen := tensor.NewGenerator(5)
				x := New(gen.Randn(Float64, shape...).To(dt)).SetRequiresGrad(true)
				w := New(gen.Randn(Float64, shape[1]).To(dt)).SetRequiresGrad(true)
				b := New(gen.Randn(Float64, shape[1]).To(dt)).SetRequiresGrad(true)
				gout := New(gen.Randn(Float64, shape...).To(dt))
				tol := 1e-12
				if dt == Float32 {
					tol = 1e-5
				}
				y := BatchNorm(x, w, b, 1e-5)
				want := bnRef(x.Float64s(), shape, w.Float64s(), b.Float64s(), 1e-5)
				if d := opClose(y.Float64s(), want, tol, tol); d != "" {
					t.Fatalf("forward: %s", d)
				}
				fast := Grad([]*Tensor{y}, []*Tensor{x, w, b}, GradOutputs(gout))
				ops := Grad([]*Tensor{BatchNorm(x, w, b, 1e-5)}, []*Tensor{x, w, b}, GradOutputs(gout), CreateGraph())
				for i := range fast {
					if d := opClose(fast[i].Float64s(), ops[i].Float64s(), 10*tol, 10*tol); d != "" {
						t.Errorf("grad %d: %s", i, d)
					}
				}
			})
		}
	}
}

// TestBatchNormStrided: a non-contiguous input and upstream gradient give
// what their contiguous copies give.
func TestBatchNormStrided(t *testing.T) {
	for _, dt := range []DType{Float64, Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			gen := tensor.NewGenerator(3)
			base := New(gen.Randn(dt, 3, 5)).SetRequiresGrad(true)
			w := New(gen.Randn(dt, 3)).SetRequiresGrad(true)
			gout := New(gen.Randn(dt, 3, 5)).MT()
			y := BatchNorm(base.MT(), w, nil, 1e-5)
			gs := Grad([]*Tensor{y}, []*Tensor{base, w}, GradOutputs(gout))
			c := New(base.Data().MT().Contiguous()).SetRequiresGrad(true)
			yc := BatchNorm(c, w, nil, 1e-5)
			gc := Grad([]*Tensor{yc}, []*Tensor{c, w}, GradOutputs(New(gout.Data().Contiguous())))
			if d := opClose(y.Float64s(), yc.Float64s(), 1e-6, 1e-6); d != "" {
				t.Errorf("forward: %s", d)
			}
			if d := opClose(gs[0].MT().Float64s(), gc[0].Float64s(), 1e-6, 1e-6); d != "" {
				t.Errorf("dx: %s", d)
			}
			if d := opClose(gs[1].Float64s(), gc[1].Float64s(), 1e-6, 1e-6); d != "" {
				t.Errorf("dweight: %s", d)
			}
		})
	}
}

func TestBatchNormMisuse(t *testing.T) {
	x := New(tensor.Ones(Float64, 4, 3))
	w3, w4 := New(tensor.Ones(Float64, 3)), New(tensor.Ones(Float64, 4))
	cases := []struct {
		name     string
		f        func()
		sentinel error
		phrase   string
	}{
		{"nil_input", func() { BatchNorm(nil, nil, nil, 1e-5) }, tensor.ErrArg, "argument 'input' (position 1)"},
		{"1d", func() { BatchNorm(New(tensor.Ones(Float64, 4)), nil, nil, 1e-5) }, tensor.ErrShape, "at least 2 dims"},
		{"one_value_per_channel", func() { BatchNorm(New(tensor.Ones(Float64, 1, 3)), w3, nil, 1e-5) }, tensor.ErrShape,
			"Expected more than 1 value per channel when training, got input size [1 3]"},
		{"weight_shape", func() { BatchNorm(x, w4, nil, 1e-5) }, tensor.ErrShape, "weight of shape [4]"},
		{"bias_shape", func() { BatchNorm(x, w3, w4, 1e-5) }, tensor.ErrShape, "bias of shape [4]"},
		{"weight_dtype", func() { BatchNorm(x, New(tensor.Ones(Float32, 3)), nil, 1e-5) }, tensor.ErrDType, "weight has dtype float32"},
		{"int_input", func() { BatchNorm(New(tensor.Ones(Int64, 4, 3)), nil, nil, 1e-5) }, tensor.ErrDType, "Float32 or Float64"},
		{"negative_eps", func() { BatchNorm(x, nil, nil, -1) }, tensor.ErrArg, "eps must be non-negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Try(tc.f)
			if err == nil || !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.phrase) {
				t.Fatalf("error %v, want %v containing %q", err, tc.sentinel, tc.phrase)
			}
		})
	}
}

func ExampleBatchNorm() {
	x := New(tensor.FromSlice([]float64{1, 10, 3, 30}, 2, 2))
	w := New(tensor.FromSlice([]float64{1, 2}, 2))
	b := New(tensor.FromSlice([]float64{0, 1}, 2))
	fmt.Println(BatchNorm(x, w, b, 0))
	// Output:
	// tensor([[-1., -1.],
	//         [ 1.,  3.]], dtype=float64)
}

func BenchmarkBatchNorm(b *testing.B) {
	for _, dt := range []DType{Float32, Float64} {
		for _, shape := range [][]int{{256, 512}, {32, 64, 16, 16}} {
			b.Run(fmt.Sprintf("%v/%v", dt, shape), func(b *testing.B) {
				gen := tensor.NewGenerator(1)
				x := New(gen.Randn(dt, shape...)).SetRequiresGrad(true)
				w := New(gen.Randn(dt, shape[1])).SetRequiresGrad(true)
				bias := New(gen.Randn(dt, shape[1])).SetRequiresGrad(true)
				gout := New(gen.Randn(dt, shape...))
				b.ReportAllocs()
				for b.Loop() {
					Grad([]*Tensor{BatchNorm(x, w, bias, 1e-5)}, []*Tensor{x, w, bias}, GradOutputs(gout))
				}
			})
		}
	}
}

// TestBatchNormOutlierFirst: a channel whose first value lies far from the
// others keeps its variance, [N, C] and [N, C, L], in both dtypes.
func TestBatchNormOutlierFirst(t *testing.T) {
	for _, dt := range []DType{Float64, Float32} {
		for _, shape := range [][]int{{20000, 2}, {20, 2, 1000}} {
			t.Run(fmt.Sprintf("%v/%v", dt, shape), func(t *testing.T) {
				xs := tensor.NewGenerator(9).Randn(Float64, shape...).Float64s()
				xs[0] = 1e4
				x := tensor.FromSlice(xs, shape...).To(dt)
				want := bnRef(x.To(Float64).Float64s(), shape, nil, nil, 1e-5)
				tol := 1e-9
				if dt == Float32 {
					tol = 1e-5
				}
				if d := opClose(BatchNorm(New(x), nil, nil, 1e-5).Float64s(), want, tol, tol); d != "" {
					t.Error(d)
				}
			})
		}
	}
}

// BenchmarkBatchNormComposite is batch norm over dim 0 of [256,512] float32
// as users write it from ops, ((x - mean)**2).mean(0) for the variance, with
// an affine weight and bias, forward and backward. Run with -cpu 1.
func BenchmarkBatchNormComposite(b *testing.B) {
	gen := tensor.NewGenerator(8)
	x := New(gen.Randn(Float32, 256, 512)).SetRequiresGrad(true)
	gamma := New(gen.Randn(Float32, 512)).SetRequiresGrad(true)
	beta := New(gen.Randn(Float32, 512)).SetRequiresGrad(true)
	gout := New(gen.Randn(Float32, 256, 512))
	b.ReportAllocs()
	loopCPU(b, func() {
		mean := x.Mean(0)
		variance := x.Sub(mean).Pow(2).Mean(0)
		y := x.Sub(mean).Div(variance.Add(1e-5).Sqrt()).Mul(gamma).Add(beta)
		Grad([]*Tensor{y}, []*Tensor{x, gamma, beta}, GradOutputs(gout))
	})
}
