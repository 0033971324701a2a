package functions

import (
	"fmt"
	"math"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// bcGumbelRef is GumbelSoftmax composed from agx built-ins, drawing the same
// noise from a generator seeded alike.
func bcGumbelRef(logits *agx.Tensor, tau float64, hard bool, gen *tensor.Generator) *agx.Tensor {
	u := gen.Rand(logits.DType(), logits.Shape()...)
	noise := agx.New(u.Add(1e-10).Log().Neg().Add(1e-10).Log().Neg())
	ySoft := logits.Add(noise).Div(tau).Softmax(-1)
	if !hard {
		return ySoft
	}
	idx := ySoft.ArgMax(-1, true)
	yHard := agx.ZerosLike(ySoft).Scatter(-1, idx, agx.Ones(ySoft.DType(), idx.Shape()...))
	return agx.StraightThrough(yHard, ySoft)
}

// example C13
func TestGumbelSoftmax(t *testing.T) {
	logits := fntest.Leaf(1, tensor.Float64, 4, 5)
	t.Run("soft rows sum to 1", func(t *testing.T) {
		y := GumbelSoftmax(logits, 0.5, false, tensor.NewGenerator(3))
		fntest.CloseData(t, "row sums", y.Sum(-1).Data(), tensor.Ones(tensor.Float64, 4), 1e-12, 1e-12)
	})
	t.Run("seeded", func(t *testing.T) {
		a := GumbelSoftmax(logits, 0.5, false, tensor.NewGenerator(3))
		b := GumbelSoftmax(logits, 0.5, false, tensor.NewGenerator(3))
		c := GumbelSoftmax(logits, 0.5, false, tensor.NewGenerator(4))
		fntest.CloseData(t, "same seed", a.Data(), b.Data(), 0, 0)
		if oracleSame := a.Data().Sub(c.Data()).Abs().Max().Item(); oracleSame == 0 {
			t.Fatal("different seeds gave the same sample")
		}
	})
	t.Run("hard is one-hot at the soft argmax", func(t *testing.T) {
		soft := GumbelSoftmax(logits, 0.5, false, tensor.NewGenerator(3))
		hard := GumbelSoftmax(logits, 0.5, true, tensor.NewGenerator(3))
		want := tensor.OneHot(soft.Data().ArgMax(-1, false), 5).To(tensor.Float64)
		fntest.CloseData(t, "one-hot", hard.Data(), want, 0, 1e-15)
	})
	t.Run("hard passes the soft gradient", func(t *testing.T) {
		w := agx.New(tensor.NewGenerator(9).Randn(tensor.Float64, 4, 5))
		grad := func(hard bool) *tensor.Tensor {
			x := agx.New(logits.Data()).SetRequiresGrad(true)
			GumbelSoftmax(x, 0.5, hard, tensor.NewGenerator(3)).Mul(w).Sum().Backward()
			return x.Grad().Data()
		}
		fntest.CloseData(t, "grad", grad(true), grad(false), 1e-12, 1e-12)
	})
	for _, hard := range []bool{false, true} {
		for _, dt := range fntest.DTypes {
			t.Run(fmt.Sprintf("composite/hard=%v/%v", hard, dt), func(t *testing.T) {
				fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return GumbelSoftmax(in[0], 0.7, hard, tensor.NewGenerator(5)) },
					func(in ...*agx.Tensor) *agx.Tensor { return bcGumbelRef(in[0], 0.7, hard, tensor.NewGenerator(5)) },
					[]*agx.Tensor{fntest.Leaf(2, dt, 3, 6)}, fntest.Tol(dt))
			})
		}
	}
	soft := func(in ...*agx.Tensor) *agx.Tensor { return GumbelSoftmax(in[0], 0.7, false, tensor.NewGenerator(5)) }
	fntest.GradChecks(t, soft, []*agx.Tensor{fntest.Leaf(6, tensor.Float64, 3, 4)})
	t.Run("misuse/temperature", func(t *testing.T) {
		for _, tau := range []float64{0, -1, math.NaN(), math.Inf(1)} {
			fntest.PanicsIs(t, tensor.ErrArg, func() { GumbelSoftmax(logits, tau, false, nil) })
		}
	})
}

func ExampleGumbelSoftmax() {
	logits := agx.FromSlice([]float32{0, 10, 0}, 1, 3).SetRequiresGrad(true)
	y := GumbelSoftmax(logits, 0.5, true, tensor.NewGenerator(1))
	fmt.Println(y.Detach())
	y.Mul(agx.FromSlice([]float32{0, 1, 0}, 1, 3)).Sum().Backward()
	fmt.Println(logits.Grad().Abs().Max().Item() < 1e-3) // softmax saturated: tiny gradient
	// Output:
	// tensor([[0., 1., 0.]])
	// true
}
