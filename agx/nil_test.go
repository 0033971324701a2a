package agx

import (
	"errors"
	"strings"
	"testing"

	"github.com/goagx/agx/tensor"
)

// A nil tensor where an op expects one is an ErrArg error that names the op
// and the argument (before: a nil pointer dereference in MatMul, Cat, Where
// and the methods, and "agx: agx: nil tensor operand" from Add).
func TestNilOperands(t *testing.T) {
	var n *Tensor
	x := Ones(tensor.Float32, 2, 2)
	idx := Zeros(tensor.Int64, 2, 2)
	cases := []struct {
		name string
		f    func()
		want string
	}{
		{"Add/first", func() { Add(n, x) }, "Add: argument 'input' (position 1)"},
		{"Add/second", func() { Add(x, n) }, "Add: argument 'other' (position 2)"},
		{"Add/untyped-nil", func() { Add(x, nil) }, "Add: argument 'other' (position 2) must be a Tensor or a Go number, not nil"},
		{"Sub", func() { Sub(x, n) }, "Sub: argument 'other'"},
		{"Mul", func() { Mul(n, 2) }, "Mul: argument 'input'"},
		{"Div", func() { Div(1, n) }, "Div: argument 'other'"},
		{"Pow", func() { Pow(x, n) }, "Pow: argument 'exponent'"},
		{"Maximum", func() { Maximum(x, n) }, "Maximum: argument 'other'"},
		{"Minimum", func() { Minimum(n, x) }, "Minimum: argument 'input'"},
		{"Where/condition", func() { Where(n, x, x) }, "Where: argument 'condition' (position 1)"},
		{"Where/input", func() { Where(x.Gt(0), n, x) }, "Where: argument 'input' (position 2)"},
		{"Where/other", func() { Where(x.Gt(0), x, n) }, "Where: argument 'other' (position 3)"},
		{"MatMul/input", func() { MatMul(n, x) }, "MatMul: argument 'input' (position 1)"},
		{"MatMul/other", func() { MatMul(x, n) }, "MatMul: argument 'other' (position 2)"},
		{"MatMul/method", func() { x.MatMul(n) }, "MatMul: argument 'other' (position 2)"},
		{"Cat", func() { Cat(0, x, n) }, "Cat: expected a Tensor as element 1 in argument 'tensors'"},
		{"Stack", func() { Stack(0, n, x) }, "Stack: expected a Tensor as element 0 in argument 'tensors'"},
		{"Shape", func() { n.Shape() }, "Shape: argument 'self' (position 1)"},
		{"Exp", func() { n.Exp() }, "Exp: argument 'self'"},
		{"Sum", func() { n.Sum() }, "Sum: argument 'self'"},
		{"Reshape", func() { n.Reshape(4) }, "Reshape: argument 'self'"},
		{"Backward", func() { n.Backward() }, "Backward: argument 'self'"},
		{"Eq", func() { x.Eq(n) }, "Eq: argument 'other' (position 2)"},
		{"MaskedFill", func() { x.MaskedFill(n, 0) }, "MaskedFill: argument 'mask' (position 2)"},
		{"LogicalAnd", func() { x.Gt(0).LogicalAnd(n) }, "LogicalAnd: argument 'other'"},
		{"Gather", func() { x.Gather(0, n) }, "Gather: argument 'index'"},
		{"ScatterAdd/src", func() { x.ScatterAdd(0, idx, n) }, "ScatterAdd: argument 'src'"},
		{"IndexSelect", func() { x.IndexSelect(0, n) }, "IndexSelect: argument 'index'"},
		{"OneHot", func() { OneHot(n, 3) }, "OneHot: argument 'input'"},
		{"CrossEntropy", func() { CrossEntropy(x, n) }, "CrossEntropy: argument 'target'"},
		{"MSELoss", func() { MSELoss(n, x) }, "MSELoss: argument 'input'"},
		{"ZerosLike", func() { ZerosLike(n) }, "ZerosLike: argument 'input'"},
		{"RoundSTE", func() { RoundSTE(n) }, "RoundSTE: argument 'input'"},
		{"StraightThrough", func() { StraightThrough(x, n) }, "StraightThrough: argument 'soft'"},
		{"Grad/inputs", func() { Grad1(x.Sum(), n) }, "Grad: expected a Tensor as element 0 in argument 'inputs'"},
		{"Grad/outputs", func() { Grad([]*Tensor{n}, []*Tensor{x}) }, "Grad: expected a Tensor as element 0 in argument 'outputs'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Try(c.f)
			if !errors.Is(err, tensor.ErrArg) || !strings.Contains(err.Error(), "agx: "+c.want) {
				t.Fatalf("got %v, want ErrArg with %q", err, "agx: "+c.want)
			}
			if strings.Contains(err.Error(), "agx: agx:") {
				t.Errorf("doubled prefix: %v", err)
			}
		})
	}
}
