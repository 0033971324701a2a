package functions

import (
	"math"
	"testing"

	"github.com/goagx/agx/tensor"
)

// TestAttnRowKernels compares the fused softmax-gradient row kernel with
// the whole-tensor ops it replaces, per dtype, including a row holding a NaN.
func TestAttnRowKernels(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			gen := tensor.NewGenerator(3)
			s := gen.Randn(dt, 2, 5, 7).Mul(4)
			nan := s.Clone()
			nan.Select(0, 1).Select(0, 2).Select(0, 3).Fill(math.NaN())
			for _, in := range []struct {
				name string
				s    *tensor.Tensor
			}{{"finite", s}, {"nan", nan}} {
				want := in.s.Mul(0.3).Softmax(-1)
				close := func(a, b float64) bool {
					return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b))
				}
				dp := gen.Randn(dt, 2, 5, 7)
				wantG := dp.Sub(dp.Mul(want).SumKeep(-1)).Mul(want).Mul(0.3).Float64s()
				gotG := attnSoftmaxGrad(dp.Clone(), want, 0.3).Float64s()
				for i := range wantG {
					if !close(gotG[i], wantG[i]) {
						t.Fatalf("%s: softmax grad element %d = %v, want %v", in.name, i, gotG[i], wantG[i])
					}
				}
			}
		})
	}
}

func BenchmarkAttnRowKernels(b *testing.B) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		gen := tensor.NewGenerator(5)
		s := gen.Randn(dt, 2, 4, 128, 128)
		p := s.Softmax(-1)
		dp := gen.Randn(dt, 2, 4, 128, 128)
		work := s.Clone()
		b.Run(dt.String()+"/softmax_grad", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				work.CopyFrom(dp)
				attnSoftmaxGrad(work, p, 0.125)
			}
		})
	}
}
