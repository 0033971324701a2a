package tensor

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
)

// CheckedNumel is NumelOf for a shape that may come from outside (a file, a
// user): it returns an *Error wrapping ErrShape for a negative dim or an
// element count that does not fit in an int, where NumelOf would wrap around.
func CheckedNumel(shape []int) (int, error) {
	n, zero := 1, false
	overflow := false
	for _, s := range shape {
		if s < 0 {
			return 0, shapeError(shape, "negative dimension in shape %v")
		}
		hi, lo := bits.Mul64(uint64(n), uint64(s))
		if hi != 0 || lo > math.MaxInt {
			overflow = true
			n = 1
			continue
		}
		zero = zero || s == 0
		n = int(lo)
	}
	switch {
	case zero:
		return 0, nil // a zero-size dim: no element, however large the others
	case overflow:
		return 0, shapeError(shape, "the number of elements of shape %v overflows an int")
	}
	return n, nil
}

// shapeError formats a copy of shape, so that shape does not escape on the
// common path of CheckedNumel.
func shapeError(shape []int, format string) error {
	return &Error{Op: "Numel", Kind: ErrShape, Msg: fmt.Sprintf(format, slices.Clone(shape))}
}

// mustNumel is CheckedNumel panicking with its error under op's name.
func mustNumel(op string, shape []int) int {
	n, err := CheckedNumel(shape)
	if err != nil {
		e := err.(*Error)
		panic(&Error{Op: op, Kind: e.Kind, Msg: e.Msg})
	}
	return n
}

// maxAlloc is the allocation limit in bytes (SetMaxAlloc).
var maxAlloc atomic.Int64

func init() { maxAlloc.Store(defaultMaxAlloc()) }

// MaxAlloc returns the largest tensor, in bytes, that the constructors
// allocate: by default the machine's physical memory (1 TiB where it cannot
// be read). A larger request could never succeed, and Go would end the
// process instead of returning an error; it is refused with ErrAlloc.
func MaxAlloc() int64 { return maxAlloc.Load() }

// SetMaxAlloc sets the limit MaxAlloc returns (at least 1) and returns the
// previous one. A notebook may lower it to fail early on a size bug.
func SetMaxAlloc(bytes int64) (previous int64) { return maxAlloc.Swap(max(bytes, 1)) }

// checkAlloc returns the number of elements of a new dt tensor of shape,
// panicking with ErrShape for a bad shape and with ErrAlloc for one larger
// than MaxAlloc.
func checkAlloc(op string, dt DType, shape []int) int {
	n := mustNumel(op, shape)
	if limit := MaxAlloc(); n > 0 && int64(n) > limit/int64(dt.Size()) {
		allocError(op, dt, shape, n, limit)
	}
	return n
}

// allocError panics for checkAlloc; shape is copied so that it does not
// escape on the common path.
func allocError(op string, dt DType, shape []int, n int, limit int64) {
	PanicHint(op, ErrAlloc, "tensor.SetMaxAlloc changes the limit, which defaults to the machine's memory",
		"a %v tensor of shape %v needs %s (%d elements), more than the allocation limit of %s",
		dt, slices.Clone(shape), byteCount(float64(n)*float64(dt.Size())), n, byteCount(float64(limit)))
}

// byteCount formats a size in bytes with a binary unit.
func byteCount(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}
