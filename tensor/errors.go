package tensor

import (
	"errors"
	"fmt"
)

// Sentinel errors: every panic raised for misuse wraps one of them, so callers can
// match with errors.Is after recovering it (agx.Try, or recover and AsError).
var (
	ErrShape  = errors.New("shape mismatch")
	ErrDType  = errors.New("dtype mismatch")
	ErrIndex  = errors.New("index out of range")
	ErrArg    = errors.New("invalid argument")
	ErrDevice = errors.New("device error")
	// ErrAlloc: a tensor larger than MaxAlloc was asked for.
	ErrAlloc = errors.New("allocation too large")
)

// Error is the value agx panics with on misuse. Op names the operation, Kind is one
// of the sentinel errors, Msg describes what was wrong with the shapes or dtypes
// involved, and Hint (optional) says how to fix it.
type Error struct {
	Op   string
	Kind error
	Msg  string
	Hint string
}

func (e *Error) Error() string {
	s := "agx: " + e.Op + ": " + e.Msg
	if e.Hint != "" {
		s += " (hint: " + e.Hint + ")"
	}
	return s
}

// Unwrap returns the sentinel, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// Panicf panics with an *Error. It is exported for the packages built on tensor
// (agx, functions, nn) so that their misuse errors share one type.
func Panicf(op string, kind error, format string, args ...any) {
	panic(&Error{Op: op, Kind: kind, Msg: fmt.Sprintf(format, args...)})
}

// PanicHint is Panicf with a hint telling the user how to fix the problem.
func PanicHint(op string, kind error, hint string, format string, args ...any) {
	panic(&Error{Op: op, Kind: kind, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

// AsError reports whether v, a value recovered from a panic, is an agx error,
// and returns it as one: an *Error, or an error of a package built on tensor
// that marks itself with an AgxError method (agx's GradCheckError and
// FunctionPanicError). These are the panics agx.Try returns; any other value
// (a runtime error, another library's panic, a marked non-error) is not.
func AsError(v any) (error, bool) {
	switch e := v.(type) {
	case *Error:
		return e, true
	case interface {
		error
		AgxError()
	}:
		return e, true
	}
	return nil, false
}
