package gpu_test

import (
	"math"
	"strings"
	"testing"

	"github.com/goagx/agx/gpu"
)

func TestProbe(t *testing.T) {
	r := gpu.Probe()
	if r.Found == (r.Reason != "") {
		t.Fatalf("Probe: Found=%v with Reason %q: exactly one of them must say why", r.Found, r.Reason)
	}
	if !strings.Contains(r.String(), "GPU") {
		t.Errorf("String() = %q, want a sentence about the GPU", r.String())
	}
}

func TestArgs(t *testing.T) {
	cases := []struct {
		name string
		in   any
		want uint64
	}{
		{"int", -2, math.MaxUint64 - 1},
		{"int64", int64(1) << 40, 1 << 40},
		{"int32", int32(-1), math.MaxUint32},
		{"float32", float32(1.5), uint64(math.Float32bits(1.5))},
		{"float64", 2.5, math.Float64bits(2.5)},
		{"bool", true, 1},
		{"ptr", gpu.Ptr(0x1000).Add(8), 0x1008},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := gpu.Args(c.in); got[0] != c.want {
				t.Fatalf("Args(%v) = %#x, want %#x", c.in, got[0], c.want)
			}
		})
	}
}
