package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloatConversions holds To(Float64) and To(Float32), and CopyFrom
// between the float dtypes, to Go's conversions bit for bit: contiguous
// (the vec kernels), offset and strided views, with NaN payloads, ±Inf,
// subnormals and float64s past the float32 range among the values.
func TestFloatConversions(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	specials := []float64{math.NaN(), math.Float64frombits(0x7ff4000000000123), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
		1e39, -1e39, math.SmallestNonzeroFloat32 / 2, 1e-46, math.MaxFloat32, 1 + 0x1p-24, math.SmallestNonzeroFloat64}
	x64 := make([]float64, 3000)
	for i := range x64 {
		if i%7 == 0 {
			x64[i] = specials[r.IntN(len(specials))]
		} else {
			x64[i] = r.NormFloat64() * math.Exp2(float64(r.IntN(60)-30))
		}
	}
	x32 := make([]float32, len(x64))
	for i, v := range x64 {
		x32[i] = float32(v)
	}
	x32[5] = math.Float32frombits(0x7fa00001) // a signalling NaN with a payload
	t64, t32 := FromSlice(x64).Reshape(30, 100), FromSlice(x32).Reshape(30, 100)
	views := []struct {
		name string
		view func(*Tensor) *Tensor
	}{
		{"contiguous", func(t *Tensor) *Tensor { return t }},
		{"offset", func(t *Tensor) *Tensor { return t.Narrow(0, 3, 20) }},
		{"strided", func(t *Tensor) *Tensor { return t.Narrow(1, 1, 50).T() }},
	}
	for _, v := range views {
		t.Run(v.name, func(t *testing.T) {
			src64, src32 := v.view(t64), v.view(t32)
			want32, want64 := src64.Float64s(), src32.To(Float64).Float64s()
			for i, got := range ToSlice[float32](src64.To(Float32)) {
				if w := float32(want32[i]); math.Float32bits(got) != math.Float32bits(w) {
					t.Fatalf("To(Float32) element %d of %v: %#x, want %#x", i, want32[i], math.Float32bits(got), math.Float32bits(w))
				}
			}
			for i, x := range ToSlice[float32](src32) {
				if w := float64(x); math.Float64bits(want64[i]) != math.Float64bits(w) {
					t.Fatalf("To(Float64) element %d of %v: %#x, want %#x", i, x, math.Float64bits(want64[i]), math.Float64bits(w))
				}
			}
			dst := Zeros(Float32, src64.Shape()...)
			dst.CopyFrom(src64)
			for i, got := range ToSlice[float32](dst) {
				if w := float32(want32[i]); math.Float32bits(got) != math.Float32bits(w) {
					t.Fatalf("CopyFrom element %d of %v: %#x, want %#x", i, want32[i], math.Float32bits(got), math.Float32bits(w))
				}
			}
		})
	}
}
