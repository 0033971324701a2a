package tensor

import "fmt"

// DType is the runtime element type of a Tensor.
type DType uint8

// The element types a Tensor can hold.
const (
	Float32 DType = iota + 1
	Float64
	Bool
	Int64
)

// String returns PyTorch's name for the dtype ("float32", "int64", ...).
func (d DType) String() string {
	switch d {
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	case Bool:
		return "bool"
	case Int64:
		return "int64"
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// IsFloat reports whether d is Float32 or Float64.
func (d DType) IsFloat() bool { return d == Float32 || d == Float64 }

// Size is the number of bytes of one element.
func (d DType) Size() int {
	switch d {
	case Float32:
		return 4
	case Float64, Int64:
		return 8
	case Bool:
		return 1
	}
	return 0
}

func (d DType) valid() bool { return d >= Float32 && d <= Int64 }

// Float is the constraint satisfied by the floating-point element types.
type Float interface{ ~float32 | ~float64 }

// Num is the constraint satisfied by the numeric element types.
type Num interface{ ~float32 | ~float64 | ~int64 }

// Elem is the constraint satisfied by every element type.
type Elem interface {
	~float32 | ~float64 | ~int64 | ~bool
}

// DTypeOf returns the DType that holds values of Go type T.
func DTypeOf[T Elem]() DType {
	var z T
	switch any(z).(type) {
	case float32:
		return Float32
	case float64:
		return Float64
	case int64:
		return Int64
	case bool:
		return Bool
	}
	panic("unreachable")
}

// promote returns the result dtype of a binary arithmetic op, following
// PyTorch's type promotion for the dtypes agx supports:
// bool < int64 < float32 < float64.
func promote(a, b DType) DType {
	rank := func(d DType) int {
		switch d {
		case Bool:
			return 0
		case Int64:
			return 1
		case Float32:
			return 2
		}
		return 3
	}
	if rank(a) >= rank(b) {
		return a
	}
	return b
}
