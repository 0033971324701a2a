package agx

import (
	"math"
	"slices"
	"testing"

	"github.com/goagx/agx/tensor"
)

var rdX = []float64{0.5, -1.2, 2.1, 1.3, 0.7, -0.4} // [2,3], distinct

// rdRows applies f to each row (dim 1) or column (dim 0) of a [2,3] matrix,
// or to all values (dim -1).
func rdRows(v []float64, dim int, f func([]float64) float64) []float64 {
	switch dim {
	case 1:
		return []float64{f(v[0:3]), f(v[3:6])}
	case 0:
		return []float64{f([]float64{v[0], v[3]}), f([]float64{v[1], v[4]}), f([]float64{v[2], v[5]})}
	}
	return []float64{f(v)}
}

func rdSum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func rdMean(v []float64) float64 { return rdSum(v) / float64(len(v)) }

func rdVar(unbiased bool) func([]float64) float64 {
	return func(v []float64) float64 {
		m, s := rdMean(v), 0.0
		for _, x := range v {
			s += (x - m) * (x - m)
		}
		if unbiased {
			return s / float64(len(v)-1)
		}
		return s / float64(len(v))
	}
}

func rdLSE(v []float64) float64 {
	m, s := slices.Max(v), 0.0
	for _, x := range v {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// rdSoftmax is softmax (or log-softmax) along the rows (dim 1) or columns (dim 0).
func rdSoftmax(v []float64, dim int, log bool) []float64 {
	out := make([]float64, 6)
	at := func(i, j int) int { return i*3 + j }
	lines := [][]int{{at(0, 0), at(0, 1), at(0, 2)}, {at(1, 0), at(1, 1), at(1, 2)}}
	if dim == 0 {
		lines = [][]int{{0, 3}, {1, 4}, {2, 5}}
	}
	for _, l := range lines {
		var xs []float64
		for _, k := range l {
			xs = append(xs, v[k])
		}
		lse := rdLSE(xs)
		for _, k := range l {
			out[k] = v[k] - lse
			if !log {
				out[k] = math.Exp(out[k])
			}
		}
	}
	return out
}

func reduceCases() []opCase {
	x := gIn(shp(2, 3), rdX...)
	x3 := gIn(shp(2, 2, 2), 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
	f := func(fn func(*Tensor) *Tensor) func([]*Tensor) *Tensor {
		return func(x []*Tensor) *Tensor { return fn(x[0]) }
	}
	p := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	dims := func(d ...int) []int { return d }
	return []opCase{
		{name: "Sum/all", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Sum() }),
			want: rdRows(rdX, -1, rdSum), wantShape: shp(), oracle: "sum", params: p("dims", dims(), "keep", false)},
		{name: "Sum/dim1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Sum(1) }),
			want: rdRows(rdX, 1, rdSum), wantShape: shp(2), oracle: "sum", params: p("dims", dims(1), "keep", false)},
		{name: "Sum/dims_0_2", in: []opIn{x3}, f: f(func(t *Tensor) *Tensor { return t.Sum(0, -1) }),
			want: []float64{1.4, 2.2}, wantShape: shp(2), oracle: "sum", params: p("dims", dims(0, -1), "keep", false)},
		{name: "SumKeep/dim0", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.SumKeep(0) }),
			want: rdRows(rdX, 0, rdSum), wantShape: shp(1, 3), oracle: "sum", params: p("dims", dims(0), "keep", true)},
		{name: "Mean/all", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Mean() }),
			want: rdRows(rdX, -1, rdMean), oracle: "mean", params: p("dims", dims(), "keep", false)},
		{name: "Mean/dim0", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Mean(0) }),
			want: rdRows(rdX, 0, rdMean), oracle: "mean", params: p("dims", dims(0), "keep", false)},
		{name: "MeanKeep/dim1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.MeanKeep(-1) }),
			want: rdRows(rdX, 1, rdMean), wantShape: shp(2, 1), oracle: "mean", params: p("dims", dims(-1), "keep", true)},
		{name: "Var/unbiased_all", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Var(true) }),
			want: rdRows(rdX, -1, rdVar(true)), oracle: "var", params: p("dims", dims(), "keep", false, "unbiased", true)},
		{name: "Var/biased_dim1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Var(false, 1) }),
			want: rdRows(rdX, 1, rdVar(false)), oracle: "var", params: p("dims", dims(1), "keep", false, "unbiased", false)},
		{name: "VarKeep/unbiased_dim0", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.VarKeep(true, 0) }),
			want: rdRows(rdX, 0, rdVar(true)), wantShape: shp(1, 3), oracle: "var", params: p("dims", dims(0), "keep", true, "unbiased", true)},
		{name: "Std/unbiased_dim1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Std(true, 1) }),
			want: opMap(rdRows(rdX, 1, rdVar(true)), math.Sqrt), oracle: "std", params: p("dims", dims(1), "keep", false, "unbiased", true)},
		{name: "Amax/dim1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Amax(1) }),
			want: rdRows(rdX, 1, slices.Max[[]float64]), oracle: "amax", params: p("dims", dims(1), "keep", false)},
		{name: "AmaxKeep/dim0", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.AmaxKeep(0) }),
			want: rdRows(rdX, 0, slices.Max[[]float64]), wantShape: shp(1, 3), oracle: "amax", params: p("dims", dims(0), "keep", true)},
		{name: "Amin/dim0", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Amin(0) }),
			want: rdRows(rdX, 0, slices.Min[[]float64]), oracle: "amin", params: p("dims", dims(0), "keep", false)},
		{name: "AminKeep/dim1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.AminKeep(1) }),
			want: rdRows(rdX, 1, slices.Min[[]float64]), wantShape: shp(2, 1), oracle: "amin", params: p("dims", dims(1), "keep", true)},
		{name: "Max/all", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Max() }),
			want: []float64{2.1}, wantShape: shp(), oracle: "max"},
		{name: "Min/all", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Min() }),
			want: []float64{-1.2}, wantShape: shp(), oracle: "min"},
		{name: "MaxDim/dim1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { v, _ := t.MaxDim(1, false); return v }),
			want: []float64{2.1, 1.3}, wantShape: shp(2), oracle: "max_dim", params: p("dim", 1, "keep", false)},
		{name: "MaxDim/dim0_keep", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { v, _ := t.MaxDim(0, true); return v }),
			want: []float64{1.3, 0.7, 2.1}, wantShape: shp(1, 3), oracle: "max_dim", params: p("dim", 0, "keep", true)},
		{name: "MinDim/dim1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { v, _ := t.MinDim(-1, false); return v }),
			want: []float64{-1.2, -0.4}, oracle: "min_dim", params: p("dim", -1, "keep", false)},
		{name: "LogSumExp/dim1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.LogSumExp(1) }),
			want: rdRows(rdX, 1, rdLSE), oracle: "logsumexp", params: p("dims", dims(1), "keep", false)},
		{name: "LogSumExp/all", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.LogSumExp() }),
			want: rdRows(rdX, -1, rdLSE), oracle: "logsumexp", params: p("dims", dims(0, 1), "keep", false)},
		{name: "LogSumExpKeep/dim0", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.LogSumExpKeep(0) }),
			want: rdRows(rdX, 0, rdLSE), wantShape: shp(1, 3), oracle: "logsumexp", params: p("dims", dims(0), "keep", true)},
		{name: "Softmax/dim1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Softmax(1) }),
			want: rdSoftmax(rdX, 1, false), oracle: "softmax", params: p("dim", 1)},
		{name: "Softmax/dim0", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.Softmax(0) }),
			want: rdSoftmax(rdX, 0, false), oracle: "softmax", params: p("dim", 0)},
		{name: "LogSoftmax/dim-1", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.LogSoftmax(-1) }),
			want: rdSoftmax(rdX, 1, true), oracle: "log_softmax", params: p("dim", -1)},
		{name: "LogSoftmax/dim0", in: []opIn{x}, f: f(func(t *Tensor) *Tensor { return t.LogSoftmax(0) }),
			want: rdSoftmax(rdX, 0, true), oracle: "log_softmax", params: p("dim", 0)},
	}
}

