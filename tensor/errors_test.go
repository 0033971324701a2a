package tensor

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// try is agx.Try (which tensor's tests cannot import): it runs f and returns
// the agx error f panicked with (AsError); other panics go on.
func try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := AsError(r)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	f()
	return nil
}

// agxLike is a foreign error type that opts into AsError with an AgxError method.
type agxLike struct{ msg string }

func (e agxLike) Error() string { return e.msg }
func (agxLike) AgxError()       {}

// markerOnly has the AgxError marker but is not an error: AsError must not take it.
type markerOnly struct{}

func (markerOnly) AgxError() {}

func TestErrorText(t *testing.T) {
	cases := []struct {
		name string
		err  *Error
		want string
	}{
		{"plain", &Error{Op: "MatMul", Kind: ErrShape, Msg: "inner dimensions differ: [2 3] @ [4 5] (3 != 4)"},
			"agx: MatMul: inner dimensions differ: [2 3] @ [4 5] (3 != 4)"},
		{"hint", &Error{Op: "View", Kind: ErrShape, Msg: "bad", Hint: "use Reshape"}, "agx: View: bad (hint: use Reshape)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.err.Error() != c.want {
				t.Fatalf("Error() = %q, want %q", c.err.Error(), c.want)
			}
			if c.err.Unwrap() != c.err.Kind {
				t.Fatal("Unwrap must return Kind")
			}
		})
	}
}

func TestPanicfAndAsError(t *testing.T) {
	sentinels := []error{ErrShape, ErrDType, ErrIndex, ErrArg, ErrDevice}
	for _, kind := range sentinels {
		t.Run("Panicf/"+kind.Error(), func(t *testing.T) {
			err := try(func() { Panicf("Op", kind, "value %d", 3) })
			var e *Error
			if !errors.As(err, &e) || e.Op != "Op" || e.Msg != "value 3" || e.Hint != "" {
				t.Fatalf("Try = %#v", err)
			}
			for _, other := range sentinels {
				if errors.Is(err, other) != (other == kind) {
					t.Fatalf("errors.Is(err, %v) = %v", other, errors.Is(err, other))
				}
			}
		})
	}
	t.Run("PanicHint", func(t *testing.T) {
		err := try(func() { PanicHint("Sum", ErrArg, "pass a dim", "bad dim %v", []int{1}) })
		if err == nil || err.Error() != "agx: Sum: bad dim [1] (hint: pass a dim)" || !errors.Is(err, ErrArg) {
			t.Fatalf("Try = %v", err)
		}
	})
	t.Run("nil", func(t *testing.T) {
		if err := try(func() {}); err != nil {
			t.Fatalf("Try of a clean func = %v", err)
		}
	})
	t.Run("AgxError", func(t *testing.T) {
		err := try(func() { panic(agxLike{"custom"}) })
		if err == nil || err.Error() != "custom" {
			t.Fatalf("Try = %v", err)
		}
	})
	t.Run("wrapped", func(t *testing.T) {
		err := try(func() { ar(2).View(3) })
		if wrapped := fmt.Errorf("cell 3: %w", err); !errors.Is(wrapped, ErrShape) {
			t.Fatal("a wrapped *Error lost its sentinel")
		}
	})
	repanics := []struct {
		name string
		v    any
	}{
		{"string", "boom"},
		{"plain-error", errors.New("other library")},
		{"sentinel-itself", ErrShape},
		{"Error-value", Error{Op: "x"}},
		{"AgxError-without-Error", markerOnly{}},
	}
	for _, c := range repanics {
		t.Run("repanic/"+c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != c.v && fmt.Sprint(r) != fmt.Sprint(c.v) {
					t.Fatalf("recovered %v, want the original %v", r, c.v)
				}
			}()
			_ = try(func() { panic(c.v) })
			t.Fatal("Try swallowed a foreign panic")
		})
	}
	t.Run("repanic/runtime", func(t *testing.T) {
		defer func() {
			r := recover()
			if _, ok := r.(interface{ RuntimeError() }); !ok {
				t.Fatalf("recovered %v, want the runtime error", r)
			}
		}()
		var s []int
		_ = try(func() { _ = s[3] })
	})
}

func TestDTypeBasics(t *testing.T) {
	cases := []struct {
		dt    DType
		name  string
		size  int
		float bool
	}{
		{Float32, "float32", 4, true}, {Float64, "float64", 8, true}, {Bool, "bool", 1, false}, {Int64, "int64", 8, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.dt.String() != c.name || c.dt.Size() != c.size || c.dt.IsFloat() != c.float || !c.dt.valid() {
				t.Fatalf("%v: String %q Size %d IsFloat %v", c.dt, c.dt.String(), c.dt.Size(), c.dt.IsFloat())
			}
		})
	}
	if DType(0).valid() || DType(5).valid() || !strings.HasPrefix(DType(5).String(), "DType(") || DType(5).Size() != 0 {
		t.Fatal("invalid dtypes")
	}
	if DTypeOf[float32]() != Float32 || DTypeOf[float64]() != Float64 || DTypeOf[int64]() != Int64 || DTypeOf[bool]() != Bool {
		t.Fatal("DTypeOf")
	}
	if OpAdd.String() != "Add" || OpAnd.String() != "LogicalAnd" || OpNot.String() != "LogicalNot" || OpPowScalar.String() != "Pow" {
		t.Fatal("op names")
	}
	if !OpEq.IsCompare() || OpAdd.IsCompare() || !OpXor.IsLogical() || OpGe.IsLogical() {
		t.Fatal("op classes")
	}
}
