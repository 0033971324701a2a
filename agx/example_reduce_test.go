package agx_test

import (
	"fmt"

	"github.com/goagx/agx/agx"
)

// The ...Keep reductions keep the reduced dims with size 1, so that the
// result broadcasts back against the input.
func ExampleTensor_SumKeep() {
	x := agx.FromSlice([]float64{1, 3, 2, 6}, 2, 2)
	rows := x.SumKeep(1)
	fmt.Println(rows.Shape())
	fmt.Println(x.Div(rows)) // each row sums to 1
	// Output:
	// [2 1]
	// tensor([[0.2500, 0.7500],
	//         [0.2500, 0.7500]], dtype=float64)
}

func ExampleTensor_MeanKeep() {
	x := agx.FromSlice([]float64{1, 3, 2, 6}, 2, 2)
	fmt.Println(x.Sub(x.MeanKeep(1))) // centre each row
	// Output:
	// tensor([[-1.,  1.],
	//         [-2.,  2.]], dtype=float64)
}

// VarKeep with unbiased=false divides by n: standardise each row to mean 0
// and variance 1.
func ExampleTensor_VarKeep() {
	x := agx.FromSlice([]float64{1, 3, 2, 6}, 2, 2)
	z := x.Sub(x.MeanKeep(1)).Div(x.VarKeep(false, 1).Sqrt())
	fmt.Println(x.VarKeep(false, 1).Shape(), z)
	// Output:
	// [2 1] tensor([[-1.,  1.],
	//         [-1.,  1.]], dtype=float64)
}

// Std with unbiased=true divides by n-1 (Bessel's correction), as
// torch.std does by default.
func ExampleTensor_Std() {
	x := agx.FromSlice([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	fmt.Printf("%.4f %.4f\n", x.Std(false).Item(), x.Std(true).Item())
	// Output:
	// 2.0000 2.1381
}

// LogSumExpKeep is the log of a softmax's denominator, ready to subtract:
// x - logsumexp(x) is log-softmax.
func ExampleTensor_LogSumExpKeep() {
	x := agx.FromSlice([]float64{1, 2, 3, 1, 1, 1}, 2, 3)
	logp := x.Sub(x.LogSumExpKeep(1))
	fmt.Println(agx.MaxAbsDiff(logp, x.LogSoftmax(1)) < 1e-12)
	// Output:
	// true
}

// Max and Min reduce all elements to a 0-d tensor; the gradient goes to
// the element picked.
func ExampleTensor_Max() {
	x := agx.FromSlice([]float64{3, 7, 5}).SetRequiresGrad(true)
	m := x.Max()
	m.Backward()
	fmt.Println(m.Item(), x.Grad())
	// Output:
	// 7 tensor([0., 1., 0.], dtype=float64)
}

func ExampleTensor_Min() {
	x := agx.FromSlice([]float64{3, 7, 5}).SetRequiresGrad(true)
	m := x.Min()
	m.Backward()
	fmt.Println(m.Item(), x.Grad())
	// Output:
	// 3 tensor([1., 0., 0.], dtype=float64)
}

// Amin reduces over the given dims; ties share the gradient.
func ExampleTensor_Amin() {
	x := agx.FromSlice([]float64{4, 1, 1, 2, 5, 3}, 2, 3).SetRequiresGrad(true)
	m := x.Amin(1)
	m.Sum().Backward()
	fmt.Println(m.Detach())
	fmt.Println(x.Grad())
	// Output:
	// tensor([1., 2.], dtype=float64)
	// tensor([[0.0000, 0.5000, 0.5000],
	//         [1.0000, 0.0000, 0.0000]], dtype=float64)
}

func ExampleTensor_AminKeep() {
	x := agx.FromSlice([]float64{4, 1, 6, 2, 5, 3}, 2, 3)
	fmt.Println(x.Sub(x.AminKeep(1))) // shift each row to start at 0
	// Output:
	// tensor([[3., 0., 5.],
	//         [0., 3., 1.]], dtype=float64)
}

// Subtracting the row maximum keeps exp from overflowing: the usual
// stable-softmax trick.
func ExampleTensor_AmaxKeep() {
	x := agx.FromSlice([]float64{1000, 1001, 1, 2}, 2, 2)
	e := x.Sub(x.AmaxKeep(1)).Exp()
	fmt.Println(e.Div(e.SumKeep(1)))
	// Output:
	// tensor([[0.2689, 0.7311],
	//         [0.2689, 0.7311]], dtype=float64)
}

// MinDim returns the minima along a dim and where they are.
func ExampleTensor_MinDim() {
	x := agx.FromSlice([]float64{4, 1, 6, 2, 5, 3}, 2, 3)
	values, indices := x.MinDim(1, false)
	fmt.Println(values, indices)
	// Output:
	// tensor([1., 2.], dtype=float64) tensor([1, 0])
}

func ExampleTensor_ArgMin() {
	dist := agx.FromSlice([]float64{0.9, 0.1, 0.5, 0.2, 0.7, 0.3}, 2, 3)
	fmt.Println(dist.ArgMin(1, false)) // nearest centre of each point
	// Output:
	// tensor([1, 0])
}

// Amax shares the gradient evenly among tied maxima (Max over all elements
// and MaxDim give it to one of them).
func ExampleTensor_Amax() {
	x := agx.FromSlice([]float64{1, 3, 3, 2}, 2, 2).SetRequiresGrad(true)
	m := x.Amax()
	m.Backward()
	fmt.Println(m.Item(), x.Amax(1).Detach())
	fmt.Println(x.Grad())
	// Output:
	// 3 tensor([3., 3.], dtype=float64)
	// tensor([[0.0000, 0.5000],
	//         [0.5000, 0.0000]], dtype=float64)
}

// LogSumExp does not overflow where exp does: log(e¹⁰⁰⁰ + e¹⁰⁰⁰) = 1000 + log 2.
// Its gradient is the softmax.
func ExampleTensor_LogSumExp() {
	x := agx.FromSlice([]float64{1000, 1000}).SetRequiresGrad(true)
	l := x.LogSumExp()
	l.Backward()
	fmt.Printf("%.4f %v\n", l.Item(), x.Exp().Sum().Log().Item())
	fmt.Println(x.Grad())
	// Output:
	// 1000.6931 +Inf
	// tensor([0.5000, 0.5000], dtype=float64)
}

// Mean over all elements or over dims; each element's gradient is 1/n.
func ExampleTensor_Mean() {
	x := agx.FromSlice([]float64{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
	fmt.Println(x.Mean(1).Detach())
	x.Mean().Backward()
	fmt.Println(x.Grad())
	// Output:
	// tensor([1.5000, 3.5000], dtype=float64)
	// tensor([[0.2500, 0.2500],
	//         [0.2500, 0.2500]], dtype=float64)
}

// ArgMax gives indices (Int64), e.g. the predicted class of each row.
func ExampleTensor_ArgMax() {
	logits := agx.FromSlice([]float32{0.1, 2, -1, 3, 0, 1}, 2, 3)
	fmt.Println(logits.ArgMax(1, false))
	// Output:
	// tensor([1, 0])
}
