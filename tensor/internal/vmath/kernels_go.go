package vmath

import "math"

const (
	log2e  = 1.4426950408889634
	round  = 0x1.8p52 // adding it rounds a float64 of magnitude < 2^51 to an integer
	tanhHi = 20.0     // tanh(20) rounds to 1 in float64
)

// The float64(...) conversions around products below keep the compiler from
// fusing them with the following addition (it does on arm64, and on amd64
// with GOAMD64=v3): each product is rounded, as in the assembly kernels.
// (Check: building with -gcflags=-S for GOAMD64=v3 or GOARCH=arm64 shows no
// fused multiply-add in this file or in exp32.go.)

// clampTanh returns min(|v|, tanhHi) for a non-NaN v.
func clampTanh(v float64) float64 {
	a := math.Abs(v)
	if a > tanhHi {
		a = tanhHi
	}
	return a
}

// pow2 returns 2^k for k = t - round, t = float64(v*log2e) + round, k in
// [-1022, 1023]. The low 12 bits of t's bit pattern are those of k (round's
// are 0), so adding the exponent bias and shifting leaves only 2^k's
// exponent field.
func pow2(t float64) float64 { return math.Float64frombits((math.Float64bits(t) + 1023) << 52) }
