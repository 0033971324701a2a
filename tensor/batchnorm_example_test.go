package tensor_test

import (
	"fmt"

	"github.com/goagx/agx/tensor"
)

func ExampleBatchNormForward() {
	// Two samples of two channels: channel 0 holds 1 and 3, channel 1 holds 10 and 30.
	x := tensor.FromSlice([]float64{1, 10, 3, 30}, 2, 2)
	y, mean, invstd := tensor.BatchNormForward(x, nil, nil, 0)
	fmt.Println(y.Float64s(), mean.Float64s(), invstd.Float64s())
	// With two samples, x̂ is ±1 whatever x is, so dx is zero.
	g := tensor.FromSlice([]float64{1, 0, 0, 1}, 2, 2)
	dx, dweight, dbias := tensor.BatchNormBackward(g, x, nil, mean, invstd, true)
	fmt.Printf("%.3f %v %v\n", dx.Float64s(), dweight.Float64s(), dbias.Float64s())
	// Output:
	// [-1 -1 1 1] [2 20] [1 0.1]
	// [0.000 0.000 0.000 0.000] [-1 1] [1 1]
}
