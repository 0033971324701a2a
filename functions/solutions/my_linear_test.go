package solutions

import (
	"fmt"
	"testing"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/functions/internal/fntest"
	"github.com/goagx/agx/tensor"
)

// example B2
func TestMyLinear(t *testing.T) {
	t.Run("forward/table", func(t *testing.T) {
		x := agx.FromSlice([]float64{1, 2, 3, 4}, 2, 2)
		w := agx.FromSlice([]float64{1, 0, 0, 1, 1, 1}, 3, 2)
		b := agx.FromSlice([]float64{0.5, -1, 0}, 3)
		fntest.Elements(t, "y", MyLinear(x, w, b), 1.5, 1, 3, 3.5, 3, 7)
		fntest.Elements(t, "y without bias", MyLinear(x, w, nil), 1, 2, 3, 3, 4, 7)
		fntest.Elements(t, "two inputs", agx.Apply(MyLinearFunction{}, x, w), 1, 2, 3, 3, 4, 7)
	})
	t.Run("grads/table", func(t *testing.T) {
		x := fntest.LeafOf([]float64{1, 2, 3, 4}, 2, 2)
		w := fntest.LeafOf([]float64{1, 0, 0, 1, 1, 1}, 3, 2)
		b := fntest.LeafOf([]float64{0, 0, 0}, 3)
		MyLinear(x, w, b).Sum().Backward()
		fntest.Elements(t, "x.grad = g·W", x.Grad(), 2, 2, 2, 2)
		fntest.Elements(t, "W.grad = gᵀ·x", w.Grad(), 4, 6, 4, 6, 4, 6)
		fntest.Elements(t, "b.grad = Σ g", b.Grad(), 2, 2, 2)
	})
	// The source's shapes: x(5,4), W(3,4), b(3), float64.
	fntest.GradChecks(t, MyLinearFunction{}, []*agx.Tensor{fntest.Leaf(1, tensor.Float64, 5, 4), fntest.Leaf(2, tensor.Float64, 3, 4), fntest.Leaf(3, tensor.Float64, 3)},
		agx.Eps(1e-6), agx.Atol(1e-4))
	for _, dt := range fntest.DTypes {
		t.Run("composite/"+dt.String(), func(t *testing.T) {
			in := []*agx.Tensor{fntest.Leaf(4, dt, 5, 4), fntest.Leaf(5, dt, 3, 4), fntest.Leaf(6, dt, 3)}
			fntest.Compare(t, func(in ...*agx.Tensor) *agx.Tensor { return MyLinear(in[0], in[1], in[2]) },
				func(in ...*agx.Tensor) *agx.Tensor { return in[0].MatMul(in[1].T()).Add(in[2]) }, in, fntest.Tol(dt))
		})
	}
	t.Run("needs-input-grad", func(t *testing.T) {
		x := agx.New(tensor.NewGenerator(7).Randn(tensor.Float64, 5, 4))
		w := fntest.Leaf(8, tensor.Float64, 3, 4)
		MyLinear(x, w, nil).Sum().Backward()
		if x.Grad() != nil || w.Grad() == nil {
			t.Fatalf("x.grad %v, W.grad %v", x.Grad(), w.Grad())
		}
	})
	t.Run("misuse/1-D x", func(t *testing.T) {
		fntest.PanicsIs(t, tensor.ErrShape, func() { MyLinear(agx.Ones(tensor.Float64, 4), agx.Ones(tensor.Float64, 3, 4), nil) })
	})
}

// example B3: x(8,4) → MyLinear(6) → sigmoid → MyLinear(2). The exercise uses
// its own MySigmoid; this test uses agx's built-in Sigmoid so that it does not
// depend on that Function.
func TestMyLinearTwoLayerNetwork(t *testing.T) {
	x := fntest.Leaf(10, tensor.Float64, 8, 4)
	w1, b1 := fntest.Leaf(11, tensor.Float64, 6, 4), fntest.Leaf(12, tensor.Float64, 6)
	w2, b2 := fntest.Leaf(13, tensor.Float64, 2, 6), fntest.Leaf(14, tensor.Float64, 2)
	net := func(in ...*agx.Tensor) *agx.Tensor {
		return MyLinear(MyLinear(in[0], in[1], in[2]).Sigmoid(), in[3], in[4])
	}
	out := net(x, w1, b1, w2, b2)
	out.Sum().Backward()
	for _, c := range []struct {
		name      string
		got, want []int
	}{
		{"out", out.Shape(), []int{8, 2}},
		{"x.grad", x.Grad().Shape(), []int{8, 4}},
		{"W1.grad", w1.Grad().Shape(), []int{6, 4}},
		{"b1.grad", b1.Grad().Shape(), []int{6}},
		{"W2.grad", w2.Grad().Shape(), []int{2, 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
				t.Fatalf("shape %v, want %v", c.got, c.want)
			}
		})
	}
	t.Run("composite", func(t *testing.T) {
		ref := func(in ...*agx.Tensor) *agx.Tensor {
			h := in[0].MatMul(in[1].T()).Add(in[2]).Sigmoid()
			return h.MatMul(in[3].T()).Add(in[4])
		}
		fntest.Compare(t, net, ref, []*agx.Tensor{x, w1, b1, w2, b2}, 1e-12)
	})
	t.Run("gradcheck", func(t *testing.T) {
		if err := agx.GradCheck(net, []*agx.Tensor{x, w1, b1, w2, b2}); err != nil {
			t.Fatal(err)
		}
	})
}

func ExampleMyLinear() {
	x := agx.FromSlice([]float32{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
	w := agx.FromSlice([]float32{1, 0, 0, 1, 1, 1}, 3, 2).SetRequiresGrad(true)
	b := agx.FromSlice([]float32{0.5, -1, 0}, 3).SetRequiresGrad(true)
	y := MyLinear(x, w, b)
	fmt.Println(y)
	y.Sum().Backward()
	fmt.Println(x.Grad())
	fmt.Println(w.Grad())
	fmt.Println(b.Grad())
	// Output:
	// tensor([[1.5000, 1.0000, 3.0000],
	//         [3.5000, 3.0000, 7.0000]], grad_fn=<MyLinearBackward>)
	// tensor([[2., 2.],
	//         [2., 2.]])
	// tensor([[4., 6.],
	//         [4., 6.],
	//         [4., 6.]])
	// tensor([2., 2., 2.])
}
