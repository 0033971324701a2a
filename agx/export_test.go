package agx_test

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
)

type scaleBy struct{ K float64 }

func (f scaleBy) Forward(ctx *agx.Ctx, in ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(in[0].Mul(f.K))
}

func (f scaleBy) Backward(ctx *agx.Ctx, g ...*agx.Tensor) []*agx.Tensor {
	return agx.Outputs(g[0].Mul(f.K))
}

func TestNodeExportAccessors(t *testing.T) {
	x := agx.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3).SetRequiresGrad(true)
	s := x.Softmax(1)
	y := agx.Apply(scaleBy{K: 2}, s.T())
	t.Run("function", func(t *testing.T) {
		f, ok := y.GradFn().Function().(scaleBy)
		if !ok || f.K != 2 || s.GradFn().Function() != nil {
			t.Errorf("Function() = %v, %v", y.GradFn().Function(), s.GradFn().Function())
		}
	})
	t.Run("output_shape", func(t *testing.T) {
		tr := y.GradFn().NextFunctions()[0].Node
		if got := fmt.Sprintf("%s %v %v", tr.Name(), tr.OutputShape(0), tr.OutputShape(1)); got != "TransposeBackward0 [3 2] []" {
			t.Errorf("got %s", got)
		}
	})
	t.Run("variable", func(t *testing.T) {
		acc := s.GradFn().NextFunctions()[0].Node
		if acc.Name() != "AccumulateGrad" || acc.Variable() != x || s.GradFn().Variable() != nil {
			t.Errorf("Variable() = %v", acc.Variable())
		}
	})
	t.Run("saved_values", func(t *testing.T) {
		sv := s.GradFn().SavedValues()
		if len(sv) != 1 || sv[0].String() != s.Detach().String() || sv[0].RequiresGrad() {
			t.Fatalf("SavedValues() = %v", sv)
		}
		y.Sum().Backward()
		if s.GradFn().SavedValues() != nil {
			t.Error("saved values remain after backward released them")
		}
	})
}
