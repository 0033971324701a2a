package agx

import "github.com/goagx/agx/tensor"

// Constructors mirror the tensor package's and return leaves that do not
// require grad; chain SetRequiresGrad(true) to make a differentiable leaf.

// FromSlice copies data into a new tensor of the given shape (1-D if none);
// the dtype follows the Go type ([]float64 → Float64, []int → Int64).
func FromSlice[T tensor.Elem | ~int](data []T, shape ...int) *Tensor {
	return wrap(tensor.FromSlice(data, shape...))
}

// FromNested builds a tensor from nested slices such as [][]float64.
func FromNested(v any) *Tensor { return wrap(tensor.FromNested(v)) }

// Scalar returns a 0-d tensor.
func Scalar[T tensor.Elem | ~int](v T) *Tensor { return wrap(tensor.Scalar(v)) }

// Zeros returns a tensor of zeros.
func Zeros(dt DType, shape ...int) *Tensor { return wrap(tensor.Zeros(dt, shape...)) }

// Ones returns a tensor of ones.
func Ones(dt DType, shape ...int) *Tensor { return wrap(tensor.Ones(dt, shape...)) }

// Full returns a tensor filled with v.
func Full(dt DType, v float64, shape ...int) *Tensor { return wrap(tensor.Full(dt, v, shape...)) }

// ZerosLike returns zeros with t's shape and dtype.
func ZerosLike(t *Tensor) *Tensor {
	need("ZerosLike", "input", 1, t)
	return wrap(tensor.ZerosLike(t.data))
}

// OnesLike returns ones with t's shape and dtype.
func OnesLike(t *Tensor) *Tensor {
	need("OnesLike", "input", 1, t)
	return wrap(tensor.OnesLike(t.data))
}

// Eye returns the n×n identity matrix.
func Eye(dt DType, n int) *Tensor { return wrap(tensor.Eye(dt, n)) }

// Arange returns start, start+step, ... below end.
func Arange(dt DType, start, end, step float64) *Tensor {
	return wrap(tensor.Arange(dt, start, end, step))
}

// Linspace returns steps evenly spaced values from start to end inclusive.
func Linspace(dt DType, start, end float64, steps int) *Tensor {
	return wrap(tensor.Linspace(dt, start, end, steps))
}

// Rand returns uniform samples in [0, 1) from the default generator.
func Rand(dt DType, shape ...int) *Tensor { return wrap(tensor.Rand(dt, shape...)) }

// Randn returns standard normal samples from the default generator.
func Randn(dt DType, shape ...int) *Tensor { return wrap(tensor.Randn(dt, shape...)) }

// Randint returns Int64 samples in [lo, hi) from the default generator.
func Randint(lo, hi int64, shape ...int) *Tensor { return wrap(tensor.Randint(lo, hi, shape...)) }

// ManualSeed reseeds the default generator, making Rand/Randn/Randint
// reproducible.
func ManualSeed(seed uint64) { tensor.ManualSeed(seed) }
