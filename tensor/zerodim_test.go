package tensor

import (
	"errors"
	"testing"
)

// 0-d tensors accept dims 0 and -1 where PyTorch does (reductions, Transpose,
// Squeeze) and reject them with ErrIndex where a real dim is needed.
func TestZeroDimDims(t *testing.T) {
	s := Scalar(2.0)
	ok := []struct {
		name string
		f    func() *Tensor
	}{
		{"Transpose", func() *Tensor { return s.Transpose(0, -1) }},
		{"Squeeze", func() *Tensor { return s.Squeeze(0) }},
		{"Sum", func() *Tensor { return s.Sum(0) }},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			if r := tc.f(); r.Dim() != 0 || r.Item() != 2 {
				t.Fatalf("got %v", r)
			}
		})
	}
	bad := map[string]func(){
		"Size":   func() { s.Size(0) },
		"Narrow": func() { s.Narrow(0, 0, 1) },
		"Select": func() { s.Select(0, 0) },
		"Slice":  func() { s.Slice(0, 0, 1, 1) },
	}
	for name, f := range bad {
		t.Run(name, func(t *testing.T) {
			if err := try(f); !errors.Is(err, ErrIndex) {
				t.Fatalf("got %v, want ErrIndex", err)
			}
		})
	}
}

func TestIntNegativePowerRefused(t *testing.T) {
	x := FromSlice([]int64{1, 2})
	if err := try(func() { Pow(x, -1) }); !errors.Is(err, ErrArg) {
		t.Fatalf("got %v, want ErrArg", err)
	}
	if got := Pow(x, 2).Float64s(); got[1] != 4 {
		t.Fatalf("2² = %v", got[1])
	}
}
