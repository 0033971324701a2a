package agx_test

import (
	"errors"
	"fmt"

	"github.com/goagx/agx/agx"
)

// The questions a notebook asks of a tensor: its element type, rank,
// element count and the size of one dim.
func ExampleTensor_DType() {
	x := agx.Zeros(agx.Float64, 2, 3)
	fmt.Println(x.DType(), agx.Zeros(agx.Float32, 1).DType())
	// Output:
	// float64 float32
}

func ExampleTensor_Dim() {
	fmt.Println(agx.Scalar(1.0).Dim(), agx.Zeros(agx.Float32, 4).Dim(), agx.Zeros(agx.Float32, 2, 3).Dim())
	// Output:
	// 0 1 2
}

func ExampleTensor_Numel() {
	fmt.Println(agx.Zeros(agx.Float32, 2, 3, 4).Numel(), agx.Scalar(1.0).Numel())
	// Output:
	// 24 1
}

// Size(-1) is the last dim, as in PyTorch.
func ExampleTensor_Size() {
	x := agx.Zeros(agx.Float32, 2, 3, 4)
	fmt.Println(x.Size(0), x.Size(-1))
	// Output:
	// 2 4
}

// A name set with SetName labels the tensor in graph drawings.
func ExampleTensor_Name() {
	w := agx.Ones(agx.Float32, 2).SetName("w")
	fmt.Println(w.Name())
	// Output:
	// w
}

// RequiresGrad is true for a leaf that asked for it and for every result
// computed from one.
func ExampleTensor_RequiresGrad() {
	x := agx.FromSlice([]float64{1, 2})
	w := agx.FromSlice([]float64{3, 4}).SetRequiresGrad(true)
	fmt.Println(x.RequiresGrad(), w.RequiresGrad(), x.Mul(w).RequiresGrad())
	// Output:
	// false true true
}

// OutputNr tells which output of a multi-output node a tensor is (SinCos
// is defined with Node.NumOutputs).
func ExampleTensor_OutputNr() {
	x := agx.FromSlice([]float64{0, 1}).SetRequiresGrad(true)
	out := agx.ApplyN(SinCos, x)
	fmt.Println(out[0].GradFn() == out[1].GradFn(), out[0].OutputNr(), out[1].OutputNr())
	// Output:
	// true 0 1
}

// Data gives the tensor.Tensor underneath (shared, not copied), for code
// outside autograd such as an optimizer step.
func ExampleTensor_Data() {
	x := agx.FromSlice([]float64{1, 2, 3})
	fmt.Println(x.Data().Shape(), x.Data().Float64s())
	// Output:
	// [3] [1 2 3]
}

// BumpVersion declares a write the version counter did not see (one made
// through Data().Raw(), say; tensor.Tensor's own in-place methods bump it
// themselves). A backward pass that saved the tensor then refuses the value.
func ExampleTensor_BumpVersion() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	a := x.Mul(1)
	y := a.Mul(a) // saves a for backward
	before := a.Version()
	a.BumpVersion()
	err := agx.Try(func() { y.Sum().Backward() })
	fmt.Println(before, a.Version(), errors.Is(err, agx.ErrInplace))
	// Output:
	// 0 1 true
}

// Flatten, Squeeze and Unsqueeze change the shape, not the data.
func ExampleTensor_Flatten() {
	x := agx.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(x.Flatten())
	// Output:
	// tensor([1., 2., 3., 4., 5., 6.])
}

func ExampleTensor_Squeeze() {
	x := agx.Zeros(agx.Float32, 1, 3, 1)
	fmt.Println(x.Squeeze().Shape(), x.Squeeze(0).Shape())
	// Output:
	// [3] [3 1]
}

