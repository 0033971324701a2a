package tensor

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckedNumel(t *testing.T) {
	cases := []struct {
		name  string
		shape []int
		want  int
		err   bool
	}{
		{"scalar", nil, 1, false},
		{"plain", []int{2, 3, 4}, 24, false},
		{"zero", []int{3, 0, 5}, 0, false},
		{"zero-after-huge", []int{1 << 62, 1 << 62, 0}, 0, false},
		{"max", []int{1<<62 - 1, 2}, 1<<63 - 2, false},
		{"negative", []int{2, -1}, 0, true},
		{"negative-pair", []int{-2, -2}, 0, true},
		{"overflow-to-zero", []int{1 << 62, 4}, 0, true},
		{"overflow", []int{1<<62 + 1, 4}, 0, true},
		{"overflow-int", []int{1 << 31, 1 << 31, 2}, 0, true},
		{"overflow-late", []int{1 << 40, 1 << 20, 1 << 3}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := CheckedNumel(c.shape)
			if c.err {
				if !errors.Is(err, ErrShape) {
					t.Fatalf("CheckedNumel(%v) = %d, %v; want an ErrShape error", c.shape, n, err)
				}
				return
			}
			if err != nil || n != c.want {
				t.Fatalf("CheckedNumel(%v) = %d, %v; want %d", c.shape, n, err, c.want)
			}
		})
	}
}

// Shapes whose element count overflows are refused (before, [2^62, 4] gave a
// tensor of 0 elements and [2^62+1, 4] one of 4), and so are tensors larger
// than MaxAlloc (before, Go ended the process when memory ran out).
func TestShapeOverflowAndAllocLimit(t *testing.T) {
	huge := 1<<62 + 1
	cases := []struct {
		name string
		kind error
		f    func(dt DType)
	}{
		{"Zeros/overflow-to-zero", ErrShape, func(dt DType) { Zeros(dt, 1<<62, 4) }},
		{"Zeros/overflow", ErrShape, func(dt DType) { Zeros(dt, huge, 4) }},
		{"Zeros/negative", ErrShape, func(dt DType) { Zeros(dt, -2, -2) }},
		{"FromSlice/overflow", ErrShape, func(dt DType) { FromSlice([]float64{1, 2, 3, 4}, huge, 4) }},
		{"Reshape/overflow", ErrShape, func(dt DType) { Zeros(dt, 4).Reshape(huge, 4) }},
		{"Reshape/overflow-inferred", ErrShape, func(dt DType) { Zeros(dt, 4).Reshape(huge, 4, -1) }},
		{"View/overflow", ErrShape, func(dt DType) { Zeros(dt, 4).View(4, huge) }},
		{"Expand/overflow", ErrShape, func(dt DType) { Zeros(dt, 1, 1).Expand(1<<62, 4) }},
		{"Broadcast/overflow", ErrShape, func(DType) {
			Zeros(Float32, 1, 1).Expand(1<<31, 1).Add(Zeros(Float32, 1, 1, 1).Expand(4, 1, 1<<31))
		}},
		{"Zeros/too-large", ErrAlloc, func(dt DType) { Zeros(dt, 1<<40, 1<<20) }},
		{"Full/too-large", ErrAlloc, func(dt DType) { Full(dt, 1, 1<<61) }},
		{"EmptyUninit/too-large", ErrAlloc, func(dt DType) { EmptyUninit(dt, 1<<30, 1<<30) }},
		{"Randint/too-large", ErrAlloc, func(DType) { Randint(0, 5, 1<<61) }},
		{"Randn/too-large", ErrAlloc, func(DType) { Randn(Float32, 1<<61) }},
		{"Arange/too-large", ErrAlloc, func(dt DType) { Arange(dt, 0, 1e30, 1) }},
		{"Linspace/too-large", ErrAlloc, func(dt DType) { Linspace(dt, 0, 1, 1<<60) }},
		{"Perm/too-large", ErrAlloc, func(DType) { NewGenerator(1).Perm(1 << 60) }},
		{"Expand/too-large-copy", ErrAlloc, func(dt DType) { Zeros(dt, 1).Expand(1<<30, 1<<30).Contiguous() }},
	}
	for _, c := range cases {
		for _, dt := range []DType{Float32, Float64, Int64, Bool} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				err := try(func() { c.f(dt) })
				if !errors.Is(err, c.kind) {
					t.Fatalf("got %v, want an error wrapping %v", err, c.kind)
				}
			})
		}
	}
}

func TestSetMaxAlloc(t *testing.T) {
	prev := SetMaxAlloc(1 << 20)
	defer SetMaxAlloc(prev)
	for _, dt := range []DType{Float32, Float64, Int64, Bool} {
		t.Run(dt.String(), func(t *testing.T) {
			n := (1 << 20) / dt.Size()
			if err := try(func() { Zeros(dt, n) }); err != nil {
				t.Fatalf("exactly the limit: %v", err)
			}
			err := try(func() { Zeros(dt, n+1) })
			if !errors.Is(err, ErrAlloc) || !strings.Contains(err.Error(), "allocation limit of 1.0 MiB") {
				t.Fatalf("one element over: %v", err)
			}
		})
	}
	if got := SetMaxAlloc(prev); got != 1<<20 {
		t.Errorf("SetMaxAlloc returned %d, want the limit set before", got)
	}
	if MaxAlloc() != prev {
		t.Errorf("MaxAlloc() = %d, want %d", MaxAlloc(), prev)
	}
}
