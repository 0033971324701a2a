package tensor_test

import (
	"fmt"

	"github.com/goagx/agx/tensor"
)

func ExampleTensor_Gather() {
	x := tensor.FromNested([][]float32{{1, 2}, {3, 4}})
	index := tensor.FromNested([][]int{{0, 0}, {1, 0}})
	fmt.Println(x.Gather(1, index))
	// Output:
	// tensor([[1., 1.],
	//         [4., 3.]])
}

func ExampleTensor_Scatter() {
	src := tensor.Arange(tensor.Float32, 1, 11, 1).Reshape(2, 5)
	index := tensor.FromNested([][]int{{0, 1, 2, 0}})
	fmt.Println(tensor.Zeros(tensor.Float32, 3, 5).Scatter(0, index, src))
	// Output:
	// tensor([[1., 0., 0., 4., 0.],
	//         [0., 2., 0., 0., 0.],
	//         [0., 0., 3., 0., 0.]])
}

func ExampleTensor_ScatterAdd() {
	index := tensor.FromSlice([]int{0, 1, 0, 2, 0})
	counts := tensor.Zeros(tensor.Int64, 3).ScatterAdd(0, index, tensor.Ones(tensor.Int64, 5))
	fmt.Println(counts)
	// Output:
	// tensor([3, 1, 1])
}

func ExampleTensor_IndexSelect() {
	x := tensor.Arange(tensor.Float32, 0, 12, 1).Reshape(3, 4)
	fmt.Println(x.IndexSelect(1, tensor.FromSlice([]int{3, 0})))
	// Output:
	// tensor([[ 3.,  0.],
	//         [ 7.,  4.],
	//         [11.,  8.]])
}

func ExampleOneHot() {
	labels := tensor.FromSlice([]int{0, 2, 1})
	fmt.Println(tensor.OneHot(labels, -1))
	// Output:
	// tensor([[1, 0, 0],
	//         [0, 0, 1],
	//         [0, 1, 0]])
}

func ExampleCat() {
	a := tensor.FromNested([][]int{{1, 2}})
	b := tensor.FromNested([][]float32{{3.5, 4}})
	fmt.Println(tensor.Cat(0, a, b))
	// Output:
	// tensor([[1.0000, 2.0000],
	//         [3.5000, 4.0000]])
}

func ExampleStack() {
	a := tensor.FromSlice([]int{1, 2})
	b := tensor.FromSlice([]int{3, 4})
	fmt.Println(tensor.Stack(1, a, b))
	// Output:
	// tensor([[1, 3],
	//         [2, 4]])
}
