package agx_test

import (
	"fmt"

	"github.com/goagx/agx/agx"
)

// Arithmetic: every binary op broadcasts and takes a Go number for either
// operand. For y = a·b, dy/da = b and dy/db = a.
func ExampleMul() {
	a := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	b := agx.FromSlice([]float64{3, 4}).SetRequiresGrad(true)
	agx.Mul(a, b).Sum().Backward()
	fmt.Println(agx.Mul(2, a).Detach(), a.Grad(), b.Grad())
	// Output:
	// tensor([2., 4.], dtype=float64) tensor([3., 4.], dtype=float64) tensor([1., 2.], dtype=float64)
}

func ExampleTensor_Mul() {
	x := agx.FromSlice([]float64{1, 2, 3}, 3, 1)
	w := agx.FromSlice([]float64{10, 100})
	fmt.Println(x.Mul(w)) // [3 1] · [2] broadcasts to [3 2]
	// Output:
	// tensor([[ 10., 100.],
	//         [ 20., 200.],
	//         [ 30., 300.]], dtype=float64)
}

// For y = a/b, dy/da = 1/b and dy/db = -a/b².
func ExampleDiv() {
	a := agx.FromSlice([]float64{1, 6}).SetRequiresGrad(true)
	b := agx.FromSlice([]float64{2, 3}).SetRequiresGrad(true)
	y := agx.Div(a, b)
	y.Sum().Backward()
	fmt.Println(y.Detach(), a.Grad(), b.Grad())
	// Output:
	// tensor([0.5000, 2.0000], dtype=float64) tensor([0.5000, 0.3333], dtype=float64) tensor([-0.2500, -0.6667], dtype=float64)
}

func ExampleTensor_Div() {
	x := agx.FromSlice([]float64{2, 4, 6})
	fmt.Println(x.Div(x.Sum())) // normalise to sum 1
	// Output:
	// tensor([0.1667, 0.3333, 0.5000], dtype=float64)
}

func ExampleTensor_Sub() {
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	centred := x.Sub(x.Mean())
	fmt.Println(centred)
	// Output:
	// tensor([-1.,  0.,  1.], dtype=float64, grad_fn=<SubBackward0>)
}

// RSub reverses the operands: x.RSub(1) is 1 - x, with a Go number first.
func ExampleTensor_RSub() {
	p := agx.FromSlice([]float64{0.25, 0.5})
	fmt.Println(p.RSub(1))
	// Output:
	// tensor([0.7500, 0.5000], dtype=float64)
}

// For y = aᵇ, dy/da = b·aᵇ⁻¹ and dy/db = aᵇ·ln a.
func ExamplePow() {
	a := agx.FromSlice([]float64{2, 3}).SetRequiresGrad(true)
	b := agx.FromSlice([]float64{2, 1}).SetRequiresGrad(true)
	y := agx.Pow(a, b)
	y.Sum().Backward()
	fmt.Println(y.Detach(), a.Grad(), b.Grad())
	// Output:
	// tensor([4., 3.], dtype=float64) tensor([4., 1.], dtype=float64) tensor([2.7726, 3.2958], dtype=float64)
}

func ExampleTensor_Pow() {
	x := agx.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	x.Pow(2).Sum().Backward()
	fmt.Println(x.Grad()) // 2x
	// Output:
	// tensor([2., 4., 6.], dtype=float64)
}

func ExampleTensor_Neg() {
	x := agx.FromSlice([]float64{1, -2}).SetRequiresGrad(true)
	x.Neg().Sum().Backward()
	fmt.Println(x.Neg().Detach(), x.Grad())
	// Output:
	// tensor([-1.,  2.], dtype=float64) tensor([-1., -1.], dtype=float64)
}

