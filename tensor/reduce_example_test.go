package tensor_test

import (
	"fmt"

	"github.com/goagx/agx/tensor"
)

func ExampleTensor_Sum() {
	x := tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(x.Sum().Item())
	fmt.Println(x.Sum(0).Float64s())
	fmt.Println(x.SumKeep(-1).Shape(), x.SumKeep(-1).Float64s())
	// Output:
	// 21
	// [5 7 9]
	// [2 1] [6 15]
}

func ExampleTensor_Var() {
	x := tensor.FromSlice([]float64{1, 2, 3, 4})
	fmt.Println(x.Mean().Item(), x.Var(true).Item(), x.Var(false).Item())
	// Output: 2.5 1.6666666666666667 1.25
}

func ExampleTensor_MaxDim() {
	x := tensor.FromSlice([]float32{3, 9, 9, 7, 1, 8}, 2, 3)
	v, i := x.MaxDim(1, false)
	fmt.Println(v.Float64s(), i.Float64s(), i.DType())
	// Output: [9 8] [1 2] int64
}

func ExampleTensor_LogSumExp() {
	x := tensor.FromSlice([]float64{1000, 1000})
	fmt.Printf("%.6f\n", x.LogSumExp().Item())
	// Output: 1000.693147
}

func ExampleTensor_Softmax() {
	x := tensor.FromSlice([]float64{1, 1, 1, 1000, 0, 0}, 2, 3)
	for _, v := range x.Softmax(1).Float64s() {
		fmt.Printf("%.4f ", v)
	}
	fmt.Println()
	// Output: 0.3333 0.3333 0.3333 1.0000 0.0000 0.0000
}

func ExampleTensor_SoftmaxBackwardInPlace() {
	y := tensor.FromSlice([]float64{0, 1, 2}).Softmax(0)
	// The gradient of y[0] with respect to y, turned into the one with
	// respect to the softmax's input: y[0]·(δ0k - y[k]).
	g := tensor.FromSlice([]float64{1, 0, 0})
	for _, v := range g.SoftmaxBackwardInPlace(y, 1).Float64s() {
		fmt.Printf("%.4f ", v)
	}
	fmt.Println()
	// Output: 0.0819 -0.0220 -0.0599
}

func ExampleMatMul() {
	a := tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	b := tensor.FromSlice([]float64{1, 0, 1})
	fmt.Println(tensor.MatMul(a, b).Shape(), tensor.MatMul(a, b).Float64s())
	fmt.Println(a.MatMul(a.T()).Float64s())
	fmt.Println(tensor.MatMul(b, b).Dim(), tensor.MatMul(b, b).Item())
	// Output:
	// [2] [4 10]
	// [14 32 32 77]
	// 0 2
}
