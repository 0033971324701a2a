package tensor

import (
	"math"
	"reflect"
)

// Zeros returns a tensor of the given dtype and shape filled with 0.
func Zeros(dt DType, shape ...int) *Tensor { return Empty(dt, shape...) }

// Ones returns a tensor of the given dtype and shape filled with 1 (true for Bool).
func Ones(dt DType, shape ...int) *Tensor { return Full(dt, 1, shape...) }

// Full returns a tensor of the given dtype and shape filled with value, converted
// to dt (truncated toward zero for Int64, "!= 0" for Bool).
func Full(dt DType, value float64, shape ...int) *Tensor {
	t := Empty(dt, shape...)
	if value != 0 && t.Numel() > 0 {
		t.Backend().Fill(t.Raw(), value)
	}
	return t
}

// ZerosLike returns zeros with t's dtype, shape and backend.
func ZerosLike(t *Tensor) *Tensor { return EmptyOn(t.Backend(), t.DType(), t.shape...) }

// OnesLike returns ones with t's dtype, shape and backend.
func OnesLike(t *Tensor) *Tensor { return FullLike(t, 1) }

// FullLike returns a tensor with t's dtype, shape and backend filled with value.
func FullLike(t *Tensor, value float64) *Tensor {
	out := EmptyOn(t.Backend(), t.DType(), t.shape...)
	if value != 0 && out.Numel() > 0 {
		out.Backend().Fill(out.Raw(), value)
	}
	return out
}

// Eye returns the n×n identity matrix.
func Eye(dt DType, n int) *Tensor { return EyeN(dt, n, n) }

// EyeN returns the n×m matrix with ones on the main diagonal and zeros elsewhere.
func EyeN(dt DType, n, m int) *Tensor {
	if n < 0 || m < 0 {
		Panicf("Eye", ErrArg, "n and m must be non-negative, got %d and %d", n, m)
	}
	t := Empty(dt, n, m)
	if k := min(n, m); k > 0 {
		// The diagonal is a strided view with step m+1.
		diag := View{Buf: t.st.buf, Shape: []int{k}, Strides: []int{m + 1}}
		t.Backend().Fill(diag, 1)
	}
	return t
}

// Arange returns the 1-D tensor [start, start+step, ...] stopping before end, of
// length ceil((end-start)/step) as torch.arange. Element i is start + i*step,
// computed in float64 with a fused multiply-add (as PyTorch's vectorised CPU
// kernel does) and converted to dt. For Int64 the length is computed from the
// float arguments and the values from start and step truncated to integers.
// It panics with ErrArg when step is 0, when its sign disagrees with end-start,
// or when a bound is not finite.
func Arange(dt DType, start, end, step float64) *Tensor {
	if step == 0 {
		Panicf("Arange", ErrArg, "step must be nonzero")
	}
	if math.IsNaN(start) || math.IsInf(start, 0) || math.IsNaN(end) || math.IsInf(end, 0) {
		Panicf("Arange", ErrArg, "unsupported range: %v -> %v", start, end)
	}
	if (step > 0 && end < start) || (step < 0 && end > start) {
		Panicf("Arange", ErrArg, "upper bound and larger bound inconsistent with step sign (start %v, end %v, step %v)", start, end, step)
	}
	c := math.Ceil((end - start) / step)
	n := math.MaxInt // a count beyond int is refused by checkAlloc below
	if c < math.MaxInt {
		n = int(c)
	}
	checkAlloc("Arange", Float64, []int{n}) // the values are made as float64
	if dt == Int64 {
		// As PyTorch, the length comes from the float bounds, the values from
		// the bounds truncated to integers.
		start, step = math.Trunc(start), math.Trunc(step)
		if step == 0 {
			Panicf("Arange", ErrArg, "step must be nonzero")
		}
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = math.FMA(float64(i), step, start)
	}
	return fromFloat64s("Arange", dt, vals)
}

// fromFloat64s converts vals to a new 1-D tensor of dtype dt.
func fromFloat64s(op string, dt DType, vals []float64) *Tensor {
	if !dt.valid() {
		Panicf(op, ErrDType, "unknown dtype %v", dt)
	}
	src := FromSlice(vals)
	if dt == Float64 {
		return src
	}
	return src.To(dt)
}

// Linspace returns steps evenly spaced values from start to end inclusive, as
// torch.linspace: with d = (end-start)/(steps-1), the first half is start + i*d
// and the second half end - (steps-1-i)*d, so both endpoints are exact. Float32
// results are computed in float32 arithmetic; for Int64 the bounds are truncated
// to integers, the values computed in float64 and truncated.
func Linspace(dt DType, start, end float64, steps int) *Tensor {
	if steps < 0 {
		Panicf("Linspace", ErrArg, "number of steps must be non-negative, got %d", steps)
	}
	checkAlloc("Linspace", Float64, []int{steps})
	switch dt {
	case Float32:
		return FromSlice(linspace(float32(start), float32(end), steps))
	case Float64:
		return FromSlice(linspace(start, end, steps))
	case Int64:
		// As PyTorch, the bounds are converted to integers first.
		return FromSlice(linspace(math.Trunc(start), math.Trunc(end), steps)).To(dt)
	case Bool:
		return FromSlice(linspace(start, end, steps)).To(dt)
	}
	Panicf("Linspace", ErrDType, "unknown dtype %v", dt)
	return nil
}