// Minimum and Maximum pick element-wise; the gradient goes to the operand
// that was picked (split evenly on a tie).
func ExampleMinimum() {
	a := agx.FromSlice([]float64{1, 5, 3}).SetRequiresGrad(true)
	b := agx.FromSlice([]float64{4, 2, 3}).SetRequiresGrad(true)
	agx.Minimum(a, b).Sum().Backward()
	fmt.Println(agx.Minimum(a, b).Detach(), a.Grad(), b.Grad())
	// Output:
	// tensor([1., 2., 3.], dtype=float64) tensor([1.0000, 0.0000, 0.5000], dtype=float64) tensor([0.0000, 1.0000, 0.5000], dtype=float64)
}

func ExampleTensor_Minimum() {
	x := agx.FromSlice([]float64{-2, 0.5, 3})
	fmt.Println(x.Minimum(1)) // cap at 1
	// Output:
	// tensor([-2.0000,  0.5000,  1.0000], dtype=float64)
}

func ExampleTensor_Maximum() {
	x := agx.FromSlice([]float64{-2, 0.5, 3}).SetRequiresGrad(true)
	y := x.Maximum(0) // ReLU by hand
	y.Sum().Backward()
	fmt.Println(y.Detach(), x.Grad())
	// Output:
	// tensor([0.0000, 0.5000, 3.0000], dtype=float64) tensor([0., 1., 1.], dtype=float64)
}

// MatMul as a method: a linear layer's x·Wᵀ.
func ExampleTensor_MatMul() {
	x := agx.FromSlice([]float32{1, 2}, 1, 2)
	w := agx.FromSlice([]float32{1, 0, 1, 1, 0, 2}, 3, 2)
	fmt.Println(x.MatMul(w.T()))
	// Output:
	// tensor([[1., 3., 4.]])
}

// Unary functions, each with its derivative at the same points.
func ExampleTensor_Abs() {
	x := agx.FromSlice([]float64{-2, 0, 3}).SetRequiresGrad(true)
	x.Abs().Sum().Backward()
	fmt.Println(x.Abs().Detach(), x.Grad())
	// Output:
	// tensor([2., 0., 3.], dtype=float64) tensor([-1.,  0.,  1.], dtype=float64)
}

func ExampleTensor_Sqrt() {
	x := agx.FromSlice([]float64{1, 4}).SetRequiresGrad(true)
	x.Sqrt().Sum().Backward()
	fmt.Println(x.Sqrt().Detach(), x.Grad()) // 1/(2√x)
	// Output:
	// tensor([1., 2.], dtype=float64) tensor([0.5000, 0.2500], dtype=float64)
}

func ExampleTensor_Rsqrt() {
	x := agx.FromSlice([]float64{1, 4}).SetRequiresGrad(true)
	x.Rsqrt().Sum().Backward()
	fmt.Println(x.Rsqrt().Detach(), x.Grad()) // -1/(2x√x)
	// Output:
	// tensor([1.0000, 0.5000], dtype=float64) tensor([-0.5000, -0.0625], dtype=float64)
}

func ExampleTensor_Log() {
	x := agx.FromSlice([]float64{1, 2}).SetRequiresGrad(true)
	x.Log().Sum().Backward()
	fmt.Println(x.Log().Detach(), x.Grad()) // 1/x
	// Output:
	// tensor([0.0000, 0.6931], dtype=float64) tensor([1.0000, 0.5000], dtype=float64)
}

// Log1p(x) = ln(1+x) stays accurate for tiny x, where 1+x rounds to 1.
func ExampleTensor_Log1p() {
	x := agx.FromSlice([]float64{1e-10})
	fmt.Printf("%.10e %.10e\n", x.Log1p().Item(), x.Add(1).Log().Item())
	// Output:
	// 9.9999999995e-11 1.0000000827e-10
}

// Expm1(x) = eˣ - 1, accurate for tiny x.
func ExampleTensor_Expm1() {
	x := agx.FromSlice([]float64{1e-10})
	fmt.Printf("%.10e %.10e\n", x.Expm1().Item(), x.Exp().Sub(1).Item())
	// Output:
	// 1.0000000001e-10 1.0000000827e-10
}

