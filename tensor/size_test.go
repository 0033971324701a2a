package tensor

import (
	"errors"
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
