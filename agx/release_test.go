package agx

import (
	"errors"
	"testing"
)

// A node that saved only Go numbers has nothing to free and may run again;
// one that saved tensors fails the second time, as in PyTorch.
func TestSecondBackwardDependsOnSavedTensors(t *testing.T) {
	cases := []struct {
		name    string
		f       func(x *Tensor) *Tensor
		wantErr bool
	}{
		{"mul-by-number", func(x *Tensor) *Tensor { return x.Mul(2.0).Sum() }, false},
		{"add-number", func(x *Tensor) *Tensor { return x.Add(1.0).Sum() }, false},
		{"mul-by-tensor", func(x *Tensor) *Tensor { return x.Mul(x).Sum() }, true},
		{"exp", func(x *Tensor) *Tensor { return x.Exp().Sum() }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := FromSlice([]float64{1, 2}).SetRequiresGrad(true)
			y := tc.f(x)
			y.Backward()
			err := Try(func() { y.Backward() })
			if tc.wantErr != (err != nil) {
				t.Fatalf("second backward: err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrGraph) {
				t.Fatalf("error %v is not ErrGraph", err)
			}
		})
	}
}