// Unsqueeze adds a size-1 dim: here it turns a row of biases into a column
// that broadcasts across the columns of x.
func ExampleTensor_Unsqueeze() {
	x := agx.Zeros(agx.Float32, 2, 3)
	b := agx.FromSlice([]float32{10, 20})
	fmt.Println(b.Unsqueeze(1).Shape())
	fmt.Println(x.Add(b.Unsqueeze(1)))
	// Output:
	// [2 1]
	// tensor([[10., 10., 10.],
	//         [20., 20., 20.]])
}

// Select picks one index of a dim and drops the dim: row 1 of a matrix.
// The gradient reaches that row only.
func ExampleTensor_Select() {
	x := agx.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3).SetRequiresGrad(true)
	row := x.Select(0, 1)
	row.Sum().Backward()
	fmt.Println(row.Detach())
	fmt.Println(x.Grad())
	// Output:
	// tensor([4., 5., 6.], dtype=float64)
	// tensor([[0., 0., 0.],
	//         [1., 1., 1.]], dtype=float64)
}

// Transpose swaps two dims; T is the 2-D shorthand and MT swaps the last
// two dims of a batch of matrices.
func ExampleTensor_Transpose() {
	x := agx.Zeros(agx.Float32, 2, 3, 4)
	fmt.Println(x.Transpose(0, 2).Shape())
	// Output:
	// [4 3 2]
}

func ExampleTensor_T() {
	x := agx.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(x.T())
	// Output:
	// tensor([[1., 4.],
	//         [2., 5.],
	//         [3., 6.]])
}

func ExampleTensor_MT() {
	batch := agx.Zeros(agx.Float32, 5, 2, 3) // five 2x3 matrices
	fmt.Println(batch.MT().Shape())
	// Output:
	// [5 3 2]
}

// BroadcastTo repeats a tensor along new or size-1 dims without copying;
// the gradient sums back over the repeats.
func ExampleTensor_BroadcastTo() {
	b := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	y := b.BroadcastTo(3, 2)
	y.Sum().Backward()
	fmt.Println(y.Detach())
	fmt.Println(b.Grad())
	// Output:
	// tensor([[1., 2.],
	//         [1., 2.],
	//         [1., 2.]], dtype=float64)
	// tensor([3., 3.], dtype=float64)
}

// OnesLike matches the shape and dtype of its argument.
func ExampleOnesLike() {
	x := agx.Zeros(agx.Float64, 2)
	fmt.Println(agx.OnesLike(x))
	// Output:
	// tensor([1., 1.], dtype=float64)
}

// View reshapes without copying: the view shares the storage of x.
func ExampleTensor_View() {
	x := agx.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	v := x.View(3, 2)
	x.MulInPlace(10) // visible through v
	fmt.Println(v)
	// Output:
	// tensor([[10., 20.],
	//         [30., 40.],
	//         [50., 60.]])
}

// Clone copies the data; the gradient flows back to the original.
func ExampleTensor_Clone() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	c := x.Clone()
	c.Mul(3).Sum().Backward()
	fmt.Println(c.Detach().Add(1), x.Grad())
	// Output:
	// tensor([2., 3.], dtype=float64) tensor([3., 3.], dtype=float64)
}

// A transpose is a strided view, so View refuses it; Contiguous copies it
// into row-major order first.
func ExampleTensor_Contiguous() {
	x := agx.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	t := x.T() // [[1 4] [2 5] [3 6]], not row-major in memory
	fmt.Println(agx.Try(func() { t.View(6) }) != nil)
	fmt.Println(t.Contiguous().View(6))
	// Output:
	// true
	// tensor([1., 4., 2., 5., 3., 6.])
}

// Narrow is a view of length elements from start; the gradient lands in
// those places only.
func ExampleTensor_Narrow() {
	x := agx.FromSlice([]float64{1, 2, 3, 4, 5}).SetRequiresGrad(true)
	n := x.Narrow(0, 1, 3)
	n.Sum().Backward()
	fmt.Println(n.Detach(), x.Grad())
	// Output:
	// tensor([2., 3., 4.], dtype=float64) tensor([0., 1., 1., 1., 0.], dtype=float64)
}
