package agx_test

import (
	"fmt"

	"github.com/goagx/agx/agx"
)

// Arithmetic broadcasts like PyTorch and takes tensors or Go numbers.
func ExampleTensor_Add() {
	x := agx.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	b := agx.FromSlice([]float32{10, 20})
	fmt.Println(x.Add(b))
	fmt.Println(x.Sub(1), x.Mul(x).Sum(), x.Div(2).Max())
	// Output:
	// tensor([[11., 22.],
	//         [13., 24.]])
	// tensor([[0., 1.],
	//         [2., 3.]]) tensor(30.) tensor(2.)
}

// The package-level forms accept a number on either side.
func ExampleSub() {
	x := agx.FromSlice([]float64{1, 2})
	fmt.Println(agx.Sub(1, x), agx.Div(x, 4), agx.Pow(x, 2))
	// Output:
	// tensor([ 0., -1.], dtype=float64) tensor([0.2500, 0.5000], dtype=float64) tensor([1., 4.], dtype=float64)
}

func ExampleAdd() {
	fmt.Println(agx.Add(agx.FromSlice([]float32{1, 2}), 0.5), agx.Mul(3, agx.FromSlice([]float32{1, 2})))
	// Output:
	// tensor([1.5000, 2.5000]) tensor([3., 6.])
}

func ExampleMatMul() {
	a := agx.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(agx.MatMul(a, a.T()))
	// Output:
	// tensor([[14., 32.],
	//         [32., 77.]])
}

func ExampleMaximum() {
	x := agx.FromSlice([]float32{-1, 0.5, 2})
	fmt.Println(agx.Maximum(x, 0), agx.Minimum(x, 1))
	// Output:
	// tensor([0.0000, 0.5000, 2.0000]) tensor([-1.0000,  0.5000,  1.0000])
}

func ExampleWhere() {
	x := agx.FromSlice([]float32{-2, 1, -3, 4})
	fmt.Println(agx.Where(x.Gt(0), x, 0))
	// Output:
	// tensor([0., 1., 0., 4.])
}

func ExampleCat() {
	a := agx.FromSlice([]float32{1, 2})
	b := agx.FromSlice([]float32{3})
	fmt.Println(agx.Cat(0, a, b), agx.Stack(0, a, a).Shape())
	// Output:
	// tensor([1., 2., 3.]) [2 2]
}

func ExampleStack() {
	a := agx.FromSlice([]float32{1, 2})
	fmt.Println(agx.Stack(1, a, a.Mul(10)))
	// Output:
	// tensor([[ 1., 10.],
	//         [ 2., 20.]])
}

func ExampleTensor_Sum() {
	x := agx.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(x.Sum(), x.Sum(0), x.SumKeep(1).Shape(), x.Mean(1))
	// Output:
	// tensor(21.) tensor([5., 7., 9.]) [2 1] tensor([2., 5.])
}

func ExampleTensor_MaxDim() {
	x := agx.FromSlice([]float32{1, 9, 3, 7, 2, 8}, 2, 3)
	v, i := x.MaxDim(1, false)
	fmt.Println(v, i, x.ArgMin(1, false))
	// Output:
	// tensor([9., 8.]) tensor([1, 2]) tensor([0, 1])
}

func ExampleTensor_Var() {
	x := agx.FromSlice([]float64{1, 2, 3, 4})
	fmt.Println(x.Var(true).Item(), x.Var(false).Item(), x.Std(false).Item())
	// Output:
	// 1.6666666666666667 1.25 1.118033988749895
}

func ExampleTensor_Reshape() {
	x := agx.Arange(agx.Float32, 0, 6, 1)
	fmt.Println(x.Reshape(2, 3))
	fmt.Println(x.Reshape(2, 3).T().Shape(), x.Unsqueeze(0).Shape(), x.Reshape(1, 6, 1).Squeeze().Shape())
	// Output:
	// tensor([[0., 1., 2.],
	//         [3., 4., 5.]])
	// [3 2] [1 6] [6]
}

func ExampleTensor_Permute() {
	x := agx.Zeros(agx.Float32, 2, 3, 4)
	fmt.Println(x.Permute(2, 0, 1).Shape(), x.Transpose(0, 2).Shape(), x.Flatten().Shape())
	// Output:
	// [4 2 3] [4 3 2] [24]
}

func ExampleTensor_Slice() {
	x := agx.Arange(agx.Float32, 0, 10, 1)
	fmt.Println(x.Slice(0, 1, 8, 3), x.Narrow(0, 2, 3), x.Select(0, 4))
	// Output:
	// tensor([1., 4., 7.]) tensor([2., 3., 4.]) tensor(4.)
}

func ExampleTensor_Expand() {
	fmt.Println(agx.FromSlice([]float32{1, 2}, 2, 1).Expand(2, 3))
	// Output:
	// tensor([[1., 1., 1.],
	//         [2., 2., 2.]])
}

func ExampleTensor_IndexSelect() {
	x := agx.FromSlice([]float32{10, 20, 30, 40})
	fmt.Println(x.IndexSelect(0, agx.FromSlice([]int64{3, 0, 3})))
	// Output:
	// tensor([40., 10., 40.])
}

