package tensor

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
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