func ExampleTensor_Sin() {
	x := agx.FromSlice([]float64{0, 1}).SetRequiresGrad(true)
	x.Sin().Sum().Backward()
	fmt.Println(x.Sin().Detach(), x.Grad()) // cos x
	// Output:
	// tensor([0.0000, 0.8415], dtype=float64) tensor([1.0000, 0.5403], dtype=float64)
}

func ExampleTensor_Cos() {
	x := agx.FromSlice([]float64{0, 1}).SetRequiresGrad(true)
	x.Cos().Sum().Backward()
	fmt.Println(x.Cos().Detach(), x.Grad()) // -sin x
	// Output:
	// tensor([1.0000, 0.5403], dtype=float64) tensor([-0.0000, -0.8415], dtype=float64)
}

func ExampleTensor_Tanh() {
	x := agx.FromSlice([]float64{0, 1}).SetRequiresGrad(true)
	y := x.Tanh()
	y.Sum().Backward()
	fmt.Println(y.Detach(), x.Grad()) // 1 - tanh²
	// Output:
	// tensor([0.0000, 0.7616], dtype=float64) tensor([1.0000, 0.4200], dtype=float64)
}

func ExampleTensor_Sigmoid() {
	x := agx.FromSlice([]float64{0, 2}).SetRequiresGrad(true)
	y := x.Sigmoid()
	y.Sum().Backward()
	fmt.Println(y.Detach(), x.Grad()) // σ(1-σ)
	// Output:
	// tensor([0.5000, 0.8808], dtype=float64) tensor([0.2500, 0.1050], dtype=float64)
}

func ExampleTensor_Erf() {
	x := agx.FromSlice([]float64{0, 1}).SetRequiresGrad(true)
	x.Erf().Sum().Backward()
	fmt.Println(x.Erf().Detach(), x.Grad()) // 2/√π·e^(-x²)
	// Output:
	// tensor([0.0000, 0.8427], dtype=float64) tensor([1.1284, 0.4151], dtype=float64)
}

// GELUTanh is the tanh approximation of GELU; it differs from GELU by
// less than 1e-3.
func ExampleTensor_GELUTanh() {
	x := agx.FromSlice([]float64{-1, 0, 1})
	fmt.Println(x.GELUTanh())
	fmt.Println(agx.MaxAbsDiff(x.GELUTanh(), x.GELU()) < 1e-3)
	// Output:
	// tensor([-0.1588,  0.0000,  0.8412], dtype=float64)
	// true
}

// Rounding ops are piecewise constant: their gradient is zero (the STE
// helpers give a pass-through gradient instead).
func ExampleTensor_Round() {
	x := agx.FromSlice([]float64{0.5, 1.5, 2.4, -0.6}).SetRequiresGrad(true)
	x.Round().Sum().Backward()
	fmt.Println(x.Round().Detach(), x.Grad()) // half to even
	// Output:
	// tensor([ 0.,  2.,  2., -1.], dtype=float64) tensor([0., 0., 0., 0.], dtype=float64)
}

func ExampleTensor_Floor() {
	fmt.Println(agx.FromSlice([]float64{1.7, -1.2}).Floor())
	// Output:
	// tensor([ 1., -2.], dtype=float64)
}

func ExampleTensor_Ceil() {
	fmt.Println(agx.FromSlice([]float64{1.2, -1.7}).Ceil())
	// Output:
	// tensor([ 2., -1.], dtype=float64)
}

func ExampleTensor_Sign() {
	x := agx.FromSlice([]float64{-3, 0, 2}).SetRequiresGrad(true)
	x.Sign().Sum().Backward()
	fmt.Println(x.Sign().Detach(), x.Grad())
	// Output:
	// tensor([-1.,  0.,  1.], dtype=float64) tensor([0., 0., 0.], dtype=float64)
}

// ClampMin and ClampMax bound one side; the gradient is zero where the
// bound was applied.
func ExampleTensor_ClampMin() {
	x := agx.FromSlice([]float64{-1, 2}).SetRequiresGrad(true)
	x.ClampMin(0).Sum().Backward()
	fmt.Println(x.ClampMin(0).Detach(), x.Grad())
	// Output:
	// tensor([0., 2.], dtype=float64) tensor([0., 1.], dtype=float64)
}

