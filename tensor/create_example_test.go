package tensor_test

import (
	"fmt"

	"github.com/goagx/agx/tensor"
)

func ExampleArange() {
	fmt.Println(tensor.Arange(tensor.Float32, 0, 1, 0.25))
	fmt.Println(tensor.Arange(tensor.Int64, 10, 0, -3))
	// Output:
	// tensor([0.0000, 0.2500, 0.5000, 0.7500])
	// tensor([10,  7,  4,  1])
}

func ExampleLinspace() {
	fmt.Println(tensor.Linspace(tensor.Float32, -1, 1, 5))
	// Output:
	// tensor([-1.0000, -0.5000,  0.0000,  0.5000,  1.0000])
}

func ExampleEye() {
	fmt.Println(tensor.Eye(tensor.Float64, 2))
	// Output:
	// tensor([[1., 0.],
	//         [0., 1.]], dtype=float64)
}

func ExampleFromNested() {
	x := tensor.FromNested([][]float64{{1, 2, 3}, {4, 5, 6}})
	fmt.Println(x.Shape(), x.DType())
	// Output:
	// [2 3] float64
}

func ExampleFull() {
	fmt.Println(tensor.Full(tensor.Int64, 7, 2, 2))
	// Output:
	// tensor([[7, 7],
	//         [7, 7]])
}
