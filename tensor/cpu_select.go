package tensor

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/goagx/agx/tensor/internal/vec"
)

// Branch-free kernels for selections and comparisons.
//
// With data-dependent conditions (the sign of random activations, a ReLU
// mask) a branch per element is mispredicted about half the time, which
// costs more than the arithmetic. These loops turn the condition into a
// bit mask (a Go bool is one byte holding 0 or 1) and select with integer
// and/or, so the compiler emits no branch (package vec's loops, vectorised
// or portable); the plain loops stay as the general (strided) path.

// asBits views a float32 or float64 slice as unsigned integers of the
// same width; ok is false for other element types.
func asBits32[T Elem](s []T) ([]uint32, bool) {
	if f, ok := any(s).([]float32); ok {
		return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(f))), len(f)), true
	}
	return nil, false
}

func asBits64[T Elem](s []T) ([]uint64, bool) {
	switch f := any(s).(type) {
	case []float64:
		return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(f))), len(f)), true
	case []int64:
		return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(f))), len(f)), true
	}
	return nil, false
}

// whereFast handles the contiguous cases of whereKernel for 4- and 8-byte
// element types: every operand dense, or one of a and b a broadcast scalar
// (inner stride 0). It reports whether it wrote the row.
func whereFast[T Elem](d []T, c []bool, a, b []T, o []int, n int, in []int) bool {
	if in[0] != 1 || in[1] != 1 {
		return false
	}
	dd, cc := d[o[0]:o[0]+n], c[o[1]:o[1]+n]
	if d32, ok := asBits32(dd); ok {
		a32, _ := asBits32(a)
		b32, _ := asBits32(b)
		return selectRow(d32, cc, a32, b32, o, n, in)
	}
	if d64, ok := asBits64(dd); ok {
		a64, _ := asBits64(a)
		b64, _ := asBits64(b)
		return selectRow(d64, cc, a64, b64, o, n, in)
	}
	return false
}

// selectRow runs the row with package vec's vectorised selections when it is
// long enough (see vecMin), with its portable loops otherwise.
func selectRow[U uint32 | uint64](d []U, c []bool, a, b []U, o []int, n int, in []int) bool {
	long := n >= vecMin
	switch {
	case in[2] == 1 && in[3] == 1:
		if long {
			vec.Select(d, c, a[o[2]:o[2]+n], b[o[3]:o[3]+n])
		} else {
			vec.SelectGo(d, c, a[o[2]:o[2]+n], b[o[3]:o[3]+n])
		}
	case in[2] == 1 && in[3] == 0:
		if long {
			vec.SelectScalar(d, c, a[o[2]:o[2]+n], b[o[3]])
		} else {
			vec.SelectScalarGo(d, c, a[o[2]:o[2]+n], b[o[3]])
		}
	case in[2] == 0 && in[3] == 1:
		if long {
			vec.ScalarSelect(d, c, a[o[2]], b[o[3]:o[3]+n])
		} else {
			vec.ScalarSelectGo(d, c, a[o[2]], b[o[3]:o[3]+n])
		}
	case in[2] == 0 && in[3] == 0:
		// Two scalars (a gradient of ones from a sum's backward, and 0):
		// fill with b's, then select a's in place.
		y := b[o[3]]
		for i := range d {
			d[i] = y
		}
		if long {
			vec.ScalarSelect(d, c, a[o[2]], d)
		} else {
			vec.ScalarSelectGo(d, c, a[o[2]], d)
		}
	default:
		return false
	}
	return true
}

// compareFast handles the contiguous vector-vector and vector-scalar cases
// of compareKernel without an indirect call per element. It reports
// whether it wrote the row.
func compareFast[T Num](op BinaryOp, d []bool, a, b []T, o []int, n int, in []int) bool {
	if in[0] != 1 || in[1] != 1 {
		return false
	}
	dd, aa := d[o[0]:o[0]+n], a[o[1]:o[1]+n]
	switch in[2] {
	case 1:
		return vecCompare(op, dd, aa, b[o[2]:o[2]+n])
	case 0:
		return vecCompareScalar(op, dd, aa, b[o[2]])
	}
	return false
}

// Bool rows, eight at a time.
//
// A Go bool is one byte holding 0 or 1, so the logical ops of two rows of
// bools are the bitwise ops of their bytes, which a uint64 does eight at a
// time (and, or, xor; not is xor with 1 in every byte). The loads and
// stores go through encoding/binary, which the compiler turns into single
// moves where the CPU allows unaligned ones, and which never reads past a
// row.

// asBytes views a row of bools as its bytes.
func asBytes(b []bool) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// logicalRow sets d[i] = a[i] op b[i] for OpAnd, OpOr and OpXor (d may be
// a or b).
func logicalRow(op BinaryOp, d, a, b []bool) {
	db, ab, bb := asBytes(d), asBytes(a[:len(d)]), asBytes(b[:len(d)])
	le := binary.LittleEndian
	n := len(db) &^ 7
	switch op {
	case OpAnd:
		for i := 0; i < n; i += 8 {
			le.PutUint64(db[i:], le.Uint64(ab[i:])&le.Uint64(bb[i:]))
		}
	case OpOr:
		for i := 0; i < n; i += 8 {
			le.PutUint64(db[i:], le.Uint64(ab[i:])|le.Uint64(bb[i:]))
		}
	default:
		for i := 0; i < n; i += 8 {
			le.PutUint64(db[i:], le.Uint64(ab[i:])^le.Uint64(bb[i:]))
		}
	}
	for i := n; i < len(db); i++ {
		switch op {
		case OpAnd:
			db[i] = ab[i] & bb[i]
		case OpOr:
			db[i] = ab[i] | bb[i]
		default:
			db[i] = ab[i] ^ bb[i]
		}
	}
}

// notRow sets d[i] = !s[i] (d may be s).
func notRow(d, s []bool) {
	db, sb := asBytes(d), asBytes(s[:len(d)])
	le := binary.LittleEndian
	n := len(db) &^ 7
	for i := 0; i < n; i += 8 {
		le.PutUint64(db[i:], le.Uint64(sb[i:])^0x0101010101010101)
	}
	for i := n; i < len(db); i++ {
		db[i] = sb[i] ^ 1
	}
}

// boolsTo sets d[i] = 1 where s[i], else 0: a mask cast to a float,
// without convert's type switch per element and without a branch (a
// random mask mispredicts one half the time): a select of 1 into zeros,
// package vec's vectorised loop for a long enough row.
func boolsTo[T Float](d []T, s []bool) {
	clear(d)
	if b, ok := asBits32(d); ok {
		one := math.Float32bits(1)
		if len(d) >= vecMin {
			vec.ScalarSelect(b, s, one, b)
		} else {
			vec.ScalarSelectGo(b, s, one, b)
		}
		return
	}
	b, _ := asBits64(d)
	one := math.Float64bits(1)
	if len(d) >= vecMin {
		vec.ScalarSelect(b, s, one, b)
	} else {
		vec.ScalarSelectGo(b, s, one, b)
	}
}
