package tensor

// Buffer is a flat block of elements owned by a Backend. Tensors view buffers
// through a shape, strides and an offset; the backend alone knows how to read it.
type Buffer interface {
	Len() int
	DType() DType
}

// View describes a strided window into a Buffer: element (i0, i1, ...) lives at
// Offset + i0*Strides[0] + i1*Strides[1] + ... . Strides are in elements and may be
// zero (broadcast dimensions). A 0-d view has empty Shape and Strides.
type View struct {
	Buf     Buffer
	Shape   []int
	Strides []int
	Offset  int
}

// DType is the element type of the view's buffer.
func (v View) DType() DType { return v.Buf.DType() }

// UnaryOp names an element-wise primitive of one operand.
type UnaryOp uint8

// Unary primitives. OpPowScalar takes the exponent as args[0]; OpClamp takes
// (lo, hi), where -Inf / +Inf mean "no bound".
const (
	OpNeg UnaryOp = iota + 1
	OpExp
	OpLog
	OpLog1p
	OpSqrt
	OpRsqrt
	OpAbs
	OpSign
	OpRound
	OpFloor
	OpCeil
	OpSigmoid
	OpTanh
	OpRelu
	OpErf
	OpNot
	OpPowScalar
	OpClamp
	OpExpm1
	OpSin
	OpCos
)

// BinaryOp names an element-wise primitive of two operands. Comparison ops write
// a Bool destination; logical ops take Bool operands.
type BinaryOp uint8

// Binary primitives.
const (
	OpAdd BinaryOp = iota + 1
	OpSub
	OpMul
	OpDiv
	OpPow
	OpMaximum
	OpMinimum
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpAnd
	OpOr
	OpXor
)

// IsCompare reports whether op produces a Bool result from numeric operands.
func (op BinaryOp) IsCompare() bool { return op >= OpEq && op <= OpGe }

// IsLogical reports whether op is a logical op over Bool operands.
func (op BinaryOp) IsLogical() bool { return op >= OpAnd && op <= OpXor }

// ReduceOp names a reduction primitive.
type ReduceOp uint8

// Reduction primitives. OpArgMax/OpArgMin write Int64 indices along a single dim.
const (
	OpSum ReduceOp = iota + 1
	OpProd
	OpMax
	OpMin
	OpArgMax
	OpArgMin
)

// Backend is the small set of primitives a device implements. Everything else in
// the tensor package (broadcasting, softmax, logsumexp, variance, indexing helpers,
// concatenation) is composed from these, so every backend gets it for free.
//
// All views passed to a primitive are already broadcast to the destination's shape
// where the primitive is element-wise (broadcast dims have stride 0). Destinations
// never overlap their sources unless they are identical views.
type Backend interface {
	// Name identifies the backend ("cpu", "cuda", ...).
	Name() string
	// Alloc returns a zeroed buffer of n elements.
	Alloc(dt DType, n int) Buffer
	// FromSlice copies a Go slice ([]float32, []float64, []bool or []int64) into a new buffer.
	FromSlice(data any) Buffer
	// ToSlice copies the view, in row-major order, into a new Go slice of its dtype.
	ToSlice(src View) any
	// Fill sets every element of dst to v converted to dst's dtype.
	Fill(dst View, v float64)
	// Copy copies src into dst element-wise, converting the dtype if they differ.
	Copy(dst, src View)
	// Unary applies op element-wise. dst and src have the same dtype.
	Unary(op UnaryOp, dst, src View, args ...float64)
	// Binary applies op element-wise. a and b share a dtype; dst has it too, or
	// Bool for comparisons.
	Binary(op BinaryOp, dst, a, b View)
	// Where sets dst = cond ? a : b element-wise (cond is Bool).
	Where(dst, cond, a, b View)
	// Reduce reduces src over dims into dst, which has src's rank with size 1 on
	// those dims. Arg ops take exactly one dim and write Int64.
	Reduce(op ReduceOp, dst, src View, dims []int)
	// MatMul computes dst[..., m, n] = a[..., m, k] · b[..., k, n] for float dtypes.
	// Batch dims are already broadcast (possibly with stride 0).
	MatMul(dst, a, b View)
	// Gather sets dst[...i_dim...] = src[... index[...] ...] along dim (index is Int64
	// with dst's shape).
	Gather(dst, src, index View, dim int)
	// Scatter writes src into dst at index along dim (index and src share a shape);
	// with accumulate it adds instead of overwriting.
	Scatter(dst, index, src View, dim int, accumulate bool)
}

// NotImplemented can be embedded in a Backend under construction: every primitive
// it does not override panics with ErrDevice naming the primitive, so a new
// primitive can land without breaking other backends.
type NotImplemented struct{ BackendName string }

func (n NotImplemented) ni(prim string) {
	Panicf(prim, ErrDevice, "primitive not implemented by backend %q", n.BackendName)
}

func (n NotImplemented) Name() string                          { return n.BackendName }
func (n NotImplemented) Alloc(DType, int) Buffer               { n.ni("Alloc"); return nil }
func (n NotImplemented) FromSlice(any) Buffer                  { n.ni("FromSlice"); return nil }
func (n NotImplemented) ToSlice(View) any                      { n.ni("ToSlice"); return nil }
func (n NotImplemented) Fill(View, float64)                    { n.ni("Fill") }
func (n NotImplemented) Copy(View, View)                       { n.ni("Copy") }
func (n NotImplemented) Unary(UnaryOp, View, View, ...float64) { n.ni("Unary") }
func (n NotImplemented) Binary(BinaryOp, View, View, View)     { n.ni("Binary") }
func (n NotImplemented) Where(View, View, View, View)          { n.ni("Where") }
func (n NotImplemented) Reduce(ReduceOp, View, View, []int)    { n.ni("Reduce") }
func (n NotImplemented) MatMul(View, View, View)               { n.ni("MatMul") }
func (n NotImplemented) Gather(View, View, View, int)          { n.ni("Gather") }
func (n NotImplemented) Scatter(View, View, View, int, bool)   { n.ni("Scatter") }

// NumelOf is the number of elements of a tensor of the given shape (1 for a
// 0-d shape). With ContiguousStrides it is the layout arithmetic a backend
// needs to lay out its own buffers.
func NumelOf(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// ContiguousStrides returns the row-major strides, in elements, of a dense
// tensor of the given shape.
func ContiguousStrides(shape []int) []int { return contiguousStrides(shape) }
