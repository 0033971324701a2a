package agx

import (
	"errors"
	"strings"
	"testing"

	"github.com/goagx/agx/tensor"
)

// TestApplyNilFunction: Apply and ApplyN with a nil Function panic with
// ErrArg saying so, not with a nil dereference; FunctionName(nil) is the
// fallback name.
func TestApplyNilFunction(t *testing.T) {
	x := New(tensor.Ones(Float64, 2)).SetRequiresGrad(true)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Apply", func() { Apply(nil, x) }},
		{"ApplyN", func() { ApplyN(nil, x) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Try(c.f)
			if err == nil || !errors.Is(err, tensor.ErrArg) || !strings.Contains(err.Error(), "nil Function") {
				t.Fatalf("error %v, want ErrArg saying nil Function", err)
			}
		})
	}
	var name string
	if err := Try(func() { name = FunctionName(nil) }); err != nil || name != "Function" {
		t.Errorf("FunctionName(nil) = %q, %v; want \"Function\"", name, err)
	}
}
