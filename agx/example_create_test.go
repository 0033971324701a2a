package agx_test

import (
	"fmt"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// Tensors are made from Go slices; the shape comes last and defaults to 1-d.
func ExampleFromSlice() {
	x := agx.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(x)
	// Output:
	// tensor([[1., 2., 3.],
	//         [4., 5., 6.]])
}

// FromNested reads the shape from nested slices, like torch.tensor.
func ExampleFromNested() {
	fmt.Println(agx.FromNested([][]float64{{1, 2}, {3, 4}}))
	// Output:
	// tensor([[1., 2.],
	//         [3., 4.]], dtype=float64)
}

func ExampleScalar() {
	s := agx.Scalar(2.5)
	fmt.Println(s, s.Dim(), s.Item())
	// Output:
	// tensor(2.5000, dtype=float64) 0 2.5
}

func ExampleZeros() {
	fmt.Println(agx.Zeros(agx.Float32, 2, 2))
	// Output:
	// tensor([[0., 0.],
	//         [0., 0.]])
}

func ExampleOnes() {
	fmt.Println(agx.Ones(agx.Float64, 3))
	// Output:
	// tensor([1., 1., 1.], dtype=float64)
}

func ExampleFull() {
	fmt.Println(agx.Full(agx.Float32, 7, 2))
	// Output:
	// tensor([7., 7.])
}

func ExampleZerosLike() {
	x := agx.FromSlice([]float32{1, 2, 3})
	fmt.Println(agx.ZerosLike(x), agx.OnesLike(x))
	// Output:
	// tensor([0., 0., 0.]) tensor([1., 1., 1.])
}

func ExampleEye() {
	fmt.Println(agx.Eye(agx.Float32, 2))
	// Output:
	// tensor([[1., 0.],
	//         [0., 1.]])
}

func ExampleArange() {
	fmt.Println(agx.Arange(agx.Float64, 0, 1, 0.25))
	// Output:
	// tensor([0.0000, 0.2500, 0.5000, 0.7500], dtype=float64)
}

func ExampleLinspace() {
	fmt.Println(agx.Linspace(agx.Float32, 0, 1, 5))
	// Output:
	// tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
}

// Random tensors come from the seeded default generator: ManualSeed makes a
// notebook reproducible.
func ExampleRandn() {
	agx.ManualSeed(0)
	a := agx.Randn(agx.Float32, 3)
	agx.ManualSeed(0)
	b := agx.Randn(agx.Float32, 3)
	fmt.Println(a.Shape(), agx.MaxAbsDiff(a, b))
	// Output:
	// [3] 0
}

func ExampleRand() {
	agx.ManualSeed(1)
	u := agx.Rand(agx.Float64, 1000)
	fmt.Println(u.Min().Item() >= 0, u.Max().Item() < 1)
	// Output:
	// true true
}

func ExampleRandint() {
	agx.ManualSeed(2)
	k := agx.Randint(0, 10, 100)
	fmt.Println(k.DType(), k.Min().Item() >= 0, k.Max().Item() < 10)
	// Output:
	// int64 true true
}

func ExampleManualSeed() {
	agx.ManualSeed(42)
	first := agx.Rand(agx.Float64, 2).Float64s()
	agx.ManualSeed(42)
	again := agx.Rand(agx.Float64, 2).Float64s()
	fmt.Println(first[0] == again[0] && first[1] == again[1])
	// Output:
	// true
}

// New wraps a tensor.Tensor (no copy) so that autograd can track it.
func ExampleNew() {
	x := agx.New(tensor.FromSlice([]float64{1, 2})).SetRequiresGrad(true)
	fmt.Println(x)
	// Output:
	// tensor([1., 2.], dtype=float64, requires_grad=True)
}

func ExampleTensor_SetRequiresGrad() {
	w := agx.Ones(agx.Float64, 2).SetRequiresGrad(true)
	y := w.Mul(3).Sum()
	fmt.Println(w.RequiresGrad(), w.IsLeaf(), y.RequiresGrad(), y.IsLeaf())
	// Output:
	// true true true false
}

func ExampleTensor_Detach() {
	w := agx.Ones(agx.Float64, 2).SetRequiresGrad(true)
	fmt.Println(w.Mul(2).Detach().RequiresGrad())
	// Output:
	// false
}

func ExampleTensor_Item() {
	fmt.Println(agx.FromSlice([]float64{1, 2, 3}).Sum().Item())
	// Output:
	// 6
}

func ExampleTensor_Float64s() {
	fmt.Println(agx.FromSlice([]float32{0.5, 1.5}).Float64s())
	// Output:
	// [0.5 1.5]
}

func ExampleTensor_Shape() {
	x := agx.Zeros(agx.Float32, 2, 3, 4)
	fmt.Println(x.Shape(), x.Dim(), x.Size(1), x.Numel(), x.DType())
	// Output:
	// [2 3 4] 3 3 24 float32
}

func ExampleTensor_To() {
	fmt.Println(agx.FromSlice([]float64{1.5, 2.5}).To(agx.Float32))
	// Output:
	// tensor([1.5000, 2.5000])
}

func ExampleTensor_SetName() {
	w := agx.Ones(agx.Float64, 2).SetName("w")
	fmt.Println(w.Name())
	// Output:
	// w
}
