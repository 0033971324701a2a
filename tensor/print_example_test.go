package tensor_test

import (
	"fmt"

	"github.com/goagx/agx/tensor"
)

func ExampleTensor_String() {
	fmt.Println(tensor.FromNested([][]float32{{1, -2.5}, {3, 4}}))
	fmt.Println(tensor.FromSlice([]bool{true, false}))
	fmt.Println(tensor.Scalar(3.5))
	fmt.Println(tensor.FromSlice([]float32{1e-5, 1, 2}))
	fmt.Println(tensor.Zeros(tensor.Float32, 0, 3))
	// Output:
	// tensor([[ 1.0000, -2.5000],
	//         [ 3.0000,  4.0000]])
	// tensor([ True, False])
	// tensor(3.5000, dtype=float64)
	// tensor([1.0000e-05, 1.0000e+00, 2.0000e+00])
	// tensor([], size=(0, 3))
}

func ExampleTensor_StringWith() {
	x := tensor.FromSlice([]float32{2, 4})
	fmt.Println(x.StringWith("grad_fn=<MulBackward0>"))
	// Output:
	// tensor([2., 4.], grad_fn=<MulBackward0>)
}

func ExampleSetPrintOptions() {
	o := tensor.DefaultPrintOptions()
	o.Precision = 2
	prev := tensor.SetPrintOptions(o)
	defer tensor.SetPrintOptions(prev)
	fmt.Println(tensor.FromSlice([]float32{1.23456, 2}))
	// Output:
	// tensor([1.23, 2.00])
}