func ExampleTensor_Gather() {
	x := agx.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	fmt.Println(x.Gather(1, agx.FromSlice([]int64{1, 0}, 2, 1)))
	// Output:
	// tensor([[2.],
	//         [3.]])
}

func ExampleTensor_ScatterAdd() {
	z := agx.Zeros(agx.Float32, 3)
	fmt.Println(z.ScatterAdd(0, agx.FromSlice([]int64{0, 2, 0}), agx.FromSlice([]float32{1, 2, 3})))
	// Output:
	// tensor([4., 0., 2.])
}

func ExampleTensor_MaskedFill() {
	x := agx.FromSlice([]float32{1, 2, 3})
	fmt.Println(x.MaskedFill(x.Ge(2), -1))
	// Output:
	// tensor([ 1., -1., -1.])
}

func ExampleTensor_Exp() {
	x := agx.FromSlice([]float64{0, 1})
	fmt.Println(x.Exp(), x.Add(1).Log(), x.Sqrt(), x.Neg().Abs())
	// Output:
	// tensor([1.0000, 2.7183], dtype=float64) tensor([0.0000, 0.6931], dtype=float64) tensor([0., 1.], dtype=float64) tensor([0., 1.], dtype=float64)
}

func ExampleTensor_Relu() {
	x := agx.FromSlice([]float32{-1, 0, 2})
	fmt.Println(x.Relu(), x.Sigmoid(), x.Tanh())
	// Output:
	// tensor([0., 0., 2.]) tensor([0.2689, 0.5000, 0.8808]) tensor([-0.7616,  0.0000,  0.9640])
}

func ExampleTensor_Softmax() {
	x := agx.FromSlice([]float64{1, 2, 3})
	fmt.Println(x.Softmax(0), x.LogSumExp().Item())
	// Output:
	// tensor([0.0900, 0.2447, 0.6652], dtype=float64) 3.4076059644443806
}

func ExampleTensor_Clamp() {
	fmt.Println(agx.FromSlice([]float32{-2, 0.5, 3}).Clamp(0, 1))
	// Output:
	// tensor([0.0000, 0.5000, 1.0000])
}

func ExampleTensor_Eq() {
	x := agx.FromSlice([]float32{1, 2, 3})
	fmt.Println(x.Eq(2), x.Lt(2).LogicalOr(x.Gt(2)))
	// Output:
	// tensor([False,  True, False]) tensor([ True, False,  True])
}

func ExampleOneHot() {
	fmt.Println(agx.OneHot(agx.FromSlice([]int64{2, 0}), 3))
	// Output:
	// tensor([[0, 0, 1],
	//         [1, 0, 0]])
}

// CrossEntropy takes logits [N, C] and int64 class indices [N], averaged.
func ExampleCrossEntropy() {
	logits := agx.FromSlice([]float64{2, 0, 0, 0, 0, 2}, 2, 3).SetRequiresGrad(true)
	loss := agx.CrossEntropy(logits, agx.FromSlice([]int64{0, 2}))
	fmt.Printf("%.4f\n", loss.Item())
	// Output:
	// 0.2395
}

func ExampleMSELoss() {
	pred := agx.FromSlice([]float32{1, 2, 3})
	fmt.Println(agx.MSELoss(pred, agx.FromSlice([]float32{1, 2, 5})).Item())
	// Output:
	// 1.3333333730697632
}

// In-place ops write into the tensor and bump its version counter, which
// autograd checks before a backward reads a saved tensor.
func ExampleTensor_AddInPlace() {
	x := agx.Zeros(agx.Float64, 2)
	v := x.Version()
	x.AddInPlace(1).MulInPlace(3)
	fmt.Println(x, x.Version()-v)
	// Output:
	// tensor([3., 3.], dtype=float64) 2
}

func ExampleMaxAbsDiff() {
	fmt.Println(agx.MaxAbsDiff(agx.FromSlice([]float64{1, 2}), agx.FromSlice([]float64{1, 2.5})))
	// Output:
	// 0.5
}

// LogSoftmax is x - log Σ exp(x), computed without overflow; its exp sums to 1.
func ExampleTensor_LogSoftmax() {
	x := agx.FromSlice([]float64{1, 2, 3})
	y := x.LogSoftmax(0)
	fmt.Println(y)
	fmt.Printf("%.4f\n", y.Exp().Sum().Item())
	// Output:
	// tensor([-2.4076, -1.4076, -0.4076], dtype=float64)
	// 1.0000
}

// Scatter writes src at index. The overwritten elements of t get no
// gradient; src gets the gradient of the places it was written to.
func ExampleTensor_Scatter() {
	t := agx.Zeros(agx.Float64, 5).SetRequiresGrad(true)
	src := agx.FromSlice([]float64{10, 20}).SetRequiresGrad(true)
	y := t.Scatter(0, agx.FromSlice([]int64{0, 2}), src)
	y.Mul(agx.FromSlice([]float64{1, 2, 3, 4, 5})).Sum().Backward()
	fmt.Println(y.Detach())
	fmt.Println(t.Grad(), src.Grad())
	// Output:
	// tensor([10.,  0., 20.,  0.,  0.], dtype=float64)
	// tensor([0., 2., 0., 4., 5.], dtype=float64) tensor([1., 3.], dtype=float64)
}