func TestReduceOps(t *testing.T) { runOpCases(t, reduceCases()) }

// Tied extremes share the gradient evenly (Amax/Max), while MaxDim sends it
// to the returned index, as in PyTorch.
func TestReduceTies(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(*Tensor) *Tensor
		want []float64
	}{
		{"Amax", func(x *Tensor) *Tensor { return x.Amax() }, []float64{0, 0.5, 0.5}},
		{"Max", func(x *Tensor) *Tensor { return x.Max() }, []float64{0, 0.5, 0.5}},
		{"Amin", func(x *Tensor) *Tensor { return x.Amin() }, []float64{1, 0, 0}},
		{"MaxDim", func(x *Tensor) *Tensor { v, _ := x.MaxDim(0, false); return v }, []float64{0, 1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := FromSlice([]float64{1, 3, 3}).SetRequiresGrad(true)
			tc.f(x).Backward()
			if d := opClose(x.Grad().Float64s(), tc.want, 0, 0); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// BenchmarkReduceDim times the reductions of a [256,512] float32 tensor over
// its leading dim (the batch dim of batch norm) and over its last dim, next
// to an Add of two such tensors, which reads twice as much memory. Run with
// -cpu 1.
func BenchmarkReduceDim(b *testing.B) {
	gen := tensor.NewGenerator(1)
	x := New(gen.Randn(tensor.Float32, 256, 512))
	for _, c := range []struct {
		name string
		f    func() *Tensor
	}{
		{"Add", func() *Tensor { return x.Add(x) }},
		{"Sum/dim0", func() *Tensor { return x.Sum(0) }},
		{"SumKeep/dim0", func() *Tensor { return x.SumKeep(0) }},
		{"Mean/dim0", func() *Tensor { return x.Mean(0) }},
		{"MeanKeep/dim0", func() *Tensor { return x.MeanKeep(0) }},
		{"MeanKeep/dim1", func() *Tensor { return x.MeanKeep(1) }},
		{"Sum/all", func() *Tensor { return x.Sum() }},
	} {
		b.Run(c.name, func(b *testing.B) {
			loopCPU(b, func() { c.f() })
		})
	}
}