func linspace[T Float](start, end T, steps int) []T {
	out := make([]T, steps)
	if steps == 0 {
		return out
	}
	if steps == 1 {
		out[0] = start
		return out
	}
	d := (end - start) / T(steps-1)
	half := steps / 2
	for i := range out {
		if i < half {
			out[i] = start + d*T(i)
		} else {
			out[i] = end - d*T(steps-i-1)
		}
	}
	return out
}

// FromNested builds a tensor from a Go value: a scalar (0-d), or nested slices or
// arrays of float64, float32, int, int64, int32 or bool, such as [][]float64{{1, 2},
// {3, 4}}. float64 gives Float64, float32 Float32, integers Int64, bool Bool.
// Ragged nesting panics with ErrShape; other element types with ErrDType.
func FromNested(v any) *Tensor {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		Panicf("FromNested", ErrArg, "nil value")
	}
	shape, ty := nestedShape(rv)
	dt := nestedDType(ty)
	n := checkShape("FromNested", shape)
	e := &nestedElems{shape: shape, dt: dt, ty: ty, f: make([]float64, 0, n)}
	e.walk(rv, 0, nil)
	return e.tensor().Reshape(shape...)
}

// nestedShape returns the shape of nested slices or arrays rv, taken from
// the first element at each level, and the type of its elements.
func nestedShape(rv reflect.Value) ([]int, reflect.Type) {
	var shape []int
	ty := rv.Type()
	for cur := rv; ; {
		k := cur.Kind()
		if k != reflect.Slice && k != reflect.Array {
			break
		}
		shape = append(shape, cur.Len())
		ty = ty.Elem()
		if cur.Len() == 0 {
			for ty.Kind() == reflect.Slice || ty.Kind() == reflect.Array {
				shape = append(shape, 0)
				ty = ty.Elem()
			}
			break
		}
		cur = cur.Index(0)
		for cur.Kind() == reflect.Interface {
			cur = cur.Elem()
		}
		ty = cur.Type()
	}
	return shape, ty
}

// nestedDType returns the DType that holds elements of type ty, and
// panics for types FromNested does not take.
func nestedDType(ty reflect.Type) DType {
	var dt DType
	switch ty.Kind() {
	case reflect.Float64:
		dt = Float64
	case reflect.Float32:
		dt = Float32
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
		dt = Int64
	case reflect.Bool:
		dt = Bool
	default:
		PanicHint("FromNested", ErrDType, "use float64, float32, int, int64 or bool elements",
			"unsupported element type %v", ty)
	}
	return dt
}

// nestedElems gathers the elements of a nested value of the given shape,
// whose first element has type ty, as dtype dt.
type nestedElems struct {
	shape []int
	dt    DType
	ty    reflect.Type
	f     []float64 // Float64 and Float32
	ints  []int64
	b     []bool
}

// walk appends the elements of x, at the given depth and path, in
// row-major order, and panics on ragged nesting or mixed element types.
func (e *nestedElems) walk(x reflect.Value, depth int, path []int) {
	for x.Kind() == reflect.Interface {
		x = x.Elem()
	}
	if depth == len(e.shape) {
		e.scalar(x, path)
		return
	}
	if x.Kind() != reflect.Slice && x.Kind() != reflect.Array {
		Panicf("FromNested", ErrShape, "ragged nesting: element at %v is a scalar, expected a sequence of length %d (shape %v)", path, e.shape[depth], e.shape)
	}
	if x.Len() != e.shape[depth] {
		Panicf("FromNested", ErrShape, "ragged nesting: sequence at %v has length %d, expected %d (shape %v)", path, x.Len(), e.shape[depth], e.shape)
	}
	for i := 0; i < x.Len(); i++ {
		e.walk(x.Index(i), depth+1, append(path, i))
	}
}

// scalar appends the element x found at path.
func (e *nestedElems) scalar(x reflect.Value, path []int) {
	if x.Kind() == reflect.Slice || x.Kind() == reflect.Array {
		Panicf("FromNested", ErrShape, "ragged nesting: element at %v is a sequence, expected a %v scalar (shape %v)", path, e.dt, e.shape)
	}
	switch e.dt {
	case Float64, Float32:
		if x.Kind() != reflect.Float64 && x.Kind() != reflect.Float32 {
			Panicf("FromNested", ErrDType, "mixed element types: %v at %v, expected %v", x.Type(), path, e.ty)
		}
		e.f = append(e.f, x.Float())
	case Int64:
		if !x.CanInt() {
			Panicf("FromNested", ErrDType, "mixed element types: %v at %v, expected %v", x.Type(), path, e.ty)
		}
		e.ints = append(e.ints, x.Int())
	case Bool:
		if x.Kind() != reflect.Bool {
			Panicf("FromNested", ErrDType, "mixed element types: %v at %v, expected %v", x.Type(), path, e.ty)
		}
		e.b = append(e.b, x.Bool())
	}
}

// tensor returns the gathered elements as a flat tensor of dtype e.dt.
func (e *nestedElems) tensor() *Tensor {
	var t *Tensor
	switch e.dt {
	case Float64:
		t = FromSlice(e.f)
	case Float32:
		f32 := make([]float32, len(e.f))
		for i, x := range e.f {
			f32[i] = float32(x)
		}
		t = FromSlice(f32)
	case Int64:
		t = FromSlice(e.ints)
	case Bool:
		t = FromSlice(e.b)
	}
	return t
}