func ExampleTensor_ClampMax() {
	x := agx.FromSlice([]float64{-1, 2}).SetRequiresGrad(true)
	x.ClampMax(1).Sum().Backward()
	fmt.Println(x.ClampMax(1).Detach(), x.Grad())
	// Output:
	// tensor([-1.,  1.], dtype=float64) tensor([1., 0.], dtype=float64)
}

// Comparisons give Bool masks, for Where, MaskedFill or counting.
func ExampleTensor_Gt() {
	x := agx.FromSlice([]float64{-1, 0, 2})
	fmt.Println(x.Gt(0))
	// Output:
	// tensor([False, False,  True])
}

func ExampleTensor_Ge() {
	x := agx.FromSlice([]float64{-1, 0, 2})
	fmt.Println(x.Ge(0))
	// Output:
	// tensor([False,  True,  True])
}

func ExampleTensor_Lt() {
	x := agx.FromSlice([]float64{-1, 0, 2})
	fmt.Println(x.Lt(0))
	// Output:
	// tensor([ True, False, False])
}

func ExampleTensor_Le() {
	x := agx.FromSlice([]float64{-1, 0, 2})
	fmt.Println(x.Le(0))
	// Output:
	// tensor([ True,  True, False])
}

// Ne compares element-wise with a tensor or a number: the accuracy of a
// classifier is the fraction of predictions that are not wrong.
func ExampleTensor_Ne() {
	pred := agx.FromSlice([]int64{1, 0, 2, 2})
	label := agx.FromSlice([]int64{1, 1, 2, 0})
	wrong := pred.Ne(label)
	fmt.Println(wrong, wrong.To(agx.Float64).Mean().RSub(1).Item())
	// Output:
	// tensor([False,  True, False,  True]) 0.5
}

// Logical ops combine Bool masks.
func ExampleTensor_LogicalAnd() {
	x := agx.FromSlice([]float64{-2, 0.5, 3})
	fmt.Println(x.Gt(0).LogicalAnd(x.Lt(1))) // 0 < x < 1
	// Output:
	// tensor([False,  True, False])
}

func ExampleTensor_LogicalOr() {
	x := agx.FromSlice([]float64{-2, 0.5, 3})
	fmt.Println(x.Lt(0).LogicalOr(x.Gt(1))) // outside [0, 1]
	// Output:
	// tensor([ True, False,  True])
}

func ExampleTensor_LogicalXor() {
	a := agx.FromSlice([]float64{1, 1, 0}).Gt(0)
	b := agx.FromSlice([]float64{1, 0, 0}).Gt(0)
	fmt.Println(a.LogicalXor(b))
	// Output:
	// tensor([False,  True, False])
}

func ExampleTensor_LogicalNot() {
	x := agx.FromSlice([]float64{-1, 2})
	fmt.Println(x.Gt(0).LogicalNot())
	// Output:
	// tensor([ True, False])
}

// GELU(x) = x·Φ(x); its derivative is Φ(x) + x·φ(x).
func ExampleTensor_GELU() {
	x := agx.FromSlice([]float64{-1, 0, 1}).SetRequiresGrad(true)
	y := x.GELU()
	y.Sum().Backward()
	fmt.Println(y.Detach())
	fmt.Println(x.Grad())
	// Output:
	// tensor([-0.1587,  0.0000,  0.8413], dtype=float64)
	// tensor([-0.0833,  0.5000,  1.0833], dtype=float64)
}

// SiLU(x) = x·σ(x); its derivative is σ(x)·(1 + x·(1-σ(x))).
func ExampleTensor_SiLU() {
	x := agx.FromSlice([]float64{-1, 0, 1}).SetRequiresGrad(true)
	y := x.SiLU()
	y.Sum().Backward()
	fmt.Println(y.Detach())
	fmt.Println(x.Grad())
	// Output:
	// tensor([-0.2689,  0.0000,  0.7311], dtype=float64)
	// tensor([0.0723, 0.5000, 0.9277], dtype=float64)
}
