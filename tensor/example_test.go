package tensor_test

import (
	"errors"
	"fmt"

	"github.com/goagx/agx/tensor"
)

func ExampleFromSlice() {
	x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(x.Shape(), x.DType(), x.Float64s())
	n := tensor.FromSlice([]int{7, 8, 9})
	fmt.Println(n.Shape(), n.DType(), tensor.ToSlice[int64](n))
	// Output:
	// [2 3] float32 [1 2 3 4 5 6]
	// [3] int64 [7 8 9]
}

func ExampleTensor_Transpose() {
	x := tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	y := x.Transpose(0, 1)
	fmt.Println(y.Shape(), y.Strides(), y.Float64s())
	fmt.Println("view:", y.SameStorage(x), "contiguous:", y.IsContiguous())
	// Output:
	// [3 2] [1 3] [1 4 2 5 3 6]
	// view: true contiguous: false
}

func ExampleTensor_Reshape() {
	x := tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	v := x.Reshape(3, -1) // contiguous input: a view
	c := x.T().Reshape(6) // transposed input: a copy in the new row-major order
	fmt.Println(v.Shape(), v.SameStorage(x), v.Float64s())
	fmt.Println(c.Shape(), c.SameStorage(x), c.Float64s())
	// Output:
	// [3 2] true [1 2 3 4 5 6]
	// [6] false [1 4 2 5 3 6]
}

func ExampleTensor_Expand() {
	col := tensor.FromSlice([]float64{1, 2}, 2, 1)
	e := col.Expand(2, 3)
	fmt.Println(e.Shape(), e.Strides(), e.Float64s())
	// Output:
	// [2 3] [1 0] [1 1 1 2 2 2]
}

func ExampleAdd() {
	col := tensor.FromSlice([]float32{10, 20}, 2, 1)
	row := tensor.FromSlice([]float32{1, 2, 3})
	s := tensor.Add(col, row)
	fmt.Println(s.Shape(), s.DType(), s.Float64s())
	// A Go number takes the tensor's dtype; an int tensor with a float gives float32.
	fmt.Println(row.Add(0.5).DType(), tensor.FromSlice([]int{1}).Add(0.5).DType())
	// Output:
	// [2 3] float32 [11 12 13 21 22 23]
	// float32 float32
}

func ExampleWhere() {
	x := tensor.FromSlice([]float64{-2, -1, 0, 1, 2})
	y := tensor.Where(x.Gt(0), x, 0.0) // relu by hand
	fmt.Println(y.Float64s())
	fmt.Println(x.MaskedFill(x.Lt(0), -100).Float64s())
	// Output:
	// [0 0 0 1 2]
	// [-100 -100 0 1 2]
}

func ExampleAsError() {
	recovered := func(f func()) (v any) {
		defer func() { v = recover() }()
		f()
		return nil
	}
	err, ok := tensor.AsError(recovered(func() { tensor.Panicf("Op", tensor.ErrArg, "bad argument") }))
	fmt.Println(ok, errors.Is(err, tensor.ErrArg))
	_, ok = tensor.AsError(recovered(func() { panic("not an agx error") }))
	fmt.Println(ok)
	// Output:
	// true true
	// false
}
